//! The compiler behind backprop's `#[differentiable]`: a guide to what it
//! writes and how.
//!
//! The user's side (what a body may contain, what is rejected, the items a
//! user calls) is the top-level `README.md` of the repository. This page is
//! for a reader of the generated code or of this crate: the pipeline, the
//! code each stage writes, the planning passes, loops, branches and calls,
//! and the dual transform behind `jvp` and `hvp`.
//!
//! # The pipeline
//!
//! One stage a module, each using only the stages before it
//! (`tests/stages.rs` reads every `use crate::..` and fails when an arrow
//! runs back up):
//!
//! ```text
//! args (the attribute)   ast (the signature)        vocab (the op table)
//! ctxt (the errors)      names (fresh identifiers)
//!   -> parse   syn::parse2 of the item; args::parse of the attribute;
//!              ast: each parameter's kind (float, array, plain container,
//!              model, constant) and whether it is differentiable; a body
//!              over static nalgebra values written on their elements
//!              (ast::scalarize), so that the rest sees floats
//!   -> lower   the body to a graph: one node per value, one edge per use,
//!              children before parents; loops, branches and closures are
//!              regions of their own (graph, with types: what is known of
//!              each value's type, a float or an array of k axes)
//!   -> check   which values are live and active, and each one's uses
//!   -> plan    every decision about the code: names, where each value
//!              lives, what loops keep, where each contribution goes
//!   -> emit    the plan as tokens: NAME_backward, its gradient struct,
//!              NAME_vjp, NAME_backward_each
//! ```
//!
//! `expand` runs the stages for a function (or for each marked method of an
//! `impl` block), top to bottom. Lowering reports every construct outside the
//! vocabulary with a span on the user's tokens and goes on, so all of a
//! function's errors come in one build (`ctxt` collects them); when there is
//! any, `expand` writes the errors, the original function, the gradient
//! struct and a `NAME_backward` whose body is `unreachable!()`, so that
//! callers do not drown in secondary errors. Brackets nested more than 256
//! levels deep are refused before syn's recursive parser could overflow the
//! compiler's stack. This crate takes and returns `proc_macro2::TokenStream`,
//! so tests, benches and fuzzers call it directly (`expand`,
//! `expand_source`); `backprop-macros` is the three-line proc-macro entry
//! point. `derive` is `#[derive(Differentiable)]`, `adjoint` is `#[adjoint]`
//! (a user's own rule), `pretty` prints expansions.
//!
//! For `jvp`/`hvp`, `expand` runs the same stages a second time on a copy of
//! the function over dual numbers (`dual`, with `generic` for the copy's
//! float type): see "Second order" below.
//!
//! # What the macro writes
//!
//! Next to the unchanged function (for a function marked `jvp` or `hvp`, its
//! forward pass as planned; see "Second order"):
//!
//! - `NameGrad`, one public field per differentiable parameter, of the
//!   parameter's owned type; it derives `Debug` and `Clone` and implements
//!   `Differentiable`, so that an optimiser takes it.
//! - `NAME_backward(params.., d_out) -> (T, NameGrad)`: the forward pass,
//!   every intermediate a local, then the reverse sweep.
//! - `NAME_vjp(params.., d_out) -> (G0, G1, ..)` (hidden from the docs): the
//!   same gradients by parameter position, `NotDifferentiable` for a
//!   constant; what a differentiable caller of `NAME` uses. `d_out` is an
//!   `impl Cot<T>` (the upstream gradient owned or borrowed: `f64`, `&f64`,
//!   `Array1<f64>`, `&Array1<f64>`), and for a tuple value a tuple of them,
//!   one per component. This item is beyond the design's list of three; it
//!   is how calls between differentiable functions work without the caller
//!   knowing the callee's parameter names.
//! - With `backward_each`, `NAME_backward_each(params.., d_outs: [D; K])`:
//!   the forward pass once, then the reverse sweep once per upstream
//!   gradient. Each sweep is a closure taken as `Fn`, so it cannot write over
//!   the forward's values; that is why it is written only for a body whose
//!   values are all known floats (`plan::each` decides, `emit::each` writes).
//! - With `jvp`/`hvp`: `NAME_jvp`, `NAME_hvp` and the hidden copy over duals.
//!
//! The generated code is meant to be read (`cargo run --example inspect`, or
//! the committed snapshots in `backprop-codegen/tests/expand/*.expanded.rs`,
//! each compiled and gradchecked by the facade's `tests/expansions.rs`). The
//! reverse sweep of the two-head network of the fork-rule lesson
//! (`two_heads.expanded.rs`):
//!
//! ```text
//! let a1_1 = bp::t(w1);
//! let a1_2 = bp::dot(x, &a1_1);
//! let a1_2_shape = bp::shape_of(&a1_2);
//! let a1 = bp::zip_map(a1_2, b1, bp::Add, bp::Relu);
//! let loss_a_1 = bp::t(w2);
//! let loss_a_2 = bp::dot(&a1, &loss_a_1);
//! let loss_a_2_shape = bp::shape_of(&loss_a_2);
//! let loss_a_3 = bp::add(loss_a_2, b2);
//! let loss_a_3_shape = bp::shape_of(&loss_a_3);
//! let (loss_a, loss_a_probs) = bp::softmax_cross_entropy_fwd(loss_a_3, labels);
//! let loss_b_1 = bp::t(v);
//! let loss_b_2 = bp::dot(&a1, &loss_b_1);
//! let loss_b_2_shape = bp::shape_of(&loss_b_2);
//! let loss_b_3 = bp::add(loss_b_2, c);
//! let loss_b = bp::mse(&loss_b_3, y);
//! let out = loss_a + loss_b;
//! let d_loss_a = d_out;
//! let d_loss_b = d_out;
//! let d_loss_b_3 = bp::mse_vjp_lhs(d_loss_b, loss_b_3, y);
//! let (d_loss_b_2, d_c) = bp::zip_vjp_both(
//!     d_loss_b_3,
//!     &bp::stand_in(&loss_b_2_shape),
//!     c,
//!     bp::Add,
//! );
//! let d_a1_from_loss_b_2 = bp::dot_vjp_lhs(&d_loss_b_2, &a1, &loss_b_1).value();
//! let d_loss_b_1 = bp::dot_vjp_rhs(d_loss_b_2, &a1, &loss_b_1).value();
//! let d_v = bp::t_vjp(d_loss_b_1, v);
//! let d_loss_a_3 = bp::softmax_cross_entropy_vjp(
//!     d_loss_a,
//!     &bp::stand_in(&loss_a_3_shape),
//!     labels,
//!     loss_a_probs,
//! );
//! let (d_loss_a_2, d_b2) = bp::zip_vjp_both(
//!     d_loss_a_3,
//!     &bp::stand_in(&loss_a_2_shape),
//!     b2,
//!     bp::Add,
//! );
//! // The fork: the first head's contribution is added into the second's.
//! let d_a1 = bp::dot_vjp_lhs(&d_loss_a_2, &a1, &loss_a_1).added_to(d_a1_from_loss_b_2);
//! let d_loss_a_1 = bp::dot_vjp_rhs(d_loss_a_2, &a1, &loss_a_1).value();
//! let d_w2 = bp::t_vjp(d_loss_a_1, w2);
//! let d_a1_pre = bp::map_vjp_out(d_a1, &a1, bp::Relu);
//! let (d_a1_2, d_b1) = bp::zip_vjp_both(
//!     d_a1_pre,
//!     &bp::stand_in(&a1_2_shape),
//!     b1,
//!     bp::Add,
//! ); // d_b1: summed over the batch
//! let d_a1_1 = bp::dot_vjp_rhs(d_a1_2, x, &a1_1).value();
//! let d_w1 = bp::t_vjp(d_a1_1, w1);
//! ```
//!
//! One statement per step; adjoints are `d_<name>`, in reverse order of the
//! forward statements; temporaries are numbered after the user value they
//! come from (`a1_2`), and no name the user's function uses is taken. The
//! softmax probabilities of the forward pass are kept (`loss_a_probs`) and
//! become the gradient of the logits in place; the last read of an adjoint
//! moves it into its rule (so the rule reuses the buffer), earlier reads
//! borrow it. A rule is the op's kernel given to a generic primitive that
//! says what it reads: `bp::map_vjp_out(d_a1, &a1, bp::Relu)` reads the
//! output, `bp::zip_vjp_both(.., bp::Add)` the operands; for a `+` it gives
//! the buffer to the operand that was not broadcast and sums the broadcast
//! one (the bias) over the batch. A rule that a fork or a loop may add up
//! returns a contribution, which the code turns into a value (`.value()`),
//! adds to an earlier one (`.added_to(prev)`), or adds into an accumulator
//! (`.add_to(&mut d_v)`).
//!
//! Scalar code is written as plain Rust: for `f64` (or `f32`) operands (the
//! compiler knows each value's number of axes from the parameters' types, so
//! a product of two vectors, `v.dot(&h)`, is an `f64` too) the forward is
//! the arithmetic and the float methods (`let h1_1 = w11 * x1;`,
//! `out_1.powi(2)`) and the rules of the operators are too (`let d_w11 =
//! d_h1_1 * x1;`); the rules of the other ops call their kernel
//! (`bp::map_vjp_out(d_p, &p, bp::Sigmoid)`, one multiplication once
//! inlined). A branch keeps only the values its reverse reads; a constant
//! parameter that nothing reads is marked `let _ = c;`; lints are allowed
//! one by one, with a reason, where the generated code needs it
//! (`too_many_arguments` on a `_vjp` that has more than seven, for example),
//! never wholesale. Generated code uses absolute paths: the runtime only
//! through `::backprop::__private` (aliased `bp`; `crate = path` moves it),
//! the standard library as `::core` and `::std`, so a user's `mod core {}`
//! changes nothing (`tests/scalar.rs`). clippy's
//! `needless_range_loop` would fire on a differentiable function that
//! indexes data with its loop variable; the macro allows that one lint on a
//! function with a loop.
//!
//! # The laws, as the code keeps them
//!
//! - Fork rule: the adjoint of a value used k times is the sum of exactly k
//!   contributions, written once (`let d_x = c1 + c2;`), or, where a later
//!   contribution comes from a product, a sum or a difference, added into
//!   the buffer of an earlier one (`.added_to(d_a1_from_loss_b_2)` above, a
//!   matrix product that accumulates); no zero-filled accumulator, except the
//!   zero gradient of a parameter that does not reach the value.
//! - Unbroadcast: the gradient of an operand always has that operand's shape.
//! - Activity (`check`): adjoints only for values that depend on a
//!   differentiable parameter and reach the value. A loop body is analysed as
//!   a graph of its own, with two fixed points: a carried value that varies
//!   at the end of an iteration varies at its start, and a carried value
//!   whose start is needed by a useful result needs the adjoint of its end.
//! - The value `NAME_backward` returns is the original function's, bit for
//!   bit: the forward functions call ndarray's own operators and methods; the
//!   in-place forms and the fused sum of squares compute the same values in
//!   the same order, and reuse a buffer only where ndarray would have laid
//!   the result out the same way (so later sums add in the same order).
//!
//! # The planning passes
//!
//! Buffers are reused where a careful hand-written backward would reuse
//! them. Each of these is one planning pass (`plan/`, a Before/After in each
//! file's doc and unit tests of its own), and each can be switched off:
//! `#[differentiable(without(in_place, fuse))]` or
//! `#[differentiable(unoptimized)]` (hidden options, for tests and for
//! reading the plain form; the names are `in_place fuse dot_add sum_square
//! accumulate lend loop_buffers settled_rows nested_loops plain_scalars
//! sin_cos remat fused_sums`, from one list in `args`). The passes run in the order the
//! code reads (`plan::plan`): names; then, for each region, where each value
//! lives (`scalar`, `in_place`, `fuse`, `dot_add`); then the forward walk,
//! which plans each loop and each branch; then the reverse walk (`routing`),
//! which decides where each adjoint contribution goes. The emitter writes
//! the plan out and decides nothing.
//!
//! - `in_place`: a temporary that exactly one op reads, and whose value no
//!   adjoint rule reads (only its shape), is moved into that op, which writes
//!   its result into the temporary's buffer: `bp::add(loss_a_2, b2)` adds the
//!   bias in place, `bp::softmax_cross_entropy_fwd(loss_a_3, labels)` writes
//!   the probabilities over the logits. The temporary's shape is kept
//!   (`a1_2_shape`, no allocation) where a rule reads it, and stands in for
//!   it in the rules (`bp::stand_in(&a1_2_shape)`). An op is given a buffer
//!   by value or by reference through the same function; the in-place forms
//!   give the same values bit for bit. `mse`'s rule writes the residual over
//!   its prediction when that is a temporary read by nothing else
//!   (`bp::mse_vjp_lhs(d_loss_b, loss_b_3, y)`).
//! - `fuse`: an activation over such a sum runs in the same pass
//!   (`bp::zip_map(a1_2, b1, bp::Add, bp::Relu)`: bias and ReLU in one loop).
//! - `sum_square`: `sum(square(x))` (also written `sum(&(&x * &x))`) is one
//!   reduction, `bp::sum_square(&x)`, that adds in ndarray's order, so the
//!   value is the same; no array of squares is made. Its rule writes
//!   `2·d_out·x` over `x` when nothing else reads `x`.
//! - `dot_add`: `x + m.dot(&v)` (a matrix-vector product read by nothing
//!   else) adds the product into `x`'s buffer (`bp::add_dot`, the same bits
//!   as the product and then `+`).
//! - `accumulate`: a later contribution from a product, a sum or a
//!   difference is added into the buffer of an earlier one. In a loop, the
//!   contributions to a weight that every iteration reads go straight into
//!   the weight's gradient (`bp::dot_vjp_lhs(&d_loss_1, v, &h_5).add_to(&mut
//!   d_v)`, added in place; for a matrix, a product with `beta = 1`), and
//!   those to a carried value into its adjoint, instead of a new array per
//!   iteration.
//! - `lend`: when both operands of a `+` are computed arrays that were not
//!   broadcast, their gradients are the same array: one borrows the other's
//!   (`bp::add_vjp_lend(.., bp::Rhs)` and `bp::lent`) instead of a copy.
//! - `loop_buffers`: a loop keeps a carried array as rows of one buffer,
//!   computes the next value into a spare buffer, and defers its weights'
//!   outer products (see "Loops").
//! - `settled_rows`: a loop counting up that writes the rows of a buffer
//!   (`h.row_mut(t + 1).assign(&next)`) leaves every row it is past as it
//!   is: the reverse sweep reads the rows it read and wrote back from the
//!   buffer after the loop (`bp::row(&h_1, t)`, `bp::written_row(&h_1, t +
//!   1, ..)`) instead of keeping them per step, the next step's product is
//!   computed into the written value's buffer, and the outer products read
//!   the rows in place.
//! - `nested_loops`: a loop nested in a loop body adds into the enclosing
//!   loop's gradients (no per-iteration zero and sum) and takes over the
//!   carried array it starts from instead of a copy.
//! - `plain_scalars`: `f64`/`f32` values as plain arithmetic (above).
//! - `sin_cos`: where the forward computes both `sin x` and `cos x` of one
//!   float, each rule multiplies by the other's value instead of computing it
//!   again (one `sincos` per angle, as a hand-written reverse).
//! - `remat`: a loop's record keeps what the reverse sweep cannot get
//!   otherwise. An element of an array the function borrows (`w[[k, j]]`) is
//!   read again at the head of the iteration's reverse, as are a few flops of
//!   such elements, parameters, literals and the loop's variable
//!   (`y[i - 1] + c * k[i - 1]`, `i as f64 + 1.0`); a loop whose reverse then reads
//!   nothing of its iterations keeps no record at all and walks its range
//!   back; the shape of a carried array the body writes into in place is
//!   read from its adjoint, and an array the reverse reads only for its shape
//!   (a part's rule, an accumulator's zero) is kept as its shape; an element
//!   write's rules read no operand, so the element is not kept. The
//!   GradBench `lstm` cell keeps 8 numbers per element (it kept 14 and two
//!   shapes), and nothing of the hidden states per character but their shape.
//!   The same holds for plain data (`x[i]` of `x: &[f64]` or `[f64; N]`),
//!   and for the bounds of a nested loop made of literals, the outer
//!   loop's variable and integer or plain parameters (`for j in i..n`).
//! - `fused_sums`: a loop whose one carried adjoint is a float it only adds
//!   to (`s += e`, `e` not reading `s`) passes that adjoint on unchanged, so
//!   each iteration's reverse, linear in it, runs right after the iteration
//!   in the forward loop, seeded with one (`let mut d_s =
//!   bp::one_like(&s);`), and the reverse sweep scales what it added up by
//!   the adjoint once known (`let d_x = bp::scaled(d_x, d_s);`): no record
//!   and one pass, as a hand-written loss over data. In the function's own
//!   body, for a `for` loop whose reverse reads only what the iteration
//!   owns.
//!
//! Writes into arrays (`plan/writes.rs`) are not a switch: `y[i] = e` and
//! `h.row_mut(t).assign(&v)` write into the array's own buffer where what
//! read the old value read only parts of it (elements, rows, slices) before
//! the write; otherwise the write goes into a copy. In the runtime (not a
//! pass): the gradients of a matrix product of at most 64 multiply-adds are
//! plain loops (ndarray's product allocates a packing buffer for each), and
//! `Aᵀg` for a square matrix of side at most 64 (a recurrent weight) is
//! written into `g`'s buffer. Forward values always come from ndarray's own
//! products, bit for bit.
//!
//! The facade's `tests/passes.rs` checks that the passes leave the value and
//! the gradients bit for bit as they are without them, except the one that
//! changes the order of a sum (a loop's outer products added after it as one
//! matrix product), compared to 1e-12 and bit for bit with it alone switched
//! off; `tests/settled_rows.rs` and `tests/nested_loops.rs` compare those two
//! passes on and off (nested loops add in another order: 1e-12). This crate's
//! `src/tests/` holds the unit tests on plans.
//!
//! # Loops
//!
//! A loop's body is a region of its own (`lower/control.rs`,
//! `plan/loops.rs`, `emit/loops.rs`). The forward loop keeps what each
//! iteration's reverse step needs in a `Vec` of tuples (one push per
//! iteration, no boxing); the reverse loop runs the iterations backwards
//! (`(start..end).zip(steps).rev()`), so a weight used at every step gets the
//! sum over the steps, and a carried value's adjoint flows from one iteration
//! to the one before. A `while` or `loop` keeps what each iteration's reverse
//! reads in one growing buffer, and the reverse replays the iterations
//! backwards; `break`, `continue` and early `return` set flags, whose path is
//! a constant of the gradient. The step vector is allocated once; a
//! product's, a sum's or a difference's contribution to a weight every step
//! reads, or to the carried adjoint, is added into it in place (`.add_to(&mut
//! d_v)`), with no array per step, and a weight's outer products are summed
//! after the loop by one matrix product, as a hand-written backward computes
//! `∂W = Δᵀ H`: the loop has one `bp::Outers` (declared before the reverse
//! loop, one term per product), each iteration keeps its `δ` in a row of it
//! (`bp::dot_vjp_lhs(&d_h_2, w, &h_1_in).defer(outers.term(d_w_term, step),
//! &mut d_w)`), and after the loop `d_w = bp::add_outers(d_w, &mut outers,
//! d_w_term)`. A term reads its vectors where the loop already keeps them
//! (`.v_from(h_1_rows.starts())` for a state, `.v_from(bp::rows_in(xs,
//! t_start, t_end))` for `xs.row(t)`), and two products that get one gradient
//! share one `δ` (`.u_from(d_u_term)`); each of these promises is checked at
//! every iteration, and where one does not hold that outer product is added
//! at once, so the sum never depends on them.
//!
//! A carried array that the reverse sweep reads (an RNN's state) is not kept
//! as one array per iteration: it is copied into the rows of one buffer
//! (`h_1_rows.push(&h_1_in)`, a `bp::Rows`; the value after the last
//! iteration is its last row), and the reverse reads the starting value and
//! the new value of iteration `step` as views of rows `step` and `step + 1`.
//! The product that starts the next value is computed into the buffer of the
//! value before it (`bp::dot_reuse(&mut h_1_spare, w, &h_1_in)`, with
//! `h_1_spare.put(h_1_in)` at the end of the iteration), so the states cost
//! two buffers and one copy each, as a hand-written loop with two state
//! buffers. After the loop those two buffers are not dropped: the last
//! state's becomes its zero adjoint (`let mut d_h_1 = bp::zeros_in(h_1);`,
//! when nothing else reads it) and the spare's serves the first gradient of
//! its size (`let mut d_w = h_1_spare.zeros_like(w);`). A carried array that
//! a called function reads keeps the arrays (the callee's rule takes the
//! types its signature names), and so does one that `concat` reads. See
//! `rnn.expanded.rs` and `state_buffer.expanded.rs`.
//!
//! # Branches and closures
//!
//! A branch keeps the values of the arm it took (an `Option` per arm) that
//! its reverse reads, and the reverse sweep takes the same arm; an input the
//! other arm does not use gets a zero from it (`plan/branches.rs`,
//! `huber.expanded.rs`). A `match` is lowered as the chain of `if`s it is
//! (`lower/matches.rs`). The body of a closure mapped over elements (`mapv`,
//! `map`, `Zip`, an iterator sum) is differentiated as a scalar function, by
//! the same pipeline as a whole function (`lower/closures.rs`), and the forward
//! computes each element's value and its local derivatives in one pass (the
//! body's reverse for an upstream gradient of 1) and keeps the derivatives,
//! one array per walked array and per captured scalar; the reverse multiplies
//! them by the upstream gradient (`emit/closures.rs`, the runtime's
//! `closures.rs`).
//!
//! # Calls
//!
//! A call of a function outside the vocabulary, on a differentiable value, is
//! a call of another differentiable function: the forward calls `f(..)`, the
//! reverse sweep calls `f_vjp(.., d)`, which `#[differentiable]` writes beside
//! every function (it runs `f_backward`, so the callee's forward is computed
//! a second time) and `#[adjoint]` writes from a user's rule. A function that
//! returns a tuple is one call in the forward pass, its components locals of
//! the caller (`let (s, polar_1) = polar(..);`: a `_` is named after the
//! callee and the component's position where the reverse reads it), and one
//! call of `polar_vjp` in the reverse sweep, passed one upstream gradient per
//! component: the component's adjoint (all its contributions summed first,
//! the fork rule), or, for a component that gets no gradient, a zero of its
//! value, `bp::zeros_like(&polar_1)`. From `polar_caller.expanded.rs`:
//!
//! ```text
//! let (d_r_from_s, d_theta_from_s) = polar_vjp(
//!     ::core::clone::Clone::clone(&r),
//!     ::core::clone::Clone::clone(&theta),
//!     (d_s, bp::zeros_like(&polar_1)),
//! );
//! let d_r = d_r_from_out_1 + d_r_from_s;
//! let d_theta = d_theta_from_out_1 + d_theta_from_s;
//! let (d_r_theta_1, d_y) = polar_vjp(r_theta_1, y, (d_r, d_theta));
//! let d_x = d_r_theta_1 * 2.0_f64;
//! ```
//!
//! The caller does not know the types of the components (the callee's
//! signature is another item), so a float component's zero is
//! `bp::zeros_like(&c)` too (`0.0` once inlined), and arithmetic on the
//! components goes through the runtime's generic forms (`bp::mul(&r,
//! &theta)`), as on any call's value.
//!
//! # Second order: the dual transform
//!
//! `#[differentiable(jvp)]` and `#[differentiable(hvp)]` are forward mode
//! over the generated reverse sweep (`dual`, `generic`):
//!
//! ```text
//! fn NAME(x: f64, ..)                 the user's function
//!   -> dual::check                    can it be carried over to duals?
//!   -> dual::copy                     NAME_dual<__F: Float>(x: __F, ..):
//!                                     every f64/f32 becomes __F, PI becomes
//!                                     __F::PI(), `n as f64` __F::from_f64(..),
//!                                     calls of callees call their copies
//!   -> the same pipeline on the copy  parse, lower, check, plan, emit:
//!                                     NAME_dual (its forward pass as planned),
//!                                     NAME_dual_backward, NAME_dual_vjp,
//!                                     all hidden (dual::hidden)
//!   -> dual::wrappers                 NAME_jvp: NAME_dual on Dual<f64> whose
//!                                     tangents are t_x, ..;
//!                                     NAME_hvp: NAME_dual_backward on those
//!                                     duals with d_out = 1: the values of its
//!                                     gradient are the gradient, their
//!                                     tangents H·t
//! ```
//!
//! The copy is bounded so that it has the operators by reference `f64` has
//! (`v * v` of `v: &f64` in an iterator's closure or loop). Every op's second
//! derivative is thus that of its adjoint rule run on duals; the facade's
//! `tests/vocab.rs` checks each row of the op table with `hvpcheck`, and
//! `tests/second_order.rs` that the seed networks' Hessians are symmetric to
//! 1e-12. Matrix products of duals run as products of floats on their
//! interleaved memory. A callee must be marked `jvp` or `hvp` too (its copy
//! is what the copy calls): the copy reaches the callee's copies through its
//! gradient struct, which every differentiable function (and every
//! `#[adjoint]` rule) writes. `FGrad::__copies::<f>()` is, for a second-order
//! `f`, a value whose `.call(..)` and `.vjp(..)` are `f_dual` and
//! `f_dual_vjp` (`dual::calls`); for any other `f` it is the runtime's
//! `SecondOrderCalls::__copies`, whose bound fails with a message naming `f`
//! and what to add (`dual::names` writes a hidden module of types named after
//! the callees for that message). A function with a user `#[adjoint]` rule
//! gets its copy from `#[adjoint(f, hvp)]` on a rule generic over the float
//! type.
//!
//! # The op table
//!
//! An op is one row of the compiler's table (`vocab/table.rs`, the later
//! rows' bodies in `vocab/table/`: its spellings, how many operands, which
//! arguments are constants, the runtime functions its forward and its rules
//! call, what those rules read, and what the planner may do with it) and, for
//! an elementwise op, one row of the runtime (`backprop-runtime/src/ops/elementwise.rs`:
//! a line of maths for the value and one for the rule). Lowering, planning
//! and emission ask the table; nothing else in the compiler lists op names.
//! Adding `softplus` and `log_sigmoid` touched those two files and nothing
//! else, and so did each unary `f64` method (`sinh`, `ln_1p`, `floor`, ...);
//! the binary methods (`atan2`, `hypot`, `log`) are a row and a line of
//! `ops/arith.rs` each, `mul_add` is a row with three operands and three
//! rules, and `clamp` a kernel with its two constant bounds, as `powi`'s is
//! with its exponent. The facade's `tests/vocab.rs` compiles every row's
//! example as a differentiable function, gradchecks it and compares its
//! value bit for bit with the plain function's.
//!
//! # Why a crate of its own
//!
//! `backprop-codegen` is split out of the proc-macro crate (a departure from
//! the three-crate table of the design) so that tests, the expansion
//! benchmark, the fuzzers and the `inspect` example can call the compiler on
//! token streams. `tests/no_panic.rs` feeds it about 12,000 random,
//! malformed, truncated and mutated inputs: it always returns an expansion or
//! a `compile_error!`, never panics; `tests/snapshots.rs` compares the
//! expansions of `tests/expand/` with the committed `.expanded.rs` files.
//!
#![warn(missing_docs)]

mod adjoint;
mod args;
mod ast;
mod check;
mod ctxt;
mod derive;
mod dual;
mod emit;
mod expand;
mod generic;
mod graph;
mod lower;
mod names;
mod plan;
mod pretty;
#[cfg(test)]
mod tests;
mod types;
mod vocab;

pub use adjoint::adjoint;
pub use derive::derive;
pub use expand::differentiable as expand;
pub use pretty::{expand_source, pretty_backward};

/// Every op of the table, by its name in the table and its example body
/// (see `tests/vocab.rs` of the `backprop` crate, which compiles one
/// differentiable function per row and gradchecks it). Not a public API.
#[doc(hidden)]
pub fn vocabulary_examples() -> Vec<(String, &'static str)> {
    vocab::Op::ALL
        .iter()
        .map(|op| (format!("{op:?}"), op.def().example))
        .collect()
}

/// One row of the op table as the program generator of `backprop-fuzz`
/// reads it (see [`vocabulary`]). Not a public API.
#[doc(hidden)]
#[derive(Clone, Debug)]
pub struct VocabEntry {
    /// The row (`"Sinh"`).
    pub op: String,
    /// The op's name: its function's, or its operator (`"sinh"`, `"+"`).
    pub name: &'static str,
    /// Applied element by element, with broadcasting.
    pub elementwise: bool,
    /// The method names that spell it (`x.sinh()`).
    pub methods: &'static [&'static str],
    /// Spelled as the function `name(x)` of `backprop::ops`.
    pub function: bool,
    /// Spelled as `f64::name(x)` and `f32::name(x)`.
    pub float_path: bool,
}

/// Every row of the op table with its spellings, for the program generator
/// of `backprop-fuzz`, which draws its elementwise functions from it. Not a
/// public API.
#[doc(hidden)]
pub fn vocabulary() -> Vec<VocabEntry> {
    vocab::Op::ALL
        .iter()
        .map(|&op| VocabEntry {
            op: format!("{op:?}"),
            name: op.def().name,
            elementwise: op.elementwise(),
            methods: op.def().methods,
            function: op.def().function.is_some(),
            float_path: op.def().float_path.is_some(),
        })
        .collect()
}
