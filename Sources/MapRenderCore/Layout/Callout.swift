/// A callout: text on a rounded box with a triangular pointer whose tip touches a pin.
///
/// ```swift
/// let text = measurer.measure(wrapped, font: font)      // the caller wraps at its max width
/// if let c = Callout.place(anchor: (headX, pinTop), pin: pinBox, text: text, index: &index) {
///     draw(roundedBox: c.box, radius: c.cornerRadius, pointer: c.pointer, textAt: c.textOrigin)
/// }
/// ```
///
/// Sides are tried in `options.sides` order (above, below, right, left), each checked with the
/// `CollisionIndex` like a label. On each side the pointer's tip is the anchor moved out to the pin
/// box's edge on that side (the anchor itself when it already lies there, e.g. the pin's top for
/// `above`, or when there is no pin box), so neither box nor pointer ever covers the pin. The box
/// is centred on the tip, then slid along it to stay inside the index's bounds as far as the
/// pointer's base can stay on the box's straight edge. When every side's centred box is blocked,
/// the sides are tried again in order, each with its box slid as far as it goes one way, then the
/// other (the pointer at the end of the straight edge): a few pixels of a neighbour's pin or
/// callout no longer drop a callout that has room beside them (London among Dublin, Amsterdam,
/// Brussels and Paris at 700x480 lost its callout on every centred side).
public enum Callout {
    public enum Side: UInt8, CaseIterable, Sendable {
        case above, below, right, left

        /// A label's side as a callout's: the four a callout has (an animation frame's callout
        /// tries the previous frame's side first); nil for a corner.
        public init?(_ side: LabelSide) {
            switch side {
            case .above: self = .above
            case .below: self = .below
            case .right: self = .right
            case .left: self = .left
            case .topRight, .topLeft, .bottomRight, .bottomLeft: return nil
            }
        }
    }

    public struct Options: Sendable, Equatable {
        /// Space between the box's edge and the text, CSS px.
        public var padding: Double = 6
        /// Box corner radius, CSS px (clamped to half the box's shorter side).
        public var cornerRadius: Double = 4
        /// From the box's edge to the pointer's tip, CSS px.
        public var pointerLength: Double = 8
        /// Width of the pointer's base, CSS px (clamped to the box's straight edge).
        public var pointerWidth: Double = 12
        /// Sides to try, in order.
        public var sides: [Side] = Side.allCases
        /// Take the first side (or the previous one) without asking the index.
        public var allowOverlap = false

        public init() {}
    }

    /// The geometry of a callout on `side`.
    /// - Parameters:
    ///   - anchor: the point the pointer reaches for (a pin's top or head centre, a circle's centre).
    ///   - pin: the pin's box, which the callout must not cover; nil for a bare point.
    ///   - text: the measured (wrapped) text.
    ///   - bounds: slide the box to stay inside it if possible; nil: always centred on the tip.
    ///   - shift: 0 centres the box on the tip; -1 and 1 slide it as far as the pointer's base can
    ///     go towards the box's end, left or up (-1) and right or down (1), before `bounds`.
    public static func geometry(side: Side, anchor: (x: Double, y: Double), pin: Rect?, text: TextSize,
                                bounds: Rect? = nil, options: Options = Options(), shift: Double = 0) -> CalloutPlacement {
        let pad = max(options.padding, 0)
        let w = max(text.width, 0) + 2 * pad, h = max(text.height, 0) + 2 * pad
        let radius = min(max(options.cornerRadius, 0), w / 2, h / 2)
        let length = max(options.pointerLength, 0)
        let tip = self.tip(side: side, anchor: anchor, pin: pin)
        let box: Rect
        let pointer: [(Double, Double)]
        switch side {
        case .above, .below:
            let half = min(max(options.pointerWidth, 0), w - 2 * radius) / 2
            let x = slide(centredAt: tip.x, length: w, margin: radius + half,
                          within: bounds.map { ($0.x, $0.maxX) }, shift: shift)
            let y = side == .above ? tip.y - length - h : tip.y + length
            box = Rect(x: x, y: y, width: w, height: h)
            let baseY = side == .above ? box.maxY : box.y
            pointer = [(tip.x - half, baseY), (tip.x, tip.y), (tip.x + half, baseY)]
        case .right, .left:
            let half = min(max(options.pointerWidth, 0), h - 2 * radius) / 2
            let y = slide(centredAt: tip.y, length: h, margin: radius + half,
                          within: bounds.map { ($0.y, $0.maxY) }, shift: shift)
            let x = side == .right ? tip.x + length : tip.x - length - w
            box = Rect(x: x, y: y, width: w, height: h)
            let baseX = side == .right ? box.x : box.maxX
            pointer = [(baseX, tip.y - half), (tip.x, tip.y), (baseX, tip.y + half)]
        }
        return CalloutPlacement(side: side, box: box, pointer: pointer,
                                textOrigin: (box.x + pad, box.y + pad), cornerRadius: radius)
    }

    /// The first side whose box and pointer fit in `index`, centred, else slid (see above); the
    /// previous side, if given, first, centred and then slid either way (an animation frame's
    /// callout stays on its side while there is room on it); inserts them and returns the
    /// callout, or returns nil when every side is blocked.
    /// The pin should already be in the index (as an obstacle for others), or in `obstacles`, which
    /// holds the fixed ones when given (the index then only the callouts placed); it never blocks
    /// its own callout.
    public static func place(anchor: (x: Double, y: Double), pin: Rect?, text: TextSize,
                             index: inout CollisionIndex, obstacles: FixedObstacles? = nil, options: Options = Options(),
                             previous: Side? = nil) -> CalloutPlacement? {
        var sides = options.sides
        var first: [(Side, Double)] = []
        if let p = previous {
            sides.removeAll { $0 == p }
            first = options.allowOverlap ? [(p, 0)] : [(p, 0), (p, -1), (p, 1)]
        }
        let tries = first + sides.map { ($0, 0.0) } + (options.allowOverlap ? [] : sides.flatMap { [($0, -1.0), ($0, 1.0)] })
        for (side, shift) in tries {
            let c = geometry(side: side, anchor: anchor, pin: pin, text: text, bounds: index.bounds,
                             options: options, shift: shift)
            let pointerBox = c.pointerBounds
            if options.allowOverlap || fits(c.box, pointerBox, index: index, obstacles: obstacles) {
                index.insert(c.box)
                index.insert(pointerBox)
                return c
            }
        }
        return nil
    }

    /// The tip of the pointer on `side`: the anchor moved out to the pin box's edge on that side
    /// (the anchor itself when it already lies there, or without a pin box).
    private static func tip(side: Side, anchor: (x: Double, y: Double), pin: Rect?) -> (x: Double, y: Double) {
        var tip = anchor
        if let p = pin {
            switch side {
            case .above: tip.y = min(anchor.y, p.y)
            case .below: tip.y = max(anchor.y, p.maxY)
            case .right: tip.x = max(anchor.x, p.maxX)
            case .left: tip.x = min(anchor.x, p.x)
            }
        }
        return tip
    }

    /// Whether a callout for the pin could be placed at all, before its text is measured: whether
    /// some side `place` would try (`previous` too) has room for `probe`, a rect within the
    /// pointer's bounds of every callout on that side. Every try asks for its pointer's bounds,
    /// so where this says no, `place` finds nothing.
    /// (Measuring the text of each of 100k pins first took most of the callouts' layout, most of
    /// them in a crowd where no callout fits.)
    public static func mightPlace(anchor: (x: Double, y: Double), pin: Rect?, index: CollisionIndex,
                                  obstacles: FixedObstacles? = nil, options: Options = Options(),
                                  previous: Side? = nil) -> Bool {
        guard !options.allowOverlap else { return true }
        for side in options.sides where hasRoom(for: side, anchor: anchor, pin: pin, index: index, obstacles: obstacles, options: options) {
            return true
        }
        if let previous { return hasRoom(for: previous, anchor: anchor, pin: pin, index: index, obstacles: obstacles, options: options) }
        return false
    }

    /// Whether a callout's box and pointer bounds are inside the index's bounds, clear of the
    /// obstacles and of the callouts placed: the bounds first, which refuse a box beyond the image
    /// at once, where the obstacles would ask their exact index; then the obstacles' raster, which
    /// refuses most boxes on a dense map in a few reads; then the callouts placed.
    private static func fits(_ box: Rect, _ pointer: Rect, index: CollisionIndex, obstacles: FixedObstacles?) -> Bool {
        if let b = index.bounds, !(b.contains(box) && b.contains(pointer)) { return false }
        if let obstacles, !(obstacles.isFree(box) && obstacles.isFree(pointer)) { return false }
        return index.canPlace(box) && index.canPlace(pointer)
    }

    /// Whether `side` has room for its `probe`.
    private static func hasRoom(for side: Side, anchor: (x: Double, y: Double), pin: Rect?, index: CollisionIndex,
                                obstacles: FixedObstacles?, options: Options) -> Bool {
        guard let p = probe(side: side, anchor: anchor, pin: pin, options: options) else { return true }
        if let b = index.bounds, !b.contains(p) { return false }
        if let obstacles, !obstacles.isFree(p) { return false }
        return index.canPlace(p)
    }

    /// Within the bounds of every callout's pointer on `side`: each reaches from the same tip to its box's edge,
    /// `pointerLength` away, and is at least as wide as the smallest callout's (no text: its box
    /// the padding alone, the corners rounded at most to half of it). A millionth of a pixel inside
    /// it at each end and side, so that rounding cannot leave it outside (coordinates below 1e9 px,
    /// where a Double's step is far below a millionth).
    /// Computed without making the pointer's points (an array each: for a million pins, four
    /// sides each, most of `mightPlace`'s time).
    /// nil for a pointer too short to hold such a rect (`pointerLength` below 1e-5).
    static func probe(side: Side, anchor: (x: Double, y: Double), pin: Rect?, options: Options) -> Rect? {
        let pad = max(options.padding, 0), radius = min(max(options.cornerRadius, 0), pad)
        let half = max(0, min(max(options.pointerWidth, 0), 2 * pad - 2 * radius) / 2 - 1e-6)
        // From a millionth past the tip to a millionth short of the base.
        let length = max(options.pointerLength, 0), reach = length - 2e-6
        guard length >= 1e-5 else { return nil }
        let t = tip(side: side, anchor: anchor, pin: pin)
        switch side {
        case .above: return Rect(x: t.x - half, y: t.y - length + 1e-6, width: 2 * half, height: reach)
        case .below: return Rect(x: t.x - half, y: t.y + 1e-6, width: 2 * half, height: reach)
        case .right: return Rect(x: t.x + 1e-6, y: t.y - half, width: reach, height: 2 * half)
        case .left: return Rect(x: t.x - length + 1e-6, y: t.y - half, width: reach, height: 2 * half)
        }
    }

    /// The start of a span of `length` centred at `c` (`shift` 0; -1 and 1: as far towards its
    /// start or end as `margin` allows), slid to fit in `within` while `c` stays at least `margin`
    /// inside the span.
    private static func slide(centredAt c: Double, length: Double, margin: Double,
                              within: (Double, Double)?, shift: Double = 0) -> Double {
        var start = c - length / 2 + shift * max(0, length / 2 - margin)
        if let (lo, hi) = within {
            if start + length > hi { start = hi - length }
            if start < lo { start = lo }
        }
        // The pointer's base stays on the straight part of the edge.
        return min(max(start, c + margin - length), c - margin)
    }
}

/// Where a callout goes: its box, its pointer and where its text starts (CSS px).
public struct CalloutPlacement: Sendable {
    public var side: Callout.Side
    /// The rounded box (padding included, pointer excluded).
    public var box: Rect
    /// Three points: base start, tip, base end. The base lies on the box's edge; for above/below the
    /// start is the left base point, for right/left the upper one.
    public var pointer: [(Double, Double)]
    /// Top-left of the text's logical box.
    public var textOrigin: (x: Double, y: Double)
    /// The corner radius to draw (the option's, clamped to the box).
    public var cornerRadius: Double

    public init(side: Callout.Side, box: Rect, pointer: [(Double, Double)], textOrigin: (x: Double, y: Double),
                cornerRadius: Double) {
        self.side = side; self.box = box; self.pointer = pointer; self.textOrigin = textOrigin
        self.cornerRadius = cornerRadius
    }

    /// The pointer tip.
    public var tip: (x: Double, y: Double) { (pointer[1].0, pointer[1].1) }

    /// The pointer's bounding box (from its base on the box edge to its tip).
    public var pointerBounds: Rect {
        let xs = pointer.map(\.0), ys = pointer.map(\.1)
        let x0 = xs.min()!, y0 = ys.min()!
        return Rect(x: x0, y: y0, width: xs.max()! - x0, height: ys.max()! - y0)
    }
}

extension CalloutPlacement: Equatable {
    public static func == (a: CalloutPlacement, b: CalloutPlacement) -> Bool {
        a.side == b.side && a.box == b.box && a.cornerRadius == b.cornerRadius
            && a.textOrigin == b.textOrigin
            && a.pointer.count == b.pointer.count && zip(a.pointer, b.pointer).allSatisfy { $0 == $1 }
    }
}

extension LabelSide {
    /// A callout's side as a label's, kept between animation frames as a label's is.
    public init(_ side: Callout.Side) {
        switch side {
        case .above: self = .above
        case .below: self = .below
        case .right: self = .right
        case .left: self = .left
        }
    }
}
