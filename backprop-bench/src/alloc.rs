//! A counting global allocator: the number of allocator calls and the peak
//! live bytes of one call of a function, measured outside the timing loop.
//!
//! The counts are of every thread of the process, because candle's matmul
//! allocates on its own thread pool. The calls of the measuring thread alone
//! are counted too: in a test binary the harness's threads allocate while a
//! test runs, so only that count is exact there.

use std::alloc::{GlobalAlloc, Layout, System};
use std::cell::Cell;
use std::sync::atomic::{AtomicBool, AtomicIsize, AtomicUsize, Ordering::Relaxed};
use std::sync::Mutex;

/// [`System`], counting allocations and tracking the live bytes while
/// [`measure`] runs, and adding nothing but one relaxed load otherwise, so
/// that the timed code pays for the allocator and not for the counters.
pub struct Counting;

static COUNTING: AtomicBool = AtomicBool::new(false);
static ALLOCS: AtomicUsize = AtomicUsize::new(0);
/// Bytes allocated minus bytes freed since the measurement started: below 0
/// when the call frees what was allocated before it.
static LIVE: AtomicIsize = AtomicIsize::new(0);
static PEAK: AtomicIsize = AtomicIsize::new(0);

thread_local! {
    // Const-initialized and without a destructor, so the allocator can read
    // it without allocating.
    static OWN_ALLOCS: Cell<usize> = const { Cell::new(0) };
}

#[global_allocator]
static GLOBAL: Counting = Counting;

/// One more allocator call of `by` bytes, on every thread's count and on
/// this thread's.
fn grow(by: usize) {
    if COUNTING.load(Relaxed) {
        ALLOCS.fetch_add(1, Relaxed);
        // `try_with` fails only while the thread's locals are torn down.
        let _ = OWN_ALLOCS.try_with(|n| n.set(n.get() + 1));
        let live = LIVE.fetch_add(by as isize, Relaxed) + by as isize;
        PEAK.fetch_max(live, Relaxed);
    }
}

fn shrink(by: usize) {
    if COUNTING.load(Relaxed) {
        LIVE.fetch_sub(by as isize, Relaxed);
    }
}

// SAFETY: every call is forwarded unchanged to `System`; only counters are added.
unsafe impl GlobalAlloc for Counting {
    unsafe fn alloc(&self, layout: Layout) -> *mut u8 {
        // SAFETY: the caller's contract is `System`'s.
        let p = unsafe { System.alloc(layout) };
        if !p.is_null() {
            grow(layout.size());
        }
        p
    }

    unsafe fn alloc_zeroed(&self, layout: Layout) -> *mut u8 {
        // SAFETY: the caller's contract is `System`'s.
        let p = unsafe { System.alloc_zeroed(layout) };
        if !p.is_null() {
            grow(layout.size());
        }
        p
    }

    unsafe fn dealloc(&self, ptr: *mut u8, layout: Layout) {
        shrink(layout.size());
        // SAFETY: the caller's contract is `System`'s.
        unsafe { System.dealloc(ptr, layout) }
    }

    unsafe fn realloc(&self, ptr: *mut u8, layout: Layout, new_size: usize) -> *mut u8 {
        // SAFETY: the caller's contract is `System`'s.
        let p = unsafe { System.realloc(ptr, layout, new_size) };
        if !p.is_null() {
            // A reallocation is one more call into the allocator.
            shrink(layout.size());
            grow(new_size);
        }
        p
    }
}

/// What one call cost the allocator.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct AllocStats {
    /// Calls to `alloc`, `alloc_zeroed` and `realloc` during the call, on
    /// every thread.
    pub allocs: usize,
    /// The same calls made by the thread that ran the call.
    pub own_allocs: usize,
    /// The peak of live heap bytes during the call, above what was live
    /// before it (the returned value included).
    pub peak_bytes: usize,
    /// Minor page faults during the call (fresh pages from the kernel), read
    /// from `/proc/self/stat`; 0 where that file does not exist.
    pub page_faults: u64,
}

/// The process's minor page faults so far (Linux), else 0. Reads
/// `/proc/self/stat` into a stack buffer, so it does not allocate.
pub fn minor_faults() -> u64 {
    use std::io::Read;
    let mut buf = [0u8; 1024];
    let Ok(mut file) = std::fs::File::open("/proc/self/stat") else {
        return 0;
    };
    let Ok(n) = file.read(&mut buf) else {
        return 0;
    };
    let Ok(stat) = std::str::from_utf8(&buf[..n]) else {
        return 0;
    };
    // Field 10 (minflt); the command name in field 2 may contain spaces, so
    // count from the closing parenthesis.
    stat.rsplit_once(')')
        .and_then(|(_, rest)| rest.split_whitespace().nth(7))
        .and_then(|f| f.parse().ok())
        .unwrap_or(0)
}

/// Runs `f` once to warm up (lazy statics, thread pools), then once more
/// measured; the result is dropped after the measurement. The counters are
/// the process's, so measurements run one at a time.
pub fn measure<R>(mut f: impl FnMut() -> R) -> AllocStats {
    static ONE_AT_A_TIME: Mutex<()> = Mutex::new(());
    let _alone = ONE_AT_A_TIME.lock().unwrap_or_else(|e| e.into_inner());
    drop(std::hint::black_box(f()));
    ALLOCS.store(0, Relaxed);
    LIVE.store(0, Relaxed);
    PEAK.store(0, Relaxed);
    let base_own = OWN_ALLOCS.with(Cell::get);
    let faults = minor_faults();
    COUNTING.store(true, Relaxed);
    let r = std::hint::black_box(f());
    COUNTING.store(false, Relaxed);
    let page_faults = minor_faults() - faults;
    let stats = AllocStats {
        page_faults,
        allocs: ALLOCS.load(Relaxed),
        own_allocs: OWN_ALLOCS.with(Cell::get) - base_own,
        peak_bytes: PEAK.load(Relaxed).max(0) as usize,
    };
    drop(r);
    stats
}
