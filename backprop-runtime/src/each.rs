//! The reverse sweeps of `NAME_backward_each`: one per upstream gradient,
//! after one forward pass.

/// `[sweep(d_outs[0]), sweep(d_outs[1]), ..]`.
///
/// `sweep` is `Fn`: it reads the forward pass's values and cannot write over
/// them, so every sweep sees the values the first one saw.
///
/// ```
/// # use backprop_runtime::each::each;
/// let (x, y) = (2.0, 3.0);
/// // The rows of the Jacobian of (x * y, x + y).
/// let rows = each([(1.0, 0.0), (0.0, 1.0)], |(d0, d1): (f64, f64)| (d0 * y + d1, d0 * x + d1));
/// assert_eq!(rows, [(3.0, 2.0), (1.0, 1.0)]);
/// ```
#[inline(always)]
pub fn each<D, G, const K: usize>(d_outs: [D; K], sweep: impl Fn(D) -> G) -> [G; K] {
    let mut out: [Option<G>; K] = [const { None }; K];
    for (o, d) in out.iter_mut().zip(d_outs) {
        *o = Some(sweep(d));
    }
    out.map(|g| g.expect("one gradient per upstream"))
}
