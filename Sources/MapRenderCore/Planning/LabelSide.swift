/// Where a label sits around its mark, in the order they are tried.
public enum LabelSide: UInt8, CaseIterable, Sendable {
    /// Right of the mark, vertically centred on the anchor box.
    case right
    /// Left of the mark, vertically centred on the anchor box.
    case left
    /// Above the mark, horizontally centred on the anchor box.
    case above
    /// Below the mark, horizontally centred on the anchor box.
    case below
    /// Right of the mark, its bottom on the anchor box's top.
    case topRight
    /// Left of the mark, its bottom on the anchor box's top.
    case topLeft
    /// Right of the mark, its top on the anchor box's bottom.
    case bottomRight
    /// Left of the mark, its top on the anchor box's bottom.
    case bottomLeft
}

/// The sides labels and callouts took in a frame, or should try first in the next (an animation
/// keeps each one's side while it stays free): points' by point index, bubbles' by the index of
/// the point a bubble is named after (its representative). Kept apart: a point travelling into
/// a bubble is drawn, and labelled, beside the bubble named after it.
public struct LabelSides: Equatable, Sendable {
    public var points: [Int: LabelSide] = [:]
    public var bubbles: [Int: LabelSide] = [:]
    /// As hints: a label with a side here takes that side or is left out, never another side (an
    /// animation frame between keyframes: a label does not jump round its mark mid-transition).
    /// False: the side is tried first, then the others.
    public var only = false

    public init(points: [Int: LabelSide] = [:], bubbles: [Int: LabelSide] = [:]) {
        self.points = points
        self.bubbles = bubbles
    }

    public var isEmpty: Bool { points.isEmpty && bubbles.isEmpty }

    /// The side of the label of point `point`, or (`point` < 0) of the name of the bubble named
    /// after `representative`; nil when none is kept (or both are negative).
    public func side(point: Int, representative: Int) -> LabelSide? {
        point >= 0 ? points[point] : representative >= 0 ? bubbles[representative] : nil
    }

    /// Keeps `side` for the label of point `point`, or (`point` < 0) for the name of the bubble
    /// named after `representative` (nothing when both are negative).
    public mutating func set(_ side: LabelSide, point: Int, representative: Int) {
        if point >= 0 { points[point] = side } else if representative >= 0 { bubbles[representative] = side }
    }

    /// The same sides under other keys: `key(k)` for each key k (an animation's track keys for
    /// a frame's point indexes); `key` must not map two keys of one kind to one.
    public func rekeyed(_ key: (Int) -> Int) -> LabelSides {
        LabelSides(points: Dictionary(uniqueKeysWithValues: points.map { (key($0.key), $0.value) }),
                   bubbles: Dictionary(uniqueKeysWithValues: bubbles.map { (key($0.key), $0.value) }))
    }
}
