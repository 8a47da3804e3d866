import Dispatch

/// Runs `body` over `0..<count` in two halves on two threads when there are at least `minimum`
/// items (below that a second thread costs more than it saves), else at once on this thread.
/// `body` must only write what belongs to its own range. For bodies that need to know which
/// half they have (the first half's results placed before the second's).
@inline(__always)
func inHalves(_ count: Int, minimum: Int = 1 << 17, _ body: (Range<Int>) -> Void) {
    if count < minimum {
        body(0..<count)
    } else {
        DispatchQueue.concurrentPerform(iterations: 2) { half in
            body(half == 0 ? 0..<count / 2 : count / 2..<count)
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
    if count < minimum {
        body(0..<count)
    } else {
        DispatchQueue.concurrentPerform(iterations: parts) { k in
            body(count * k / parts..<count * (k + 1) / parts)
        }
    }
}
