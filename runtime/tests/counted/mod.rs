//! Heap allocations counted on the calling thread only, shared by the `*no_alloc.rs` test
//! binaries (linking `allocation-counter` installs its counting global allocator). A
//! process-wide counter (`stats_alloc`'s `Region`, used before) also saw the test harness's main
//! thread: on a loaded machine it ran during a measured integration and added 4 allocations
//! (84 → 88 in `implicit_no_alloc`, 251 → 255 in `hpim_no_alloc`), which made the tests flaky.

/// The result of `f` and the number of heap allocations this thread made while running it (a
/// reallocation counts as one: `allocation-counter` leaves `realloc` to `GlobalAlloc`'s default,
/// an allocation followed by a free).
pub fn allocations<T>(f: impl FnOnce() -> T) -> (T, usize) {
    let mut out = None;
    let info = allocation_counter::measure(|| out = Some(f()));
    let count = usize::try_from(info.count_total).expect("an allocation count fits in usize");
    (out.expect("measure runs its closure"), count)
}
