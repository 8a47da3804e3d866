import Dispatch
import Synchronization

/// Whether the work of one map may fork onto other threads. Every parallel loop of the pipeline
/// goes through `Work.perform` (or `inParts` and its kin, which do), so that one switch bounds
/// them all.
public enum Work {
    /// Set around a render that has one thread to itself (`RenderRequest.threads == 1`: serve's
    /// render slots, one of `--jobs` each): every loop then runs its parts one after the other on
    /// the calling thread, and a served map never puts a second thread of its own beside the
    /// other slots' (a nested parallel loop per request oversubscribes the cores). Bound with
    /// `Work.$serial.withValue(true) { ... }` on the thread that renders.
    @TaskLocal public static var serial = false

    /// Counts the loops that forked on this thread's task while bound (tests bind it to see that a
    /// one-thread render never forks, and that an ordinary one does).
    public final class Forks: Sendable {
        private let count = Atomic<Int>(0)
        public init() {}
        public var value: Int { count.load(ordering: .relaxed) }
        func add() { count.add(1, ordering: .relaxed) }
    }
    @TaskLocal public static var forks: Forks?

    /// `body(0..<iterations)` on the threads as they come free, or in order on this thread when
    /// `serial` (or when there is one iteration). `body` must not wait for another iteration.
    @inline(__always)
    static func perform(iterations: Int, _ body: (Int) -> Void) {
        if iterations <= 1 || serial {
            for k in 0..<iterations { body(k) }
        } else {
            forks?.add()
            DispatchQueue.concurrentPerform(iterations: iterations, execute: body)
        }
    }
}

/// Parts that work shared by the threads is cut into (`inParts`; the grid's sweep and merge, a
/// pass's commit): enough for a free core to take over much of a slow one's share, few enough
/// that cutting costs nothing measurable.
let workParts = 8

/// Runs `body` over `0..<count` in `parts` ranges of about as many items, taken by the threads
/// as they come free, when there are at least `minimum` items; else at once on this thread.
/// `body` must only write what belongs to its own range.
///
/// Not two fixed halves: on a shared virtual machine one core is at times much slower than the
/// other (the same two-thread stage took 402-572 ms in five runs in a row, the peer's one
/// thread 405-425), and a fixed half on the slow core sets the pace; with parts, the free core
/// takes the parts the slow one has not started.
@inline(__always)
func inParts(_ count: Int, minimum: Int = 1 << 17, parts: Int = workParts, _ body: (Range<Int>) -> Void) {
    let ranges = partRanges(count, minimum: minimum, parts: parts)
    if ranges.count == 1 {
        body(ranges[0])
    } else {
        Work.perform(iterations: ranges.count) { k in body(ranges[k]) }
    }
}

/// The parts `inParts` cuts `0..<count` into (one when below `minimum`, or when `Work.serial`).
func partRanges(_ count: Int, minimum: Int = 1 << 17, parts: Int = workParts) -> [Range<Int>] {
    count < minimum || Work.serial ? [0..<count] : (0..<parts).map { count * $0 / parts..<count * ($0 + 1) / parts }
}

/// Runs `body(k)` for the kth of `parts` (from `partRanges`): on the threads as they come free
/// when there are several, at once on this thread when there is one.
@inline(__always)
func eachPart(_ parts: [Range<Int>], _ body: (Int) -> Void) {
    Work.perform(iterations: parts.count, body)
}

/// Keeps some of `0..<count` in order, in parts (`inParts`): `body` writes what it keeps of its
/// range from the range's start on and returns how many; then each part's are moved down behind
/// the previous part's with `move(from, to, count)` (to below from: a forward copy is safe).
/// Returns how many are kept.
func keepInParts(_ count: Int, minimum: Int = 1 << 17, _ body: (Range<Int>) -> Int,
                 move: (_ from: Int, _ to: Int, _ count: Int) -> Void) -> Int {
    let ranges = partRanges(count, minimum: minimum)
    var kept = [Int](repeating: 0, count: ranges.count)
    kept.withUnsafeMutableBufferPointer { kept in
        if ranges.count == 1 {
            kept[0] = body(ranges[0])
        } else {
            Work.perform(iterations: ranges.count) { k in kept[k] = body(ranges[k]) }
        }
    }
    var total = kept[0]
    for k in ranges.indices.dropFirst() {
        if kept[k] > 0 && ranges[k].lowerBound != total { move(ranges[k].lowerBound, total, kept[k]) }
        total += kept[k]
    }
    return total
}
