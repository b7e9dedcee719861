//! Walking a model together with other values of its type (a gradient, an
//! optimiser's state), leaf by leaf, checking that they have the same
//! structure.

use super::{Differentiable, Leaf, LeafMut, Path, Visitor, VisitorMut};

/// What a visit reports, in order.
enum Event<L> {
    Sequence(usize),
    Leaf(L),
}

/// The shape and precision of a leaf, read or writable.
trait Shaped {
    fn shape(&self) -> &[usize];
    fn single(&self) -> bool;
}

impl Shaped for Leaf<'_> {
    fn shape(&self) -> &[usize] {
        Leaf::shape(self)
    }
    fn single(&self) -> bool {
        self.is_single_precision()
    }
}

impl Shaped for LeafMut<'_> {
    fn shape(&self) -> &[usize] {
        LeafMut::shape(self)
    }
    fn single(&self) -> bool {
        self.is_single_precision()
    }
}

/// A leaf, in words: "an f64 array of shape [2, 3]".
fn describe_leaf(leaf: &impl Shaped) -> String {
    let precision = if leaf.single() { "f32" } else { "f64" };
    match leaf.shape() {
        [] => format!("an {precision} scalar"),
        shape => format!("an {precision} array of shape {shape:?}"),
    }
}

fn describe<L: Shaped>(event: Option<&Event<L>>) -> String {
    match event {
        Some(Event::Sequence(n)) => format!("a sequence of {n} elements"),
        Some(Event::Leaf(leaf)) => describe_leaf(leaf),
        None => "nothing (it has no more parameters)".to_owned(),
    }
}

#[track_caller]
fn mismatch(path: &Path, name: &str, model: &str, other: &str) -> ! {
    let at = if path.is_empty() {
        "at the top level".to_owned()
    } else {
        format!("at `{path}`")
    };
    panic!(
        "{name} does not fit the model {at}: the model has {model} there, {name} has {other}; \
         values zipped together must have the same `Vec` lengths and array shapes"
    )
}

struct Collect<L> {
    events: Vec<Event<L>>,
}

impl<'a> Visitor<'a> for Collect<Leaf<'a>> {
    fn leaf(&mut self, _: &Path, leaf: Leaf<'a>) {
        self.events.push(Event::Leaf(leaf));
    }
    fn sequence(&mut self, _: &Path, len: usize) {
        self.events.push(Event::Sequence(len));
    }
}

impl<'a> VisitorMut<'a> for Collect<LeafMut<'a>> {
    fn leaf(&mut self, _: &Path, leaf: LeafMut<'a>) {
        self.events.push(Event::Leaf(leaf));
    }
    fn sequence(&mut self, _: &Path, len: usize) {
        self.events.push(Event::Sequence(len));
    }
}

type Stream<'n, L> = (&'n str, std::vec::IntoIter<Event<L>>);

/// Takes the next event of `stream`, which must be a sequence of `len`.
fn next_sequence<L: Shaped>(stream: &mut Stream<'_, L>, path: &Path, len: usize) {
    let (name, events) = stream;
    match events.next() {
        Some(Event::Sequence(n)) if n == len => {}
        other => mismatch(
            path,
            name,
            &format!("a sequence of {len} elements"),
            &describe(other.as_ref()),
        ),
    }
}

/// Takes the next event of `stream`, which must be a leaf like `like`.
fn next_leaf<L: Shaped>(stream: &mut Stream<'_, L>, path: &Path, like: &LeafMut<'_>) -> L {
    let (name, events) = stream;
    match events.next() {
        Some(Event::Leaf(leaf))
            if leaf.shape() == like.shape() && leaf.single() == like.single() =>
        {
            leaf
        }
        other => mismatch(path, name, &describe_leaf(like), &describe(other.as_ref())),
    }
}

struct Zipper<'n, 'r, 'w, F, const R: usize, const W: usize> {
    reads: [Stream<'n, Leaf<'r>>; R],
    writes: [Stream<'n, LeafMut<'w>>; W],
    f: F,
}

impl<'t, 'r, 'w, F, const R: usize, const W: usize> VisitorMut<'t> for Zipper<'_, 'r, 'w, F, R, W>
where
    F: FnMut(&Path, LeafMut<'t>, [Leaf<'r>; R], [LeafMut<'w>; W]),
{
    fn leaf(&mut self, path: &Path, leaf: LeafMut<'t>) {
        let reads = std::array::from_fn(|i| next_leaf(&mut self.reads[i], path, &leaf));
        let writes = std::array::from_fn(|i| next_leaf(&mut self.writes[i], path, &leaf));
        (self.f)(path, leaf, reads, writes);
    }

    fn sequence(&mut self, path: &Path, len: usize) {
        for stream in &mut self.reads {
            next_sequence(stream, path, len);
        }
        for stream in &mut self.writes {
            next_sequence(stream, path, len);
        }
    }
}

/// Walks `target` writably together with the values `reads` (read-only) and
/// `writes` (writable) of its type, calling `f` with the path and the leaf
/// at the same place in each: how the optimisers update a model from its
/// gradient and their state, one whole array at a time.
///
/// Each value comes with a name for the message of a mismatch.
///
/// # Panics
///
/// Where a value has another `Vec` length, array shape or precision than
/// `target`, naming the path and the value.
///
/// ```
/// use backprop_runtime::model::{zip_mut, Differentiable};
/// use ndarray::array;
///
/// // One step of SGD with momentum, by hand: v = 0.9 v + g; w -= 0.1 v.
/// let mut w = vec![array![1.0, 2.0], array![3.0]];
/// let g = vec![array![1.0, 1.0], array![-1.0]];
/// let mut v = w.zeros_like();
/// zip_mut(&mut w, [("the gradient", &g)], [("the velocity", &mut v)], |_, mut w, [g], [mut v]| {
///     v.scale(0.9);
///     v.scaled_add(1.0, &g);
///     w.scaled_add(-0.1, &v.view());
/// });
/// assert_eq!(w.to_flat(), [0.9, 1.9, 3.1]);
///
/// let short = vec![array![1.0, 1.0]];
/// let err = std::panic::catch_unwind(move || {
///     let mut w = w;
///     zip_mut(&mut w, [("the gradient", &short)], [], |_, _, _, _| {});
/// });
/// assert!(err.is_err());
/// ```
pub fn zip_mut<'t, 'r, 'w, M, const R: usize, const W: usize>(
    target: &'t mut M,
    reads: [(&str, &'r M); R],
    writes: [(&str, &'w mut M); W],
    f: impl FnMut(&Path, LeafMut<'t>, [Leaf<'r>; R], [LeafMut<'w>; W]),
) where
    M: Differentiable,
{
    let reads = reads.map(|(name, value)| {
        let mut collect = Collect { events: Vec::new() };
        value.visit(&mut Path::new(), &mut collect);
        (name, collect.events.into_iter())
    });
    let writes = writes.map(|(name, value)| {
        let mut collect = Collect { events: Vec::new() };
        value.visit_mut(&mut Path::new(), &mut collect);
        (name, collect.events.into_iter())
    });
    let mut zipper = Zipper { reads, writes, f };
    target.visit_mut(&mut Path::new(), &mut zipper);
    let root = Path::new();
    for (name, events) in &mut zipper.reads {
        if let Some(event) = events.next() {
            mismatch(&root, name, "no more parameters", &describe(Some(&event)));
        }
    }
    for (name, events) in &mut zipper.writes {
        if let Some(event) = events.next() {
            mismatch(&root, name, "no more parameters", &describe(Some(&event)));
        }
    }
}
