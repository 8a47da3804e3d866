#if os(Linux)
import CMalloc
#endif
import MapRenderCore

/// Process-wide allocator settings, for the command that owns the process to choose.
public enum ProcessMemory {
    /// Keeps large freed blocks in the process for the next allocations instead of handing them
    /// back to the kernel.
    ///
    /// For `animate`: every frame plans per-point arrays of 8 MB at a million points (six a frame,
    /// a chunk of frames at once), and frees them when drawn. glibc maps blocks that large on their
    /// own and unmaps them when freed (its threshold only grows to the size of a freed block, and it
    /// trims the heap's top beyond twice that), so at a million points the first frames' arrays
    /// were fresh pages — 11,719 page faults in one frame's plan, each a zeroed page from the
    /// kernel, where at 500k the 4 MB arrays came from memory freed earlier (951). The plan stage
    /// then took 2.2-2.3 times as long at 1M as at 500k; with these settings 1.91 (clumps and
    /// gen_points: 154-161 ms at 1M against 182-188, the fastest of 5 runs). Not for a still map:
    /// there the kept memory raised the peak of a 1M clustered map from 185 to 210 MB, and nothing
    /// is allocated again to use it. glibc only (elsewhere it does nothing).
    public static func keepFreedBlocks() {
        // Blocks up to 32 MB from the heap; the heap's free top kept up to 512 MB.
        #if os(Linux)
        _ = mallopt(M_MMAP_THRESHOLD, 32 << 20)
        _ = mallopt(M_TRIM_THRESHOLD, 512 << 20)
        // And none mapped on its own: glibc will not take its threshold above 32 MB, which some
        // per-frame arrays reach at 2M points; they were mapped and unmapped every frame (the page
        // faults of `memset`, `Keyframes.frame` and `pointsByLowestItem` grew 3.7-4.3x from 1M to
        // 2M on clumps, `perf record -e page-faults`). Land, 10 frames, two runs each: page
        // faults 352k at 2M against 175k at 1M (2.01x; 431k against 194k without this), cluster
        // stage 5974-6103 ms (6198-6229), peak 1,635 MB (1,618-1,631). A block larger than a
        // worker thread's 64 MB heap is still mapped on its own (glibc's fallback).
        _ = mallopt(M_MMAP_MAX, 0)
        #endif
        // The clustering's own large buffers (grid, lists, slots: on huge pages, which a
        // worker thread's arena or glibc's own mapping gave back and took again fresh, each huge
        // page zeroed by the kernel) likewise. `animate` of land points, 2 keyframes, 10 frames,
        // runs alternating with the binary before (the second set with `M_MMAP_MAX` above too): cluster
        // stage at 1M 2848-2886 ms against 2952-3030, then 2670-2722 against 2844-3045; at 2M
        // 6216 against 6830, then 5817-5853 against 6246-6533, peak 1642-1665 MB against
        // 1795-1804; at 500k 1209-1263 against 1326-1424, then no difference; 250k unchanged.
        LargeBlocks.keepFreed(upTo: 512 << 20)
    }
}
