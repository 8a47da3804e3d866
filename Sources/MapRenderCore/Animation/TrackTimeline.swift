/// Frame times for a track animation, in the data's seconds (see ``TrackTime``).
///
/// ```swift
/// // 10 s of video at 30 fps covering the whole data span:
/// let times = TrackTimeline.frames(start: span.start, end: span.end, fps: 30, duration: 10)
/// // real time, one frame every 1/30 s of data time:
/// let live = TrackTimeline.frames(start: t0, end: t1, fps: 30)
/// ```
public enum TrackTimeline {
    /// Real-time frames: `start`, `start + 1/fps`, ... up to and including `end` (within a
    /// millionth of a frame). An empty array when `fps` is not positive or `end < start`.
    public static func frames(start: Double, end: Double, fps: Double) -> [Double] {
        guard fps > 0, fps.isFinite, start.isFinite, end.isFinite, end >= start else { return [] }
        let step = 1 / fps
        let n = Int(((end - start) / step + 1e-6).rounded(.down)) + 1
        return (0..<n).map { start + Double($0) * step }
    }

    /// `count` frames spread evenly from `start` to `end`, both included (one frame at `start`
    /// when `count` is 1).
    public static func frames(start: Double, end: Double, count: Int) -> [Double] {
        guard count > 0, start.isFinite, end.isFinite else { return [] }
        if count == 1 { return [start] }
        let step = (end - start) / Double(count - 1)
        return (0..<count).map { $0 == count - 1 ? end : start + Double($0) * step }
    }

    /// The data span `start...end` compressed (or stretched) into `duration` seconds of video
    /// at `fps`: `max(1, round(duration × fps))` frames, the first at `start`, the last at `end`.
    public static func frames(start: Double, end: Double, fps: Double, duration: Double) -> [Double] {
        guard fps > 0, duration > 0, fps.isFinite, duration.isFinite else { return [] }
        return frames(start: start, end: end, count: max(1, Int((duration * fps).rounded())))
    }
}
