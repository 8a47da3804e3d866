import CPrefetch
import Foundation
import Synchronization

/// Two threads taking turns at the items they share, for a clustering pass decided on both
/// cores at once.
///
/// Each side decides its own items in input order. Items away from the column where the sides
/// meet touch only their own side's state, so the two sides run freely there. An item near it
/// (in the `boundary` positions) may take, or be taken by, an item of the other side: before
/// deciding one, a side waits until the other has decided every item of its own that comes
/// earlier in input order (its `progress` passed the item). The other side cannot be deciding a
/// later shared item meanwhile: it waits on this side in turn. So the shared items are decided
/// one at a time, in input order, as on one thread, and the result is the same.
final class Handoff: Sendable {
    /// Per side: the input index of the item it decides now (every earlier one of its own is
    /// done). A cache line apart: each side writes its own at every item.
    private let progress0 = Atomic<Int>(0)
    private let padding: (Int, Int, Int, Int, Int, Int, Int, Int) = (0, 0, 0, 0, 0, 0, 0, 0)
    private let progress1 = Atomic<Int>(0)
    /// Grid positions of the items either side may reach.
    let boundary: Range<Int32>

    /// Whether this one holds the process's turn (`make`), given back when it goes away.
    private let holdsTurn: Bool

    private init(boundary: Range<Int32>, holdsTurn: Bool) {
        self.boundary = boundary
        self.holdsTurn = holdsTurn
    }

    deinit {
        if holdsTurn { Self.running.store(0, ordering: .releasing) }
    }

    /// Passes deciding on meeting sides now, in the whole process.
    private static let running = Atomic<Int>(0)

    /// Sides meeting over `boundary`, or nil when another pass already decides on meeting sides:
    /// two such passes would put four threads that wait for each other on the machine's cores,
    /// and a side waiting for one that is not running wastes its turn, so the others decide on
    /// one thread. A pass beside another build asks for no sides at all (`Pass.buildsRunning`);
    /// the turn settles the builds that each found themselves alone, having started at the same
    /// moment. The turn is held until the handoff goes away. `claimingTurn: false` skips the
    /// turn (tests that must meet while other tests cluster).
    static func make(boundary: Range<Int32>, claimingTurn: Bool = true) -> Handoff? {
        guard claimingTurn else { return Handoff(boundary: boundary, holdsTurn: false) }
        guard claimTurn() else { return nil }
        return Handoff(boundary: boundary, holdsTurn: true)
    }

    /// Takes the process's turn if it is free.
    private static func claimTurn() -> Bool {
        running.compareExchange(expected: 0, desired: 1, ordering: .acquiringAndReleasing).exchanged
    }

    /// Side `side` is about to decide the item at input index `index`; when the item is in the
    /// boundary, returns once the other side is past it.
    @inline(__always)
    func begin(side: Int, index: Int, position: Int32) {
        publish(side, index)
        guard boundary.contains(position) else { return }
        var spins = 0
        while (side == 0 ? progress1.load(ordering: .acquiring) : progress0.load(ordering: .acquiring)) <= index {
            spins += 1
            mr_spin_pause()
            // On a busy machine the other thread may not be running: give way to it.
            if spins > 256 { sched_yield() }
        }
    }

    /// Side `side` has decided all its items.
    func finish(side: Int) {
        publish(side, .max)
    }

    @inline(__always)
    private func publish(_ side: Int, _ index: Int) {
        if side == 0 { progress0.store(index, ordering: .releasing) } else { progress1.store(index, ordering: .releasing) }
    }

    /// Runs `first` here and `second` on a thread of its own, both at once, and returns when both
    /// are done. (`DispatchQueue.concurrentPerform` may run its iterations one after the other,
    /// and a side waiting for the other would then wait for ever.)
    static func simultaneously(_ first: () -> Void, _ second: () -> Void) {
        Work.forks?.add()
        withoutActuallyEscaping(second) { second in
            let done = DispatchSemaphore(value: 0)
            let box = UncheckedBox(second)
            let thread = Thread {
                box.value?()
                done.signal()
            }
            thread.stackSize = 1 << 20
            thread.start()
            first()
            done.wait()
            // The thread object may outlive this call: it must not hold the closure by then.
            box.value = nil
        }
    }

    private final class UncheckedBox: @unchecked Sendable {
        var value: (() -> Void)?
        init(_ value: @escaping () -> Void) { self.value = value }
    }
}
