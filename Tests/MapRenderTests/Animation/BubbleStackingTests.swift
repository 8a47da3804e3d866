import Foundation
import Testing
@testable import MapRender

/// `BubbleStacking` on made-up frames: runs are cut only where two overlapping bubbles swap (or
/// a chain of overlaps contradicts the run), bubbles that do not overlap may swap freely, and each
/// run's order keeps every overlapping pair of its frames.
@Suite struct BubbleStackingTests {
    typealias Disc = (x: Double, y: Double, r: Double)

    static func stacking(_ frames: [[(track: Int, disc: Disc)]]) -> BubbleStacking {
        BubbleStacking(frames: frames.map { $0.map(\.track) }, strokeWidth: 2) { track, k in
            frames[k].first { $0.track == track }!.disc
        }
    }

    @Test func aSwapOfOverlappingBubblesStartsARun() {
        let a: Disc = (100, 100, 20), b: Disc = (120, 100, 20), far: Disc = (300, 100, 10)
        let s = Self.stacking([
            [(1, a), (2, b), (3, far)],
            [(3, far), (1, a), (2, b)],          // 3 overlaps nothing: moving it is no contradiction
            [(2, b), (1, a), (3, far)],          // 1 and 2 swap while overlapping
            [(2, b), (1, a)],
        ])
        #expect(s.runs.map(\.frames) == [0...1, 2...3])
        #expect(s.runs[0].order.firstIndex(of: 1)! < s.runs[0].order.firstIndex(of: 2)!)
        #expect(s.runs[1].order.firstIndex(of: 2)! < s.runs[1].order.firstIndex(of: 1)!)
        #expect(Set(s.runs[0].order) == [1, 2, 3] && Set(s.runs[1].order) == [1, 2, 3])
    }

    /// 1 under 2 and 2 under 3 in one frame, 3 under 1 in the next (all three overlapping there
    /// only pairwise): a cycle through the run's pairs, so a new run.
    @Test func aContradictionThroughAChainStartsARun() {
        let s = Self.stacking([
            [(1, (100, 100, 20)), (2, (135, 100, 20)), (3, (170, 100, 20))],
            [(3, (100, 100, 20)), (1, (125, 100, 10)), (2, (300, 100, 10))],
        ])
        #expect(s.runs.map(\.frames) == [0...0, 1...1])
        // Frames that agree make one run, with one element per bubble.
        let calm = Self.stacking([[(1, (100, 100, 20)), (2, (120, 100, 20))], [(1, (101, 100, 20)), (2, (121, 100, 20))]])
        #expect(calm.runs == [BubbleStacking.Run(frames: 0...1, order: [1, 2])])
    }
}
