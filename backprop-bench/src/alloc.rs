//! A counting global allocator: the number of allocator calls and the peak
//! live bytes of one call of a function, measured outside the timing loop.

use std::alloc::{GlobalAlloc, Layout, System};
use std::sync::atomic::{AtomicUsize, Ordering::Relaxed};

/// [`System`], counting every allocation and tracking the live bytes.
pub struct Counting;

static ALLOCS: AtomicUsize = AtomicUsize::new(0);
static LIVE: AtomicUsize = AtomicUsize::new(0);
static PEAK: AtomicUsize = AtomicUsize::new(0);

#[global_allocator]
static GLOBAL: Counting = Counting;

fn grow(by: usize) {
    let live = LIVE.fetch_add(by, Relaxed) + by;
    PEAK.fetch_max(live, Relaxed);
}

// SAFETY: every call is forwarded unchanged to `System`; only counters are added.
unsafe impl GlobalAlloc for Counting {
    unsafe fn alloc(&self, layout: Layout) -> *mut u8 {
        // SAFETY: the caller's contract is `System`'s.
        let p = unsafe { System.alloc(layout) };
        if !p.is_null() {
            ALLOCS.fetch_add(1, Relaxed);
            grow(layout.size());
        }
        p
    }

    unsafe fn alloc_zeroed(&self, layout: Layout) -> *mut u8 {
        // SAFETY: the caller's contract is `System`'s.
        let p = unsafe { System.alloc_zeroed(layout) };
        if !p.is_null() {
            ALLOCS.fetch_add(1, Relaxed);
            grow(layout.size());
        }
        p
    }

    unsafe fn dealloc(&self, ptr: *mut u8, layout: Layout) {
        LIVE.fetch_sub(layout.size(), Relaxed);
        // SAFETY: the caller's contract is `System`'s.
        unsafe { System.dealloc(ptr, layout) }
    }

    unsafe fn realloc(&self, ptr: *mut u8, layout: Layout, new_size: usize) -> *mut u8 {
        // SAFETY: the caller's contract is `System`'s.
        let p = unsafe { System.realloc(ptr, layout, new_size) };
        if !p.is_null() {
            // A reallocation is one more call into the allocator.
            ALLOCS.fetch_add(1, Relaxed);
            LIVE.fetch_sub(layout.size(), Relaxed);
            grow(new_size);
        }
        p
    }
}

/// What one call cost the allocator.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct AllocStats {
    /// Calls to `alloc`, `alloc_zeroed` and `realloc` during the call.
    pub allocs: usize,
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
/// measured; the result is dropped after the measurement.
pub fn measure<R>(mut f: impl FnMut() -> R) -> AllocStats {
    drop(std::hint::black_box(f()));
    let base_allocs = ALLOCS.load(Relaxed);
    let base_live = LIVE.load(Relaxed);
    PEAK.store(base_live, Relaxed);
    let faults = minor_faults();
    let r = std::hint::black_box(f());
    let page_faults = minor_faults() - faults;
    let stats = AllocStats {
        page_faults,
        allocs: ALLOCS.load(Relaxed) - base_allocs,
        peak_bytes: PEAK.load(Relaxed).saturating_sub(base_live),
    };
    drop(r);
    stats
}
