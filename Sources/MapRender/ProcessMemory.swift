import CMalloc

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
    /// then took 2.2-2.3 times as long at 1M as at 500k; with these settings 1.95 (clumps, 160 ms
    /// against 188-223 at 1M). Not for a still map: there the kept memory raised the peak of a 1M
    /// clustered map from 185 to 210 MB, and nothing is allocated again to use it.
    public static func keepFreedBlocks() {
        // Blocks up to 32 MB from the heap; the heap's free top kept up to 512 MB.
        _ = mallopt(M_MMAP_THRESHOLD, 32 << 20)
        _ = mallopt(M_TRIM_THRESHOLD, 512 << 20)
    }
}
