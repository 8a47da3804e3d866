import Testing
@testable import MapRenderCore

/// `LabelSchedule`: the side and opacity of a label through a transition, frame by frame.
@Suite struct LabelScheduleTests {
    /// (side, opacity) in frames 1 ..< n of a transition of n frames.
    func run(_ n: Int, _ s0: LabelSide?, _ s1: LabelSide?, previous: LabelSide? = nil) -> [(LabelSide, Double)?] {
        (1..<n).map { LabelSchedule(frame: $0, of: n, start: LabelSides(), end: LabelSides()).side(start: s0, end: s1, previous: previous) }
    }

    @Test func aLabelOnOneSideAtBothKeyframesStaysThere() {
        for n in [2, 5, 6, 30] {
            #expect(run(n, .left, .left).allSatisfy { $0?.0 == .left && $0?.1 == 1 })
        }
    }

    @Test func aLabelChangingSideFadesOutThenInAndIsLeftOutInTheMiddle() {
        for n in [2, 3, 5, 6, 7, 30] {
            let steps = run(n, .right, .above)
            let middle = n / 2   // frame `middle` is steps[middle - 1]
            for (j, s) in zip(1..., steps) {
                let (side, opacity) = try! #require(s)
                if j < middle {
                    #expect(side == .right && opacity > 0 && opacity < 1)
                } else if j == middle {
                    #expect(opacity == 0)
                } else {
                    #expect(side == .above && opacity > 0 && opacity < 1)
                }
            }
            // Fading out, then in: never brighter on the old side as the keyframe after comes nearer.
            let out = steps.prefix(middle - 1).map { $0!.1 }, into = steps.suffix(n - 1 - middle).map { $0!.1 }
            #expect(out == out.sorted(by: >) && into == into.sorted())
        }
        // Six frames: 2/3, 1/3 on the old side, none, 1/3, 2/3 on the new.
        let six: [Double] = run(6, .right, .above).map { $0!.1 }
        let expected: [Double] = [2.0 / 3, 1.0 / 3, 0, 1.0 / 3, 2.0 / 3]
        #expect(six == expected)
    }

    @Test func aLabelAtOneKeyframeKeepsThatSide() {
        #expect(run(6, .below, nil).allSatisfy { $0?.0 == .below && $0?.1 == 1 })
        #expect(run(6, nil, .topLeft).allSatisfy { $0?.0 == .topLeft && $0?.1 == 1 })
    }

    @Test func aLabelAtNeitherKeyframeKeepsThePreviousFramesSide() {
        #expect(run(6, nil, nil, previous: .left).allSatisfy { $0?.0 == .left && $0?.1 == 1 })
        #expect(run(6, nil, nil).allSatisfy { $0 == nil })
    }
}
