import Testing
@testable import MapRenderCore

@Suite struct FrameTimelineTests {
    @Test func keyframesRestAtEveryKeyframeExactly() {
        let t = FrameTimeline.keyframes(frameCount: 2 * 7 + 1, framesPerTransition: 7, transition: 1.0 / 3)
        #expect(t.rest == [0, 1, 2])
        #expect((0..<15).filter { t.isRest(frame: $0) } == [0, 7, 14])
        #expect(t.times[7] == 1 && t.times[14] == 2)
    }

    @Test func effectsEndByTheNextRestTime() {
        let t = FrameTimeline(times: [], rest: [0, 1, 2], transition: 0.25)
        #expect(t.end(ofTransitionFrom: 0.5) == 0.75)
        #expect(t.end(ofTransitionFrom: 0.9) == 1)
        #expect(t.end(ofTransitionFrom: 1) == 1.25)        // a rest time itself: the next one cuts
        #expect(t.end(ofTransitionFrom: 1.95) == 2)
        #expect(t.end(ofTransitionFrom: 2.5) == 2.75)      // after the last rest time
    }

    @Test func clocksRunLinearlyToZero() {
        let c = EffectClock(start: 1, end: 3)
        #expect(c.remaining(at: 0) == 1)
        #expect(c.remaining(at: 1) == 1)
        #expect(c.remaining(at: 2) == 0.5)
        #expect(c.remaining(at: 3) == 0)
        #expect(c.remaining(at: 9) == 0)
        #expect(EffectClock.settled.remaining(at: -1e300) == 0)
    }
}
