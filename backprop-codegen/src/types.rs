//! What is known of each value's type at compile time: a float, or an
//! array of a known number of axes. The parameters' types say it, and the
//! op table says how each op carries it (an elementwise op broadcasts, a
//! reduction is a float, the product of two vectors is a float, a row of a
//! matrix is a vector); through loops a carried variable keeps its initial
//! value's type (a `let mut` has one type), and a branch's result has the
//! type of any arm that knows it. A value of unknown type is not marked.

use crate::ast::{Function, Kind};
use crate::graph::{Graph, Loop, Node, NodeId};
use crate::vocab::Ty;
use std::collections::HashMap;

/// The types of a graph's values, its inputs of the types `inputs` says.
pub fn types(g: &Graph, func: &Function, inputs: &[Option<Ty>]) -> Vec<Option<Ty>> {
    let mut ty: Vec<Option<Ty>> = vec![None; g.len()];
    // The types of each loop's and branch's results, by result index.
    let mut results: HashMap<NodeId, Vec<Option<Ty>>> = HashMap::new();
    for id in g.ids() {
        ty[id.index()] = match &g.get(id).node {
            Node::Param(i) => match &func.params[*i].kind {
                Kind::Scalar(_) => Some(Ty::Float),
                Kind::Array { axes, .. } => axes.map(Ty::Array),
                Kind::Model { .. } | Kind::Constant => None,
            },
            Node::Input(j) => inputs.get(*j).copied().flatten(),
            Node::Float(_) | Node::Int(_) => Some(Ty::Float),
            Node::Op {
                op: crate::vocab::Op::Call(k),
                inputs,
                ..
            } => match &g.calls[*k as usize].map {
                // A mapped closure: a float if summed, else of its first array's shape.
                Some(m) if m.walk.summed() => Some(Ty::Float),
                Some(_) => ty[inputs[0].index()],
                None => own_output(g, *k, func),
            },
            // A field its `let` says is a float.
            Node::Op { .. } if g.float_fields.contains(&id) => Some(Ty::Float),
            Node::Op { op, inputs, .. } => {
                let of: Vec<Option<Ty>> = inputs.iter().map(|i| ty[i.index()]).collect();
                op.value_ty(&of)
            }
            Node::Loop(lp) => {
                let mut carried = loop_input_types(lp, func, &ty);
                carried.truncate(lp.carried);
                results.insert(id, carried);
                None
            }
            Node::Branch(b) => {
                let mut out = vec![None; b.outputs];
                for (arm, arm_inputs) in b.arms.iter().zip(&b.arm_inputs) {
                    let inputs: Vec<Option<Ty>> =
                        arm_inputs.iter().map(|p| ty[p.index()]).collect();
                    let t = types(&arm.graph, func, &inputs);
                    for (k, o) in arm.outputs.iter().enumerate() {
                        out[k] = out[k].or(t[o.index()]);
                    }
                }
                results.insert(id, out);
                None
            }
            Node::Out { of, k } => results.get(of).and_then(|r| r[*k]),
            Node::Const(c) if float_arith(&c.expr, c, func, &ty) || is_float_field(g, func, c) => {
                Some(Ty::Float)
            }
            Node::Const(c) => made_array(&c.expr),
            Node::Error | Node::LoopVar => None,
        };
        if g.typed_floats.contains(&id) {
            ty[id.index()] = Some(Ty::Float);
        }
    }
    ty
}

/// What a call of the function itself (a recursion) returns: its
/// signature's type. Any other callee's is not known here.
fn own_output(g: &Graph, k: u32, func: &Function) -> Option<Ty> {
    let call = &g.calls[k as usize];
    let sig = &func.item.sig;
    if call.method || !call.components.is_empty() || sig.ident != call.path.to_string() {
        return None;
    }
    let syn::ReturnType::Type(_, out) = &sig.output else {
        return None;
    };
    match crate::ast::classify(out, &proc_macro2::TokenStream::new()).0 {
        Kind::Scalar(e) if e == func.elem => Some(Ty::Float),
        Kind::Array { axes, .. } => axes.map(Ty::Array),
        _ => None,
    }
}

/// The types of a loop body's inputs: a captured value's is the enclosing
/// graph's; a carried variable's its initial value's, or, where that is
/// not known (`let mut value = Default::default();` of a `loop` that
/// breaks with a value), what the body assigns it.
pub fn loop_input_types(lp: &Loop, func: &Function, ty: &[Option<Ty>]) -> Vec<Option<Ty>> {
    let mut inputs: Vec<Option<Ty>> = lp.inputs.iter().map(|p| ty[p.index()]).collect();
    if inputs[..lp.carried].iter().any(Option::is_none) {
        let body = types(&lp.body.graph, func, &inputs);
        for (k, out) in lp.body.outputs.iter().enumerate() {
            inputs[k] = inputs[k].or(body[out.index()]);
        }
    }
    inputs
}

/// `Array2::<f64>::zeros((n, m))`, `Array1::ones(n)`: an array made with
/// its number of axes written.
fn made_array(e: &syn::Expr) -> Option<Ty> {
    let syn::Expr::Call(call) = e else {
        return None;
    };
    let syn::Expr::Path(p) = &*call.func else {
        return None;
    };
    let [ty, f] = p.path.segments.iter().collect::<Vec<_>>()[..] else {
        return None;
    };
    let axes = match ty.ident.to_string().strip_prefix("Array")?.parse::<u8>() {
        Ok(axes) if axes <= 6 => axes,
        _ => return None,
    };
    let made = ["zeros", "ones", "from_elem"].iter().any(|m| f.ident == m);
    made.then_some(Ty::Array(axes))
}

/// `feat.0` of a parameter `feat: (f64, f64)`: a component of a constant
/// tuple whose type the signature writes as the function's float type.
fn is_float_field(g: &Graph, func: &Function, c: &crate::graph::ConstArg) -> bool {
    let syn::Expr::Field(f) = &c.expr else {
        return false;
    };
    let (syn::Expr::Path(base), syn::Member::Unnamed(k)) = (&*f.base, &f.member) else {
        return false;
    };
    let Some((id, _)) = base
        .path
        .get_ident()
        .and_then(|i| c.resolve(&i.to_string()))
    else {
        return false;
    };
    let Node::Param(i) = g.get(id).node else {
        return false;
    };
    let mut ty = &func.params[i].ty;
    while let syn::Type::Reference(r) = ty {
        ty = &r.elem;
    }
    let syn::Type::Tuple(t) = ty else {
        return false;
    };
    t.elems.iter().nth(k.index as usize).is_some_and(|e| {
        crate::ast::Elem::of(e, func.float_param.as_ref()).as_ref() == Some(&func.elem)
    })
}

/// `2.0 / s as f64`, `-h / 2.0`, `(n as f64).sqrt()`: arithmetic whose
/// operands are all floats (a float literal, a float made as
/// [`is_float_const`] says, a binding of a value typed a float, or a float
/// method of one). One operand of unknown type makes it unknown: `2.0 * a`
/// is an array when `a` is one.
fn float_arith(
    e: &syn::Expr,
    c: &crate::graph::ConstArg,
    func: &Function,
    ty: &[Option<Ty>],
) -> bool {
    let float = |e: &syn::Expr| float_arith(e, c, func, ty);
    arithmetic_of(e, &mut |leaf| match leaf {
        syn::Expr::Lit(l) => matches!(l.lit, syn::Lit::Float(_)),
        syn::Expr::Path(p) => match p.path.get_ident() {
            Some(i) => c
                .resolve(&i.to_string())
                .is_some_and(|(id, _)| ty[id.index()] == Some(Ty::Float)),
            None => float_const_path(&p.path),
        },
        syn::Expr::MethodCall(m) if FLOAT_METHODS.contains(&m.method.to_string().as_str()) => {
            float(&m.receiver) && m.args.iter().all(float)
        }
        syn::Expr::MethodCall(m) if m.method == "powi" => float(&m.receiver),
        _ => is_float_const(leaf, func),
    })
}

/// Whether `e` is arithmetic (`+ - * / %`, negation, parentheses) of
/// leaves that `leaf` accepts.
pub fn arithmetic_of(e: &syn::Expr, leaf: &mut dyn FnMut(&syn::Expr) -> bool) -> bool {
    match e {
        syn::Expr::Paren(p) => arithmetic_of(&p.expr, leaf),
        syn::Expr::Unary(u) => matches!(u.op, syn::UnOp::Neg(_)) && arithmetic_of(&u.expr, leaf),
        syn::Expr::Binary(b) => {
            use syn::BinOp::{Add, Div, Mul, Rem, Sub};
            matches!(b.op, Add(_) | Sub(_) | Mul(_) | Div(_) | Rem(_))
                && arithmetic_of(&b.left, leaf)
                && arithmetic_of(&b.right, leaf)
        }
        _ => leaf(e),
    }
}

/// Methods of a float whose value is a float of the same type, given
/// float arguments.
const FLOAT_METHODS: &[&str] = &[
    "abs", "sqrt", "cbrt", "exp", "exp2", "ln", "log2", "log10", "recip", "sin", "cos", "tan",
    "tanh", "powf", "max", "min", "floor", "ceil", "round",
];

/// `f64::NEG_INFINITY`, `f32::EPSILON`, `std::f64::consts::PI`,
/// `f64::consts::E`: a constant of a float type, by its path.
fn float_const_path(p: &syn::Path) -> bool {
    let segs: Vec<String> = p.segments.iter().map(|s| s.ident.to_string()).collect();
    let float = |s: &String| s == "f64" || s == "f32";
    match segs.as_slice() {
        [ty, name] => {
            float(ty)
                && [
                    "INFINITY",
                    "NEG_INFINITY",
                    "MAX",
                    "MIN",
                    "MIN_POSITIVE",
                    "EPSILON",
                    "NAN",
                ]
                .contains(&name.as_str())
        }
        [.., ty, consts, _] => float(ty) && consts == "consts",
        _ => false,
    }
}

/// `n as f64`, `(k as f32)`, and in a function generic over its float
/// type `T`, `T::from_f64(10.0)`, `T::one()`, `T::from(n).unwrap()`: a
/// constant whose type is written.
fn is_float_const(e: &syn::Expr, func: &Function) -> bool {
    float_made(e, func, false)
}

/// [`is_float_const`]; `unwrapped` under `.unwrap()` (`T::from(n)` is an
/// `Option`, `T::from_f64(x)` of `backprop::Float` a float).
fn float_made(e: &syn::Expr, func: &Function, unwrapped: bool) -> bool {
    match e {
        syn::Expr::Paren(p) => float_made(&p.expr, func, unwrapped),
        syn::Expr::Cast(c) => {
            matches!(&*c.ty, syn::Type::Path(p) if p.path.is_ident("f64") || p.path.is_ident("f32"))
        }
        syn::Expr::MethodCall(m) if m.method == "unwrap" || m.method == "expect" => {
            float_made(&m.receiver, func, true)
        }
        syn::Expr::Call(c) => {
            let syn::Expr::Path(p) = &*c.func else {
                return false;
            };
            let [ty, f] = p.path.segments.iter().collect::<Vec<_>>()[..] else {
                return false;
            };
            let float = func.float_param.as_ref().is_some_and(|t| ty.ident == *t)
                || ty.ident == crate::generic::FLOAT;
            let made = f.ident.to_string();
            float
                && ((unwrapped && made.starts_with("from"))
                    || made == "from_f64"
                    || made == "from_f32"
                    || [
                        "one",
                        "zero",
                        "epsilon",
                        "max_value",
                        "min_value",
                        "infinity",
                        "nan",
                    ]
                    .contains(&made.as_str()))
        }
        _ => false,
    }
}
