//! `concat`, `row`, `column`, `index`, `copy`: forward values are ndarray's,
//! adjoints put the gradient back where the values came from.

#[macro_use]
mod common;

use backprop_runtime::ops::*;
use common::{f32s, rand, F32, F64};
use ndarray::{array, concatenate, Array2, Axis, ShapeBuilder};

#[test]
fn concat_forward_is_ndarrays() {
    let a = rand((2, 3), 1, -1.0, 1.0);
    let b = rand((2, 1), 2, -1.0, 1.0);
    let c = rand((2, 2).f(), 3, -1.0, 1.0);
    assert_eq!(
        concat(Axis(1), &[&a, &b, &c]),
        concatenate(Axis(1), &[a.view(), b.view(), c.view()]).unwrap()
    );
    let d = rand((4, 3), 4, -1.0, 1.0);
    assert_eq!(
        concat(Axis(0), &[&a, &d]),
        concatenate(Axis(0), &[a.view(), d.view()]).unwrap()
    );
    assert_eq!(
        concat(Axis(0), &[&a.view(), &d.view()]),
        concatenate(Axis(0), &[a.view(), d.view()]).unwrap()
    );
}

#[test]
fn concat_splits_its_gradient() {
    let b = rand((2, 1), 5, -1.0, 1.0);
    let c = rand((2, 2), 6, -1.0, 1.0);
    let a = rand((2, 3), 7, -1.0, 1.0);
    check_vjp!(
        "axis 1 piece 0",
        F64,
        a.clone(),
        |x| concat(Axis(1), &[x, &b, &c]),
        |g, _o| concat_vjp(g, Axis(1), &[x, &b, &c], 0)
    );
    check_vjp!(
        "axis 1 piece 1",
        F64,
        b.clone(),
        |x| concat(Axis(1), &[&a, x, &c]),
        |g, _o| concat_vjp(g, Axis(1), &[&a, x, &c], 1)
    );
    check_vjp!(
        "axis 1 piece 2",
        F64,
        c.clone(),
        |x| concat(Axis(1), &[&a, &b, x]),
        |g, _o| concat_vjp(g, Axis(1), &[&a, &b, x], 2)
    );
    let d = rand((3, 3), 8, -1.0, 1.0);
    check_vjp!(
        "axis 0 piece 1",
        F64,
        d.clone(),
        |x| concat(Axis(0), &[&a, x]),
        |g, _o| concat_vjp(g, Axis(0), &[&a, x], 1)
    );
    check_vjp!(
        "axis 0 piece 0",
        F64,
        a.clone(),
        |x| concat(Axis(0), &[x, &d]),
        |g, _o| concat_vjp(g, Axis(0), &[x, &d], 0)
    );
    let v = rand(3, 9, -1.0, 1.0);
    check_vjp!(
        "vectors",
        F64,
        rand(2, 10, -1.0, 1.0),
        |x| concat(Axis(0), &[&v, x, &v]),
        |g, _o| concat_vjp(g, Axis(0), &[&v, x, &v], 1)
    );
    let e = f32s(&rand((2, 2), 11, -1.0, 1.0));
    check_vjp!(
        "f32",
        F32,
        f32s(&a),
        |x| concat(Axis(1), &[&e, x]),
        |g, _o| concat_vjp(g, Axis(1), &[&e, x], 1)
    );
}

#[test]
#[should_panic(expected = "concat: cannot join arrays of shapes [[2, 3], [3, 3]] along axis 1")]
fn concat_of_mismatched_shapes_panics_with_the_shapes() {
    let a = Array2::<f64>::zeros((2, 3));
    let b = Array2::<f64>::zeros((3, 3));
    let _ = concat(Axis(1), &[&a, &b]);
}

#[test]
fn row_and_column() {
    let a = rand((3, 4), 12, -1.0, 1.0);
    assert_eq!(row(&a, 1), a.row(1));
    assert_eq!(column(&a, 2), a.column(2));
    for i in 0..3 {
        check_vjp!(
            format!("row {i}"),
            F64,
            a.clone(),
            |x| row(x, i),
            |g, _o| row_vjp(g, x, i).value()
        );
    }
    for j in 0..4 {
        check_vjp!(
            format!("column {j}"),
            F64,
            a.clone(),
            |x| column(x, j),
            |g, _o| column_vjp(g, x, j).value()
        );
    }
    check_vjp!(
        "row of column-major",
        F64,
        rand((3, 4).f(), 13, -1.0, 1.0),
        |x| row(x, 2),
        |g, _o| row_vjp(g, x, 2).value()
    );
    check_vjp!(
        "row of a view",
        F64,
        a.clone(),
        |x| row(&x.t(), 1).to_owned(),
        |g, _o| row_vjp(g, &x.t(), 1).value().reversed_axes()
    );
    check_vjp!("row f32", F32, f32s(&a), |x| row(x, 0), |g, _o| row_vjp(
        g, x, 0
    )
    .value());
    check_vjp!("column f32", F32, f32s(&a), |x| column(x, 3), |g, _o| {
        column_vjp(g, x, 3).value()
    });
    // The adjoint puts `g` in its row, zeros elsewhere.
    let g = array![1.0, 2.0, 3.0, 4.0];
    let d = row_vjp(&g, &a, 1).value();
    assert_eq!(d.row(1), g);
    assert_eq!(d.row(0).sum(), 0.0);
    // Added into a gradient, only the row changes; a column the same.
    let mut acc = a.clone();
    row_vjp(&g, &a, 1).add_to(&mut acc);
    assert_eq!(acc.row(1), &a.row(1) + &g);
    assert_eq!(acc.row(2), a.row(2));
    let mut acc = a.clone();
    column_vjp(array![1.0, 2.0, 3.0], &a, 2).add_to(&mut acc);
    assert_eq!(acc.column(2), &a.column(2) + &array![1.0, 2.0, 3.0]);
    assert_eq!(acc.column(1), a.column(1));
}

#[test]
fn index_reads_one_element() {
    let v = rand(5, 14, -1.0, 1.0);
    let m = rand((3, 4), 15, -1.0, 1.0);
    assert_eq!(index(&v, 2), v[2]);
    assert_eq!(index(&m, [1, 0]), m[[1, 0]]);
    assert_eq!(index(&m, (2, 3)), m[(2, 3)]);
    check_vjp!("vector", F64, v.clone(), |x| index(x, 3), |g, _o| {
        index_vjp(g, x, 3).value()
    });
    check_vjp!("matrix", F64, m.clone(), |x| index(x, [2, 1]), |g, _o| {
        index_vjp(g, x, [2, 1]).value()
    });
    check_vjp!(
        "matrix tuple",
        F64,
        m.clone(),
        |x| index(x, (0, 3)),
        |g, _o| index_vjp(g, x, (0, 3)).value()
    );
    check_vjp!(
        "view",
        F64,
        m.clone(),
        |x| index(&x.t(), [3, 0]),
        |g, _o| index_vjp(g, &x.t(), [3, 0]).value().reversed_axes()
    );
    check_vjp!(
        "3-d",
        F64,
        rand((2, 3, 2), 16, -1.0, 1.0),
        |x| index(x, [1, 2, 0]),
        |g, _o| index_vjp(g, x, [1, 2, 0]).value()
    );
    check_vjp!("f32", F32, f32s(&m), |x| index(x, [1, 1]), |g, _o| {
        index_vjp(g, x, [1, 1]).value()
    });
    let d = index_vjp(2.0, &m, [1, 2]).value();
    assert_eq!(d.sum(), 2.0);
    assert_eq!(d[[1, 2]], 2.0);
    // Added into a gradient, only the element changes.
    let mut acc = m.clone();
    index_vjp(2.0, &m, [1, 2]).add_to(&mut acc);
    assert_eq!(acc[[1, 2]], m[[1, 2]] + 2.0);
    acc[[1, 2]] = m[[1, 2]];
    assert_eq!(acc, m);
}

#[test]
fn copy_passes_the_gradient_through() {
    let a = rand((3, 4), 17, -1.0, 1.0);
    assert_eq!(copy(&a.view()), a);
    assert_eq!(copy(&a.t()), a.t());
    assert_eq!(copy(&1.5_f64), 1.5);
    check_vjp!("scalar", F64, 0.3_f64, |x| copy(x), |g, _o| copy_vjp(g, x));
    check_vjp!("array", F64, a.clone(), |x| copy(x), |g, _o| copy_vjp(g, x));
    check_vjp!("view", F64, a.clone(), |x| copy(&x.view()), |g, _o| {
        copy_vjp(g, &x.view())
    });
    check_vjp!("f32", F32, f32s(&a), |x| copy(x), |g, _o| copy_vjp(g, x));
    let g = rand((3, 4), 18, -1.0, 1.0);
    let ptr = g.as_ptr();
    assert_eq!(copy_vjp(g, &a).as_ptr(), ptr);
}
