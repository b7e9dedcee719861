//! Scalars as plain Rust (see `crate::plan::plain`): the forward step of an
//! op on `f64` values, and the rules of the operators as arithmetic.

use super::{subst, value, Cx};
use crate::graph::{Node, NodeId};
use crate::plan::Region;
use crate::vocab::{Arg, Op, ScalarRule, FLOATS_ONLY, OPERATOR};
use proc_macro2::{Ident, Span, TokenStream};
use quote::{quote, quote_spanned};

/// A scalar operand by value.
fn operand(r: &Region, cx: &Cx, id: NodeId) -> TokenStream {
    value(cx, &r.operand(&cx.func.params, id))
}

/// `let y = a + b;`, `let y = x.exp();`, `let y = bp::sigmoid(x);`.
pub fn forward(r: &Region, cx: &Cx, id: NodeId, op: Op, span: Span) -> TokenStream {
    let bp = cx.bp;
    let Node::Op { inputs, consts, .. } = r.node(id) else {
        unreachable!("an op")
    };
    let name = r.name(id);
    let def = op.def();
    let args: Vec<TokenStream> = inputs.iter().map(|i| operand(r, cx, *i)).collect();
    let mut consts = consts.iter().map(|c| subst(r, c));
    let expr = if op.has(OPERATOR) {
        let symbol: TokenStream = def.name.parse().expect("an operator's symbol");
        match &args[..] {
            [x] => quote!(#symbol #x),
            [a, b] => quote!(#a #symbol #b),
            _ => unreachable!("an operator of one or two operands"),
        }
    } else if op.has(FLOATS_ONLY) {
        args[0].clone()
    } else if let Some(method) = def.methods.first() {
        let method = Ident::new(method, span);
        let receiver = match r.node(inputs[0]) {
            Node::Float(_) => {
                let x = &args[0];
                quote!((#x))
            }
            _ => args[0].clone(),
        };
        let mut operands = args[1..].iter();
        let rest = def.method_args.iter().map(|a| match a {
            Arg::Operand | Arg::Operands => operands.next().cloned(),
            Arg::Const(_) | Arg::SliceInfo(_) => consts.next(),
        });
        quote!(#receiver.#method(#(#rest),*))
    } else {
        let f = Ident::new(def.forward, span);
        let consts: Vec<TokenStream> = consts.collect();
        quote!(#bp::#f(#(#args),* #(, #consts)*))
    };
    quote_spanned!(span=> let #name = #expr;)
}

/// An operator's rule for operand `pos` on scalars: `g * b`, `-g`, ...
pub fn contribution(r: &Region, cx: &Cx, id: NodeId, pos: usize) -> TokenStream {
    let g = r.adj(id);
    let inputs = r.inputs(id);
    let a = operand(r, cx, inputs[0]);
    let b = inputs.get(1).map(|b| operand(r, cx, *b));
    match r.op(id).def().scalar_rules[pos.min(1)] {
        ScalarRule::G => quote!(#g),
        ScalarRule::NegG => quote!(-#g),
        ScalarRule::TimesRhs => quote!(#g * #b),
        ScalarRule::TimesLhs => quote!(#g * #a),
        ScalarRule::OverRhs => quote!(#g / #b),
        ScalarRule::Quotient => {
            // The quotient itself, `a / b`: one division, and no `b * b`
            // to overflow.
            let y = operand(r, cx, id);
            quote!(-(#g * #y) / #b)
        }
    }
}

/// `acc + c` for an operator's rule `c`, as `acc + g` or `acc - g` where
/// `c` is `±g`.
pub fn added(r: &Region, cx: &Cx, id: NodeId, pos: usize, acc: &TokenStream) -> TokenStream {
    let g = r.adj(id);
    match r.op(id).def().scalar_rules[pos.min(1)] {
        ScalarRule::NegG => quote!(#acc - #g),
        _ => {
            let c = contribution(r, cx, id, pos);
            quote!(#acc + #c)
        }
    }
}

/// `acc += c` for an operator's rule `c` (`acc -= g` where `c` is `-g`).
pub fn add_assign(r: &Region, cx: &Cx, id: NodeId, pos: usize, acc: &Ident) -> TokenStream {
    let g = r.adj(id);
    match r.op(id).def().scalar_rules[pos.min(1)] {
        ScalarRule::NegG => quote!(#acc -= #g;),
        _ => {
            let c = contribution(r, cx, id, pos);
            quote!(#acc += #c;)
        }
    }
}

/// Whether `id` is an operator written as plain scalar code, whose rules
/// are arithmetic.
pub fn arithmetic(r: &Region, id: NodeId) -> bool {
    r.plain.contains(&id) && r.op(id).has(OPERATOR)
}
