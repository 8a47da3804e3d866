import CPrefetch

/// A fixed-size buffer of plain values in memory that may use huge pages (`mr_alloc_large`):
/// for tables of millions of entries read at random, where each read on 4 KiB pages would also
/// miss the TLB (Zen's second-level TLB maps 8 MiB in 4 KiB pages). On huge pages the
/// clustering's grid, pass lists and slots took the land 1M cluster stage from 495 to 471 ms
/// and halved its page faults; the duplicate table of 500k points, 158 to 152 ms. The item
/// store stays on plain pages: huge ones gained at most 3 % there and, touched 2 MiB at a time,
/// raised the peak of a 1M clustered map from 193 to 199 MiB (the target is 200). Freed with
/// its owner.
final class LargeBuffer<Element> {
    let base: UnsafeMutablePointer<Element>

    init(count: Int, repeating value: Element) {
        precondition(count >= 0)
        base = .allocateLarge(capacity: count)
        base.initialize(repeating: value, count: count)
    }

    deinit { base.freeLarge() }

    @inline(__always)
    subscript(i: Int) -> Element {
        get { base[i] }
        set { base[i] = newValue }
    }
}

extension UnsafeMutablePointer {
    /// Uninitialized memory for `count` values from `mr_alloc_large` (huge pages from 2 MiB on);
    /// give it back with `freeLarge()`.
    static func allocateLarge(capacity count: Int) -> UnsafeMutablePointer<Pointee> {
        guard let raw = mr_alloc_large(Swift.max(count, 1) * MemoryLayout<Pointee>.stride) else {
            fatalError("out of memory for \(count) values")
        }
        return raw.bindMemory(to: Pointee.self, capacity: Swift.max(count, 1))
    }

    func freeLarge() { mr_free_large(self) }
}

/// The large-buffer allocator's process-wide setting (`mr_keep_large_blocks`).
public enum LargeBlocks {
    /// Keeps freed buffers of 2 MiB and more, up to `limit` bytes in all, for the next large
    /// buffers: for a process that builds the same large tables again and again (`animate`
    /// clusters every frame), whose buffers would otherwise come back as fresh pages, each
    /// faulted in and zeroed by the kernel.
    public static func keepFreed(upTo limit: Int) { mr_keep_large_blocks(limit) }
}
