/// A list of plain values that only grows until emptied, in memory of its own: the decisions a
/// clustering pass logs item by item (`ClusterIndex.Pass.Decisions`), the neighbours a grid
/// question finds (`NeighbourGrid.Found`).
///
/// Written by hand for that hot path: appending to a Swift array asks the runtime whether the
/// array is shared at every append (a call, ~25 instructions), about 3M appends in a land 1M
/// clustering. Here an append is a compare and a store. Copies share the memory; the owner
/// deallocates it once.
struct PlainLog<Element: BitwiseCopyable> {
    private(set) var base: UnsafeMutablePointer<Element>
    private(set) var count = 0
    private(set) var capacity: Int

    init(capacity: Int = 16) {
        self.capacity = Swift.max(capacity, 1)
        base = .allocate(capacity: self.capacity)
    }

    func deallocate() { base.deallocate() }

    /// The values, valid until the next append or `reserve`.
    var buffer: UnsafeBufferPointer<Element> { UnsafeBufferPointer(start: base, count: count) }

    /// Room for `n` values at least (exactly `n` when it moves: pages never written cost nothing).
    mutating func reserve(_ n: Int) {
        if n > capacity { move(to: n) }
    }

    @inline(__always)
    mutating func append(_ value: Element) {
        if count == capacity { move(to: 2 * capacity) }
        (base + count).initialize(to: value)
        count += 1
    }

    mutating func removeAll() { count = 0 }

    private mutating func move(to newCapacity: Int) {
        let new = UnsafeMutablePointer<Element>.allocate(capacity: newCapacity)
        new.moveInitialize(from: base, count: count)
        base.deallocate()
        base = new
        capacity = newCapacity
    }
}
