import CPrefetch

/// A fixed-size buffer of plain values in memory that may use huge pages (`mr_alloc_large`):
/// for tables of millions of entries read at random, where each read on 4 KiB pages would also
/// miss the TLB. Zen's second-level TLB maps 8 MiB in 4 KiB pages; a hash table outgrowing that
/// made the duplicate search 2.5x slower per point from 250k to 500k points. Freed with its owner.
final class LargeBuffer<Element> {
    let base: UnsafeMutablePointer<Element>
    let count: Int

    init(count: Int, repeating value: Element) {
        precondition(count >= 0)
        guard let raw = mr_alloc_large(Swift.max(count, 1) * MemoryLayout<Element>.stride) else {
            fatalError("out of memory for \(count) table entries")
        }
        base = raw.bindMemory(to: Element.self, capacity: Swift.max(count, 1))
        base.initialize(repeating: value, count: count)
        self.count = count
    }

    deinit { mr_free_large(base) }

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
