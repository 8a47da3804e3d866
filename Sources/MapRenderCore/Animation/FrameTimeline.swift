/// When each frame of an animation is, in map time, and the moments at which it is at rest.
///
/// Map time is what the frames sample: for keyframes the transition parameter (keyframe j at
/// time j), for tracks the data's seconds. Effects that are not in the data (a point travelling
/// into a cluster bubble, a bubble growing) last `transition` map time, cut short so that they
/// end by the next rest time: a frame at a rest time shows the data exactly as a still map does,
/// whatever the number of frames or their rate.
///
/// ```swift
/// let t = FrameTimeline(times: (0...60).map { Double($0) / 30 }, rest: [0, 1, 2], transition: 1.0 / 3)
/// t.end(ofTransitionFrom: 0.9)   // 1.0: cut at keyframe 1
/// ```
public struct FrameTimeline: Sendable, Equatable {
    /// Map time of each frame, non-decreasing.
    public var times: [Double]
    /// Rest times, ascending.
    public var rest: [Double]
    /// How long an effect lasts when nothing cuts it, map time (> 0).
    public var transition: Double

    public init(times: [Double], rest: [Double], transition: Double) {
        self.times = times
        self.rest = Array(Set(rest)).sorted()
        self.transition = transition
    }

    /// Keyframes: `framesPerTransition` frames per transition, keyframes at 0, 1, 2, ...;
    /// frame k at k / N (exact at each keyframe).
    public static func keyframes(frameCount: Int, framesPerTransition n: Int, transition: Double) -> FrameTimeline {
        let keyframes = (frameCount - 1) / max(n, 1)
        return FrameTimeline(times: (0..<frameCount).map { Double($0) / Double(max(n, 1)) },
                             rest: (0...max(keyframes, 0)).map(Double.init), transition: transition)
    }

    /// When an effect that begins at `start` ends: `transition` later, or at the first rest time
    /// after `start` when that comes sooner.
    public func end(ofTransitionFrom start: Double) -> Double {
        let natural = start + transition
        // First rest time > start (binary search).
        var lo = 0, hi = rest.count
        while lo < hi {
            let mid = (lo + hi) / 2
            if rest[mid] > start { hi = mid } else { lo = mid + 1 }
        }
        return lo < rest.count ? min(natural, rest[lo]) : natural
    }

    /// Whether frame `k` is at a rest time.
    public func isRest(frame k: Int) -> Bool {
        let t = times[k]
        var lo = 0, hi = rest.count
        while lo < hi {
            let mid = (lo + hi) / 2
            if rest[mid] < t { lo = mid + 1 } else { hi = mid }
        }
        return lo < rest.count && rest[lo] == t
    }
}

/// An effect running from `start` to `end` (map time): the share of its initial offset still left
/// at a time, linearly, 0 from `end` on.
public struct EffectClock: Sendable, Equatable {
    public var start: Double
    public var end: Double

    /// An effect already over.
    public static let settled = EffectClock(start: -.infinity, end: -.infinity)

    public init(start: Double, end: Double) { self.start = start; self.end = end }

    /// 1 at `start`, 0 at and after `end`.
    public func remaining(at t: Double) -> Double {
        if t >= end { return 0 }
        if t <= start { return 1 }
        return 1 - (t - start) / (end - start)
    }
}
