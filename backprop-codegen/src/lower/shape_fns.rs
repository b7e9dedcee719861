//! `Array1::from_shape_fn(n, |i| e)` (also `Array2` with `|(i, j)| e` and
//! `Array3`) of a closure that reads differentiable values: the array made
//! and filled element by element in logical order, as the loop it is, its
//! writes lowered as any other.
//!
//! Before: `let y = Array2::from_shape_fn((2, n), |(i, j)| m[[i, j]] * x[j]);`
//!
//! After: `let y = { let mut array: Array<_, Ix2> = Array::zeros((2, n));
//! for i_0 in 0..array.len_of(Axis(0)) { for i_1 in 0..array.len_of(Axis(1)) {
//! let (i, j) = (i_0, i_1); array[[i_0, i_1]] = m[[i, j]] * x[j]; } } array };`

use super::{Fresh, Lowerer};
use crate::graph::NodeId;
use quote::quote;
use syn::{Expr, ExprCall};

impl Lowerer<'_> {
    /// `ArrayN::from_shape_fn(shape, |index| body)` whose closure reads a
    /// differentiable value; `None` for any other call (ndarray's own
    /// `from_shape_fn` of constants is Rust's; `Array::from_shape_fn`,
    /// whose number of axes the path does not say, and a closure that
    /// returns early, stay errors).
    pub(super) fn shape_fn_array(&mut self, c: &ExprCall) -> Option<NodeId> {
        let Expr::Path(p) = super::strip_paren(&c.func) else {
            return None;
        };
        let segs: Vec<_> = p.path.segments.iter().collect();
        let [.., ty, f] = segs.as_slice() else {
            return None;
        };
        let axes: usize = match (ty.ident.to_string().as_str(), f.ident == "from_shape_fn") {
            ("Array1", true) => 1,
            ("Array2", true) => 2,
            ("Array3", true) => 3,
            _ => return None,
        };
        if c.args.len() != 2 {
            return None;
        }
        let (shape, Expr::Closure(closure)) = (&c.args[0], super::strip_paren(&c.args[1])) else {
            return None;
        };
        if closure.inputs.len() != 1
            || super::iters::returns_early(&closure.body)
            || !self.mentions_varying(&closure.body)
        {
            return None;
        }
        let span = f.ident.span();
        let krate = &self.env.krate;
        let mut fresh = Fresh::of(&self.func.item);
        // Named after the binding the array is made for (`y` of `let y =`).
        let base = match self.base.as_str() {
            b if syn::parse_str::<syn::Ident>(b).is_ok() => b.to_owned(),
            _ => "array".to_owned(),
        };
        let array = fresh.name(&base);
        let index: Vec<syn::Ident> = (0..axes).map(|_| fresh.name("i")).collect();
        let dim = quote::format_ident!("Ix{}", axes);
        let (pat, body) = (&closure.inputs[0], &closure.body);
        let place = match index.as_slice() {
            [i] => quote!(#i),
            all => quote!([#(#all),*]),
        };
        let bound = match index.as_slice() {
            [i] => quote!(#i),
            all => quote!((#(#all),*)),
        };
        // The index bound by the closure's pattern; a name for a tuple of
        // indices (`|ij|`) is the tuple wherever the body reads it.
        let mut fill = match (pat, axes) {
            (syn::Pat::Ident(p), 2..) if p.by_ref.is_none() && p.subpat.is_none() => {
                let stmts = [syn::Stmt::Expr((**body).clone(), None)];
                let Ok(placed) = super::iters::put_places(&stmts, &[(p.ident.clone(), bound)])
                else {
                    return None;
                };
                quote!(#array[#place] = { #(#placed)* };)
            }
            _ => quote! {
                let #pat = #bound;
                #array[#place] = #body;
            },
        };
        for (k, i) in index.iter().enumerate().rev() {
            fill = quote! {
                for #i in 0..#array.len_of(#krate::ndarray::Axis(#k)) {
                    #fill
                }
            };
        }
        let block: Expr = syn::parse_quote_spanned! {span=> {
            let mut #array: #krate::ndarray::Array<_, #krate::ndarray::#dim> =
                #krate::ndarray::Array::zeros(#shape);
            #fill
            #array
        }};
        Some(self.expr(&block))
    }
}
