/// Places point labels without collisions: greedy, highest priority first, each label at the first
/// of eight positions around its mark that is free, or dropped.
///
/// ```swift
/// let labels = [LabelPlacer.Label(markBox: pin, anchorBox: head, size: measured, priority: population)]
/// let result = LabelPlacer.place(labels, obstacles: otherMarks, width: 800, height: 600)
/// for (i, p) in result.placements.enumerated() { if let p { draw(text[i], at: p.box) } }
/// ```
///
/// Every mark box (and every extra obstacle: markers without a label, bubbles, spread legs) is
/// inserted into a `CollisionIndex` before any label, so a label never covers a mark. A label's
/// positions all lie outside its own mark by construction (see `box(_:for:gap:)`), so its own mark
/// never blocks it, while neighbouring marks do.
///
/// Order: priority, higher first; equal priorities (and NaN, which counts as lowest) keep input
/// order, so the same input always gives the same output.
///
/// - Complexity: O(n log n) for the priority sort, plus up to 8 `CollisionIndex.canPlace` per label.
public enum LabelPlacer {
    /// Where a label sits around its mark (`LabelSide`, chosen in planning as a hint).
    public typealias Position = LabelSide

    /// One label to place.
    public struct Label: Sendable, Equatable {
        /// The drawn mark's pixel box (whole pin, bubble, circle): labels stay outside it.
        public var markBox: Rect
        /// What the label hugs, inside or on the mark (a pin's head, a circle itself).
        public var anchorBox: Rect
        /// The measured text, CSS px.
        public var size: TextSize
        /// Higher is placed first.
        public var priority: Double

        public init(markBox: Rect, anchorBox: Rect, size: TextSize, priority: Double) {
            self.markBox = markBox; self.anchorBox = anchorBox; self.size = size; self.priority = priority
        }
    }

    public struct Options: Sendable, Equatable {
        /// Space between the mark and its label, CSS px.
        public var gap: Double = 3
        /// Positions to try, in order.
        public var positions: [Position] = Position.allCases
        /// Place every label at its first position, colliding or not.
        public var allowOverlap = false
        /// The image edge is an obstacle: labels must lie wholly inside the image.
        public var keepInsideImage = true
        /// Grid cell side of the collision index, CSS px; nil: from the labels' mean size.
        public var cellSize: Double?

        public init() {}
    }

    /// Where a placed label went.
    public struct Placement: Sendable, Equatable {
        /// The label's box (top-left and measured size), CSS px.
        public var box: Rect
        public var position: Position
        public init(box: Rect, position: Position) { self.box = box; self.position = position }
    }

    public struct Result: Sendable, Equatable {
        /// Per input label: where it went, or nil if it was dropped.
        public var placements: [Placement?]
        public var placedCount: Int
        public var droppedCount: Int
        /// Input indices in the order they were placed (priority order).
        public var order: [Int]
    }

    /// Places `labels` on a `width` × `height` image.
    /// - Parameters:
    ///   - obstacles: boxes no label may cover besides the labels' own mark boxes (markers without a
    ///     label, bubbles, spread legs as thin rects).
    ///   - previous: per label index, the position it had before (the previous animation frame):
    ///     tried first, so a label keeps its place while that stays free.
    public static func place(_ labels: [Label], obstacles: [Rect] = [], width: Double, height: Double,
                             options: Options = Options(), previous: [Int: Position]? = nil) -> Result {
        var index = CollisionIndex(width: width, height: height,
                                   bounds: options.keepInsideImage ? Rect(x: 0, y: 0, width: width, height: height) : nil,
                                   cellSize: options.cellSize ?? suggestedCellSize(labels))
        index.reserveCapacity(2 * labels.count + obstacles.count)
        index.insert(contentsOf: obstacles)
        index.insert(contentsOf: labels.map(\.markBox))
        return place(labels, in: &index, options: options, previous: previous)
    }

    /// Places `labels` into an index that already holds every obstacle, the labels' mark boxes
    /// included; placed labels are added to it (so callouts or a later pass can continue).
    /// `options.cellSize` and `options.keepInsideImage` are the index's business here.
    public static func place(_ labels: [Label], in index: inout CollisionIndex,
                             options: Options = Options(), previous: [Int: Position]? = nil) -> Result {
        let order = priorityOrder(labels)
        var placements = [Placement?](repeating: nil, count: labels.count)
        var placed = 0
        let positions = options.positions
        for i in order {
            let label = labels[i]
            let hint = previous?[i]
            if options.allowOverlap {
                guard let p = hint ?? positions.first else { continue }
                let r = box(p, for: label, gap: options.gap)
                index.insert(r)
                placements[i] = Placement(box: r, position: p)
                placed += 1
                continue
            }
            if let p = hint {
                let r = box(p, for: label, gap: options.gap)
                if index.canPlace(r) {
                    index.insert(r)
                    placements[i] = Placement(box: r, position: p)
                    placed += 1
                    continue
                }
            }
            for p in positions where p != hint {
                let r = box(p, for: label, gap: options.gap)
                if index.canPlace(r) {
                    index.insert(r)
                    placements[i] = Placement(box: r, position: p)
                    placed += 1
                    break
                }
            }
        }
        return Result(placements: placements, placedCount: placed, droppedCount: labels.count - placed, order: order)
    }

    /// The box `label` would get at `position`. Every position lies outside the union of the mark
    /// and anchor boxes, `gap` px away from it on the side it faces (touching is not overlapping):
    /// right/left and the diagonals beside it, above/below over and under it.
    public static func box(_ position: Position, for label: Label, gap: Double) -> Rect {
        let a = label.anchorBox
        let own = union(label.markBox, a)
        let w = label.size.width, h = label.size.height
        let rightX = own.maxX + gap, leftX = own.x - gap - w
        let midX = a.x + a.width / 2 - w / 2, midY = a.y + a.height / 2 - h / 2
        switch position {
        case .right: return Rect(x: rightX, y: midY, width: w, height: h)
        case .left: return Rect(x: leftX, y: midY, width: w, height: h)
        case .above: return Rect(x: midX, y: own.y - gap - h, width: w, height: h)
        case .below: return Rect(x: midX, y: own.maxY + gap, width: w, height: h)
        case .topRight: return Rect(x: rightX, y: a.y - h, width: w, height: h)
        case .topLeft: return Rect(x: leftX, y: a.y - h, width: w, height: h)
        case .bottomRight: return Rect(x: rightX, y: a.maxY, width: w, height: h)
        case .bottomLeft: return Rect(x: leftX, y: a.maxY, width: w, height: h)
        }
    }

    /// A grid cell about the mean label's size, between 16 and 128 px.
    public static func suggestedCellSize(_ labels: [Label]) -> Double {
        guard !labels.isEmpty else { return 32 }
        var sum = 0.0, n = 0
        for l in labels where l.size.width.isFinite && l.size.height.isFinite {
            sum += (l.size.width + l.size.height) / 2
            n += 1
        }
        guard n > 0 else { return 32 }
        return min(max(sum / Double(n), 16), 128)
    }

    /// Input indices by priority, higher first; ties (and NaN, lowest) in input order.
    static func priorityOrder(_ labels: [Label]) -> [Int] {
        // Sorting (key, index) pairs keeps the comparisons in contiguous memory.
        var keyed = labels.indices.map { (key: labels[$0].priority.isNaN ? -Double.infinity : labels[$0].priority, index: $0) }
        keyed.sort { $0.key != $1.key ? $0.key > $1.key : $0.index < $1.index }
        return keyed.map(\.index)
    }

    private static func union(_ a: Rect, _ b: Rect) -> Rect {
        let x0 = min(a.x, b.x), y0 = min(a.y, b.y)
        return Rect(x: x0, y: y0, width: max(a.maxX, b.maxX) - x0, height: max(a.maxY, b.maxY) - y0)
    }
}
