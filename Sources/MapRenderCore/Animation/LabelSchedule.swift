/// Where a label sits, and how opaque it is, in a frame between two keyframes: a label never
/// changes side round its mark mid-transition. It keeps the side it has at the keyframe before;
/// where the keyframe after puts it on another side, it fades out on the first side over the first
/// half of the transition, is left out in the middle frame, and fades in on the new side over the
/// second half, so that it stands on the still map's side at full opacity when the keyframe comes.
///
/// A label at only one of the two keyframes keeps that side (it comes or goes with its marker's
/// fade, or at the keyframe); one at neither keeps the side of the frame before, if it had one. A kept side is the only one tried (`LabelSides.only`): where it is taken, the
/// label is left out of that frame rather than moved.
///
/// ```swift
/// let s = LabelSchedule(frame: 1, of: 6, start: a, end: b)   // a: right, b: left
/// s.side(start: .right, end: .left, previous: .right)        // (.right, 2/3)
/// ```
public struct LabelSchedule: Sendable {
    /// Frames since the keyframe before (1 ..< count).
    public var frame: Int
    /// Frames from one keyframe to the next (at least 2: one frame between).
    public var count: Int
    /// The sides at the keyframe before and after, by key.
    public var start: LabelSides
    public var end: LabelSides

    public init(frame: Int, of count: Int, start: LabelSides, end: LabelSides) {
        self.frame = frame; self.count = count; self.start = start; self.end = end
    }

    /// The middle frame: before it the first side, after it the second.
    var middle: Int { count / 2 }

    /// The side and opacity (a factor of the marker's) of a label whose side is `s0` at the
    /// keyframe before and `s1` at the one after, and was `previous` in the frame before; nil: any
    /// free side (a label at neither keyframe, and in no frame before).
    public func side(start s0: LabelSide?, end s1: LabelSide?, previous: LabelSide?) -> (side: LabelSide, opacity: Double)? {
        let j = Double(frame), m = Double(middle), n = Double(count)
        switch (s0, s1) {
        case let (a?, b?) where a == b:
            return (a, 1)
        case let (a?, b?):
            if frame < middle { return (a, (m - j) / m) }
            if frame == middle { return (a, 0) }
            return (b, (j - m) / (n - m))
        case let (a?, nil):
            return (a, 1)
        case let (nil, b?):
            return (b, 1)
        case (nil, nil):
            return previous.map { ($0, 1) }
        }
    }
}
