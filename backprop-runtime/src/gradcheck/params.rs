//! What `gradcheck` perturbs (the parameters: a model, or a tuple of
//! models, floats and arrays) and what it compares (the gradient's fields).

use crate::model::{Differentiable, Leaf, LeafMut, Path, Segment};
use crate::value::{Float, Value};

/// A gradient whose fields `gradcheck` can read: one per parameter, each
/// with its elements in logical row-major order as `f64`.
///
/// Every [`Differentiable`] value is one, its fields being its top-level
/// fields (so the `NameGrad` of `#[differentiable]` and a model struct
/// are); a gradient that is not a struct (an array, a `Vec`) has one field,
/// named `""`.
///
/// ```
/// use backprop_runtime::gradcheck::{flatten, Gradient};
/// use ndarray::array;
///
/// // By hand, for a type that is not a model.
/// struct Grad { w: ndarray::Array1<f64>, b: f64 }
/// impl Gradient for Grad {
///     fn fields(&self) -> Vec<(&'static str, Vec<f64>)> {
///         vec![("w", flatten(&self.w)), ("b", flatten(&self.b))]
///     }
/// }
/// let g = Grad { w: array![1.0, 2.0], b: 3.0 };
/// assert_eq!(g.fields(), [("w", vec![1.0, 2.0]), ("b", vec![3.0])]);
/// // A model's own.
/// assert_eq!(vec![array![1.0], array![2.0]].fields(), [("", vec![1.0, 2.0])]);
/// ```
pub trait Gradient {
    /// Every field's name and its elements in logical row-major order, as
    /// `f64` (see [`flatten`]), in the order of the parameters.
    fn fields(&self) -> Vec<(&'static str, Vec<f64>)>;
}

/// The name of the top-level field a leaf is in: `""` for a leaf that is
/// not in a field (a value that is itself a leaf, or a `Vec`'s element).
fn top_field(path: &Path) -> Option<&'static str> {
    match path.segments().first() {
        Some(Segment::Field(name)) => Some(name),
        _ => None,
    }
}

impl<T: Differentiable> Gradient for T {
    fn fields(&self) -> Vec<(&'static str, Vec<f64>)> {
        let mut fields: Vec<(&'static str, Vec<f64>)> = Vec::new();
        self.visit(&mut Path::new(), &mut |path: &Path, leaf: Leaf<'_>| {
            let name = top_field(path).unwrap_or("");
            match fields.last_mut() {
                Some((last, elements)) if *last == name => leaf.extend_f64(elements),
                _ => {
                    let mut elements = Vec::with_capacity(leaf.len());
                    leaf.extend_f64(&mut elements);
                    fields.push((name, elements));
                }
            }
        });
        fields
    }
}

/// The elements of a scalar or an array in logical row-major order (whatever
/// its memory layout), as `f64`.
///
/// ```
/// use backprop_runtime::gradcheck::flatten;
/// use ndarray::array;
/// let a = array![[1.0, 2.0], [3.0, 4.0]];
/// assert_eq!(flatten(&a.t()), vec![1.0, 3.0, 2.0, 4.0]);
/// assert_eq!(flatten(&2.5_f32), vec![2.5]);
/// ```
pub fn flatten<V: Value>(v: &V) -> Vec<f64> {
    v.view().iter().map(|&x| Float::to_f64(x)).collect()
}

/// One parameter of a check, as [`Params::groups`] describes it.
#[derive(Clone, Debug, PartialEq)]
pub struct Group {
    /// The field of the model it is (`Some("layers")`), or `None` for a
    /// tuple element, which takes the name of its gradient field.
    pub name: Option<&'static str>,
    /// Its number of elements.
    pub len: usize,
    /// Its shape, for a parameter that is one float or array; `[len]` for
    /// one of several leaves.
    pub shape: Vec<usize>,
}

/// Where element `k` of a parameter is.
#[derive(Clone, Debug, PartialEq)]
pub struct Element {
    /// Its path, with its index in its leaf: `layers[1].w[[0, 2]]`; for a
    /// tuple element, below it (`[[0, 2]]`, `layers[1].w[[0, 2]]`), for
    /// the gradient field's name to go in front.
    pub path: String,
    /// Its multi-index in its leaf (empty for a float).
    pub position: Vec<usize>,
}

/// The parameters of a check, each perturbed element by element: a tuple of
/// 1 to 12 [`Differentiable`] values (owned `f32`, `f64`, arrays, models),
/// whose gradient has one field per element in order, or one model, whose
/// gradient has its top-level fields (a value of the model's type).
pub trait Params: Clone {
    /// The parameters, in the order of the gradient's fields.
    fn groups(&self) -> Vec<Group>;
    /// Element `k` (in the order of [`Differentiable::to_flat`]) of
    /// parameter `group`, as `f64`.
    fn get(&self, group: usize, k: usize) -> f64;
    /// Sets element `k` of parameter `group`, rounded to its precision.
    fn set(&mut self, group: usize, k: usize, v: f64);
    /// Where element `k` of parameter `group` is.
    fn element(&self, group: usize, k: usize) -> Element;
    /// Whether any leaf is single precision.
    fn single_precision(&self) -> bool;
}

/// The leaf holding element `k` of `value`'s flat order, and the index in it.
fn find_leaf<'a, M: Differentiable>(value: &'a M, k: usize) -> (Path, Leaf<'a>, usize) {
    let mut found = None;
    let mut start = 0;
    value.visit(&mut Path::new(), &mut |path: &Path, leaf: Leaf<'a>| {
        if found.is_none() && k < start + leaf.len() {
            found = Some((path.clone(), leaf, k - start));
        } else {
            start += leaf.len();
        }
    });
    found.unwrap_or_else(|| panic!("element {k} of a value of {start} elements"))
}

fn get_element<M: Differentiable>(value: &M, k: usize) -> f64 {
    let (_, leaf, i) = find_leaf(value, k);
    leaf.get(i)
}

fn set_element<M: Differentiable>(value: &mut M, k: usize, v: f64) {
    let mut start = 0;
    let mut done = false;
    value.visit_mut(&mut Path::new(), &mut |_: &Path, mut leaf: LeafMut<'_>| {
        if !done && k < start + leaf.len() {
            leaf.set(k - start, v);
            done = true;
        }
        start += leaf.len();
    });
    assert!(done, "element {k} of a value of {start} elements");
}

fn element_of<M: Differentiable>(value: &M, k: usize) -> Element {
    let (path, leaf, i) = find_leaf(value, k);
    let position = crate::model::unravel(leaf.shape(), i);
    Element {
        path: path.element(&position),
        position,
    }
}

fn any_single<M: Differentiable>(value: &M) -> bool {
    let mut single = false;
    value.visit(&mut Path::new(), &mut |_: &Path, leaf: Leaf<'_>| {
        single |= leaf.is_single_precision()
    });
    single
}

/// `[len]`, or the shape of the one leaf at the root of `value`.
fn shape_of<M: Differentiable>(value: &M) -> Vec<usize> {
    let mut leaves = Vec::new();
    value.visit(&mut Path::new(), &mut |path: &Path, leaf: Leaf<'_>| {
        leaves.push((path.is_empty(), leaf.shape().to_vec()))
    });
    match leaves.as_slice() {
        [(true, shape)] => shape.clone(),
        _ => vec![value.num_params()],
    }
}

/// A model's top-level fields, each with where it starts in the model's
/// flat order; a group named `None` holds leaves that are in no field.
fn field_groups<M: Differentiable>(model: &M) -> Vec<(Group, usize)> {
    // (group, its start, the shape of its one leaf if it is the field itself)
    let mut groups: Vec<(Group, usize, Option<Vec<usize>>)> = Vec::new();
    let mut start = 0;
    model.visit(&mut Path::new(), &mut |path: &Path, leaf: Leaf<'_>| {
        let name = top_field(path);
        match groups.last_mut() {
            Some((group, _, own)) if group.name == name => {
                group.len += leaf.len();
                *own = None;
            }
            _ => {
                let own = (path.segments().len() == 1).then(|| leaf.shape().to_vec());
                let len = leaf.len();
                let group = Group {
                    name,
                    len,
                    shape: vec![len],
                };
                groups.push((group, start, own));
            }
        }
        start += leaf.len();
    });
    groups
        .into_iter()
        .map(|(mut group, start, own)| {
            if let Some(shape) = own {
                group.shape = shape;
            }
            (group, start)
        })
        .collect()
}

/// One model: its top-level fields are the parameters (the whole value is
/// one, for a value that is not a struct).
impl<M: Differentiable> Params for M {
    fn groups(&self) -> Vec<Group> {
        let groups = field_groups(self);
        if groups.iter().any(|(g, _)| g.name.is_none()) {
            // A leaf, or a sequence: one parameter, named by its gradient.
            return vec![Group {
                name: None,
                len: self.num_params(),
                shape: shape_of(self),
            }];
        }
        groups.into_iter().map(|(g, _)| g).collect()
    }
    fn get(&self, group: usize, k: usize) -> f64 {
        get_element(self, offset(self, group) + k)
    }
    fn set(&mut self, group: usize, k: usize, v: f64) {
        let start = offset(self, group);
        set_element(self, start + k, v);
    }
    fn element(&self, group: usize, k: usize) -> Element {
        element_of(self, offset(self, group) + k)
    }
    fn single_precision(&self) -> bool {
        any_single(self)
    }
}

/// Where parameter `group` of a model starts in its flat order.
fn offset<M: Differentiable>(model: &M, group: usize) -> usize {
    let groups = field_groups(model);
    if groups.iter().any(|(g, _)| g.name.is_none()) {
        assert_eq!(group, 0, "parameter {group} of 1");
        return 0;
    }
    groups
        .get(group)
        .unwrap_or_else(|| panic!("parameter {group} of {}", groups.len()))
        .1
}

macro_rules! tuple_params {
    ($n:expr; $($T:ident $i:tt),+) => {
        impl<$($T: Differentiable),+> Params for ($($T,)+) {
            fn groups(&self) -> Vec<Group> {
                vec![$(Group { name: None, len: self.$i.num_params(), shape: shape_of(&self.$i) }),+]
            }
            fn get(&self, group: usize, k: usize) -> f64 {
                match group {
                    $($i => get_element(&self.$i, k),)+
                    _ => panic!("parameter {group} of {}", $n),
                }
            }
            fn set(&mut self, group: usize, k: usize, v: f64) {
                match group {
                    $($i => set_element(&mut self.$i, k, v),)+
                    _ => panic!("parameter {group} of {}", $n),
                }
            }
            fn element(&self, group: usize, k: usize) -> Element {
                match group {
                    $($i => element_of(&self.$i, k),)+
                    _ => panic!("parameter {group} of {}", $n),
                }
            }
            fn single_precision(&self) -> bool {
                false $(|| any_single(&self.$i))+
            }
        }
    };
}
tuple_params!(1; A 0);
tuple_params!(2; A 0, B 1);
tuple_params!(3; A 0, B 1, C 2);
tuple_params!(4; A 0, B 1, C 2, E 3);
tuple_params!(5; A 0, B 1, C 2, E 3, G 4);
tuple_params!(6; A 0, B 1, C 2, E 3, G 4, H 5);
tuple_params!(7; A 0, B 1, C 2, E 3, G 4, H 5, I 6);
tuple_params!(8; A 0, B 1, C 2, E 3, G 4, H 5, I 6, J 7);
tuple_params!(9; A 0, B 1, C 2, E 3, G 4, H 5, I 6, J 7, K 8);
tuple_params!(10; A 0, B 1, C 2, E 3, G 4, H 5, I 6, J 7, K 8, L 9);
tuple_params!(11; A 0, B 1, C 2, E 3, G 4, H 5, I 6, J 7, K 8, L 9, M 10);
tuple_params!(12; A 0, B 1, C 2, E 3, G 4, H 5, I 6, J 7, K 8, L 9, M 10, N 11);
