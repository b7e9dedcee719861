//! What the generated code allocates, counted by a global allocator: the
//! behaviour that the loop plans promise (a recurrent state kept as rows of
//! one buffer, the next state computed into a spare buffer, the weights'
//! outer products kept in one buffer), checked by its effect instead of by
//! the text of the expansion.

use backprop::prelude::*;
use std::alloc::{GlobalAlloc, Layout, System};
use std::cell::Cell;

// The Elman network of the benchmarks (workload (e)).
use backprop_testkit::networks::{rnn_backward, rnn_of_calls_backward};
use backprop_testkit::random;

/// [`System`], counting the allocations of the thread that asks
/// ([`allocations`]); the test harness's other threads do not disturb it.
struct Counting;

thread_local! {
    // Const-initialized and without a destructor, so the allocator can read
    // it without allocating.
    static COUNT: Cell<usize> = const { Cell::new(0) };
}

// SAFETY: every call is forwarded unchanged to `System`; a counter is added.
unsafe impl GlobalAlloc for Counting {
    unsafe fn alloc(&self, layout: Layout) -> *mut u8 {
        let _ = COUNT.try_with(|n| n.set(n.get() + 1));
        // SAFETY: the caller's contract is `System`'s.
        unsafe { System.alloc(layout) }
    }

    unsafe fn dealloc(&self, ptr: *mut u8, layout: Layout) {
        // SAFETY: the caller's contract is `System`'s.
        unsafe { System.dealloc(ptr, layout) }
    }

    unsafe fn realloc(&self, ptr: *mut u8, layout: Layout, new_size: usize) -> *mut u8 {
        let _ = COUNT.try_with(|n| n.set(n.get() + 1));
        // SAFETY: the caller's contract is `System`'s.
        unsafe { System.realloc(ptr, layout, new_size) }
    }
}

#[global_allocator]
static GLOBAL: Counting = Counting;

/// How many times `f` calls the allocator on this thread.
fn allocations<R>(f: impl FnOnce() -> R) -> usize {
    let before = COUNT.with(Cell::get);
    let r = f();
    let after = COUNT.with(Cell::get);
    drop(r);
    after - before
}

fn rnn_allocations(steps: usize) -> usize {
    let mut seed = 7;
    let (w, u) = (random((16, 16), &mut seed), random((16, 3), &mut seed));
    let (b, v) = (random(16, &mut seed), random(16, &mut seed));
    let (h0, xs) = (random(16, &mut seed), random((steps, 3), &mut seed));
    let ys = random(steps, &mut seed);
    let n = allocations(|| rnn_backward(&w, &u, &b, &v, &h0, &xs, &ys, 1.0));
    gradcheck(&(w, u, b, v), |(w, u, b, v)| {
        rnn_backward(w, u, b, v, &h0, &xs, &ys, 1.0)
    })
    .unwrap();
    n
}

#[test]
fn a_recurrence_allocates_the_same_for_any_number_of_steps() {
    // Its states are rows of one buffer, each new state is computed into the
    // buffer of the one before, the weights' outer products are rows of one
    // buffer: nothing is allocated per step. The ten allocations are those
    // of a hand-written backward (`backprop-bench`'s workload (e)): the
    // state's two buffers, the rows, the step records (each step's error
    // against `ys[t]` and its square are scalars in them), the outer
    // products, and the gradients.
    let counts: Vec<usize> = [1, 2, 5, 20, 60].into_iter().map(rnn_allocations).collect();
    assert!(counts.iter().all(|&n| n == counts[0]), "{counts:?}");
    assert_eq!(counts[0], 10, "{counts:?}");
}

#[test]
fn a_state_read_by_a_call_is_not_copied() {
    // Each step allocates what the call and its rule allocate, and its
    // input row: a state handed back is neither cloned nor copied into rows,
    // so one more step costs the same as the step before.
    let run = |steps: usize| {
        let mut seed = 11;
        let (w, h0) = (random((4, 4), &mut seed), random(4, &mut seed));
        let xs = random((steps, 4), &mut seed);
        let n = allocations(|| rnn_of_calls_backward(&w, &h0, &xs, 1.0));
        gradcheck(&(w, h0), |(w, h0)| rnn_of_calls_backward(w, h0, &xs, 1.0)).unwrap();
        n
    };
    let counts: Vec<usize> = (2..6).map(run).collect();
    let per_step: Vec<usize> = counts.windows(2).map(|c| c[1] - c[0]).collect();
    assert!(per_step.iter().all(|&d| d == per_step[0]), "{counts:?}");
    // Per step: the forward's copy of the input row and its product
    // `w·h` (the sum and `tanh` write over it); the reverse's gradient of
    // `h`'s square, and the call's `_vjp`, which runs the call's forward
    // again (its product) and its rules (the outer product of `∂w`, the
    // gradient struct's fields).
    assert_eq!(per_step[0], 8, "{counts:?}");
}
