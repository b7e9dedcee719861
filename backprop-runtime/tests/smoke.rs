use backprop_runtime::ops::*;
use ndarray::array;
#[test]
fn smoke() {
    let a = array![[1.0, 2.0, 3.0], [4.0, 5.0, 6.0], [7.0, 8.0, 9.0]];
    let b = array![[1.0], [2.0], [3.0]];
    let c = sub(&a, &b);
    assert_eq!(c, &a - &b);
    let g = array![[1.0, 1.0, 2.0], [0.0, 1.0, 0.0], [1.0, 1.0, 1.0]];
    let db = sub_vjp_rhs(&g, &a, &b);
    assert_eq!(db, array![[-4.0], [-1.0], [-3.0]]);
    let da = sub_vjp_lhs(g.clone(), &a, &b);
    assert_eq!(da, g);
    let s = 2.0_f64;
    let y = mul(&s, &a);
    let ds = mul_vjp_lhs(&g, &s, &a);
    assert_eq!(y[[0, 0]], 2.0);
    assert_eq!(ds, (&g * &a).sum());
    let e = exp(&a.view());
    let _ = exp_vjp(&e, &a, &e);
    assert_eq!(relu(-1.0), 0.0);
    assert_eq!(relu(&-1.0), 0.0);
    let x = 3.0f64;
    assert_eq!(mul_vjp_rhs(1.0, &x, &x), 3.0);
}
