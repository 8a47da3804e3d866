import Dispatch

/// Runs `body` over `0..<count` in two halves on two threads when there are at least `minimum`
/// items (below that a second thread costs more than it saves), else at once on this thread.
/// `body` must only write what belongs to its own range.
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
