//! The text of a program over nalgebra values and of its test.

use super::{Gen, Param, K};

impl Gen<'_> {
    pub(super) fn render(&mut self, name: &str, params: &[Param], out: K, tail: &str) -> String {
        let t = self.t;
        let diff: Vec<&Param> = params.iter().filter(|p| p.diff).collect();
        let wrt = if diff.len() < params.len() {
            let names: Vec<&str> = diff.iter().map(|p| p.name.as_str()).collect();
            format!(", wrt({})", names.join(", "))
        } else {
            String::new()
        };
        let order = if out == K::S { "hvp" } else { "jvp" };
        let sig: Vec<String> = params
            .iter()
            .map(|p| {
                if p.k == K::S {
                    format!("{}: {}", p.name, p.ty)
                } else {
                    format!("{}: &{}", p.name, p.ty)
                }
            })
            .collect();
        let out_ty = out.ty(t, self.rng);
        let body = self.stmts.join("\n    ");
        let s = format!(
            "#[differentiable({order}{wrt})]\nfn {name}({}) -> {out_ty} {{\n    {body}\n    {tail}\n}}\n\n",
            sig.join(", ")
        );
        s + &self.test(name, params, out, &out_ty)
    }

    /// The program's test: the point and a direction, literals; the value
    /// bit for bit, gradcheck, jvpcheck and hvpcheck.
    fn test(&mut self, name: &str, params: &[Param], out: K, out_ty: &str) -> String {
        let diff: Vec<&Param> = params.iter().filter(|p| p.diff).collect();
        let mut lines = Vec::new();
        let value_of = |g: &mut Self, k: K, ty: &str| -> String {
            if k == K::S {
                return g.datum();
            }
            let elems: Vec<String> = (0..k.len()).map(|_| g.datum()).collect();
            match k {
                K::M(r, c) => format!("<{ty}>::from_column_slice(&[{}])", pad(elems, r * c)),
                K::P => format!("Point3::new({})", elems.join(", ")),
                _ => format!("<{ty}>::from_column_slice(&[{}])", elems.join(", ")),
            }
        };
        for p in params {
            let v = value_of(self, p.k, &p.ty);
            lines.push(format!("let {}: {} = {v};", p.name, p.ty));
        }
        // Opaque to the optimiser: a value folded at compile time (LLVM's
        // `tanhf` in double precision) may differ in its last bit from the
        // same value computed at run time.
        let names: Vec<&str> = params.iter().map(|p| p.name.as_str()).collect();
        lines.push(format!(
            "let ({},) = std::hint::black_box(({},));",
            names.join(", "),
            names.join(", ")
        ));
        for p in &diff {
            let v = value_of(self, p.k, &p.ty);
            lines.push(format!("let v_{}: {} = {v};", p.name, p.ty));
        }
        let arg = |p: &Param, prefix: &str| -> String {
            if p.k == K::S {
                format!("*{prefix}{}", p.name)
            } else {
                format!("{prefix}{}", p.name)
            }
        };
        let call_args = |inner: &dyn Fn(&Param) -> String| -> String {
            params
                .iter()
                .map(|p| {
                    if p.diff {
                        inner(p)
                    } else if p.k == K::S {
                        p.name.clone()
                    } else {
                        format!("&{}", p.name)
                    }
                })
                .collect::<Vec<_>>()
                .join(", ")
        };
        let tuple: Vec<String> = diff.iter().map(|p| p.name.clone()).collect();
        let dirs: Vec<String> = diff.iter().map(|p| format!("v_{}", p.name)).collect();
        let point = format!("({},)", tuple.join(", "));
        let pat = point.clone();
        let dpat = format!("({},)", dirs.join(", "));
        let direct = call_args(&|p: &Param| {
            if p.k == K::S {
                p.name.clone()
            } else {
                format!("&{}", p.name)
            }
        });
        let in_closure = call_args(&|p: &Param| arg(p, ""));
        let with_dirs = {
            let mut a: Vec<String> = vec![in_closure.clone()];
            for p in &diff {
                a.push(arg(p, "v_"));
            }
            a.join(", ")
        };
        if out == K::S {
            lines.push(format!("let (value, _) = {name}_backward({direct}, 1.0);"));
            lines.push(format!(
                "assert_eq!(value.to_bits(), {name}({direct}).to_bits());"
            ));
            lines.push(format!(
                "gradcheck(&{point}, |{pat}| {name}_backward({in_closure}, 1.0)).unwrap();"
            ));
            lines.push(format!("let dir = {dpat};"));
            lines.push(format!(
                "jvpcheck(&{point}, &dir, |{pat}| {name}_backward({in_closure}, 1.0), |{pat}, {dpat}| {name}_jvp({with_dirs})).unwrap();"
            ));
            lines.push(format!(
                "hvpcheck(&{point}, &dir, |{pat}, {dpat}| {name}_hvp({with_dirs})).unwrap();"
            ));
        } else {
            let up = value_of(self, out, out_ty);
            lines.push(format!("let up: {out_ty} = {up};"));
            lines.push(format!("let (value, _) = {name}_backward({direct}, &up);"));
            lines.push(format!(
                "assert!(value.iter().zip({name}({direct}).iter()).all(|(a, b)| a.to_bits() == b.to_bits()));"
            ));
            lines.push(format!(
                "GradCheck::new().upstream(&up).check(&{point}, |{pat}| {name}_backward({in_closure}, &up)).unwrap();"
            ));
            lines.push(format!("let dir = {dpat};"));
            lines.push(format!(
                "GradCheck::new().upstream(&up).check_jvp(&{point}, &dir, |{pat}| {name}_backward({in_closure}, &up), |{pat}, {dpat}| {name}_jvp({with_dirs})).unwrap();"
            ));
        }
        format!(
            "#[test]\nfn {name}_gradcheck() {{\n    {}\n}}\n",
            lines.join("\n    ")
        )
    }
}

/// The elements, as many as a matrix of `n` needs.
fn pad(elems: Vec<String>, n: usize) -> String {
    elems.into_iter().take(n).collect::<Vec<_>>().join(", ")
}
