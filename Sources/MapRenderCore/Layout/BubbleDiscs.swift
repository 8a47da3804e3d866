import Foundation

/// The drawn bubbles as discs, for plain labels: an obstacle shaped like the bubble (a label may sit
/// in the corner of a bubble's bounding square), the positions that touch a bubble, and the test
/// that keeps a bubble's name unambiguous (nearer its own bubble than any other bubble or pin).
/// The first `bubbles` discs are bubbles; any after them are the heads of pins and large markers,
/// which count for ambiguity only (they are obstacles elsewhere, as their whole boxes).
///
/// ```swift
/// let discs = BubbleDiscs(x: [100, 160], y: [100, 100], r: [20, 20])
/// let box = discs.box(.right, of: 0, size: TextSize(width: 60, height: 14), gap: 3)
/// discs.intersects(box)                                   // true: it reaches the second bubble
/// discs.isUnambiguous(box, own: 0, margin: 6)             // false
/// ```
///
/// - Complexity: bubbles bucketed in a grid of `cell` px; a query visits the cells a box (grown by
///   the largest radius and the margin) covers, so it costs O(nearby bubbles), not O(bubbles).
struct BubbleDiscs {
    /// Centres and radii (CSS px); a radius includes half the bubble's outline.
    let x: [Double], y: [Double], r: [Double]
    /// Discs before this index are bubbles.
    let bubbles: Int
    private let cell: Double
    private let columns: Int, rows: Int
    private var buckets: [[Int32]]
    private let maxR: Double

    init(x: [Double], y: [Double], r: [Double], bubbles: Int? = nil, cell: Double = 64) {
        self.x = x; self.y = y; self.r = r; self.cell = cell
        self.bubbles = bubbles ?? x.count
        maxR = r.max() ?? 0
        let finite = x.indices.filter { x[$0].isFinite && y[$0].isFinite && r[$0].isFinite }
        let minX = finite.map { x[$0] }.min() ?? 0, maxX = finite.map { x[$0] }.max() ?? 0
        let minY = finite.map { y[$0] }.min() ?? 0, maxY = finite.map { y[$0] }.max() ?? 0
        origin = (minX, minY)
        columns = max(1, min(4096, Int(((maxX - minX) / cell).rounded(.down)) + 1))
        rows = max(1, min(4096, Int(((maxY - minY) / cell).rounded(.down)) + 1))
        buckets = [[Int32]](repeating: [], count: columns * rows)
        for i in finite { buckets[bucket(x[i], y[i])].append(Int32(i)) }
    }

    private let origin: (x: Double, y: Double)

    private func column(_ v: Double) -> Int { min(max(Int(((v - origin.x) / cell).rounded(.down)), 0), columns - 1) }
    private func row(_ v: Double) -> Int { min(max(Int(((v - origin.y) / cell).rounded(.down)), 0), rows - 1) }
    private func bucket(_ px: Double, _ py: Double) -> Int { row(py) * columns + column(px) }

    var isEmpty: Bool { x.isEmpty }

    /// How far the box lies from disc `i`'s edge (0 when they touch or overlap).
    func gap(_ i: Int, _ b: Rect) -> Double {
        let nx = min(max(x[i], b.x), b.maxX), ny = min(max(y[i], b.y), b.maxY)
        return max(0, hypot(x[i] - nx, y[i] - ny) - r[i])
    }

    /// Calls `body` with each disc whose centre lies within `reach` of the box (a superset of the
    /// discs within `reach - maxR` of it).
    private func near(_ b: Rect, reach: Double, _ body: (Int) -> Bool) -> Bool {
        guard !x.isEmpty else { return true }
        let c0 = column(b.x - reach), c1 = column(b.maxX + reach)
        let r0 = row(b.y - reach), r1 = row(b.maxY + reach)
        for rr in r0...r1 {
            for cc in c0...c1 {
                for i in buckets[rr * columns + cc] where !body(Int(i)) { return false }
            }
        }
        return true
    }

    /// Whether the box shares any point with a disc (touching at a single point does not count).
    func intersects(_ b: Rect) -> Bool {
        !near(b, reach: maxR) { i in
            guard i < bubbles else { return true }
            let nx = min(max(x[i], b.x), b.maxX), ny = min(max(y[i], b.y), b.maxY)
            let dx = x[i] - nx, dy = y[i] - ny
            return dx * dx + dy * dy >= r[i] * r[i]
        }
    }

    /// Whether a name at `b` reads as the name of bubble `own`: every other bubble is at least
    /// `margin` px farther from the box than `own` is. Unless `centred` (the box sits centred on
    /// one side of its bubble, where a reader looks for the name), every other bubble is also
    /// farther from the box's centre: a name touching its bubble at one corner but lying across
    /// another's top ("Moscow +971" over the 7.5k bubble) reads as the other's.
    func isUnambiguous(_ b: Rect, own: Int, margin: Double, centred: Bool = false) -> Bool {
        let limit = gap(own, b) + margin
        let cx = b.x + b.width / 2, cy = b.y + b.height / 2
        func centreGap(_ i: Int) -> Double { hypot(x[i] - cx, y[i] - cy) - r[i] }
        let ownCentre = centred ? -Double.infinity : centreGap(own)
        return near(b, reach: max(limit, ownCentre) + maxR) { i in
            i == own || (gap(i, b) >= limit && (centred || centreGap(i) > ownCentre))
        }
    }

    /// The boxes a label of `size` tries at `side` of disc `i`, best first: `box(_:of:size:gap:)`,
    /// then, beside or over and under the bubble, the same box slid along the bubble's edge by a
    /// third of its length each way (a label still touches the bubble while the bubble's centre
    /// line crosses it).
    func boxes(_ side: LabelSide, of i: Int, size: TextSize, gap: Double) -> [Rect] {
        let b = box(side, of: i, size: size, gap: gap)
        switch side {
        case .right, .left:
            let s = size.height / 3
            return [b, Rect(x: b.x, y: b.y - s, width: b.width, height: b.height),
                    Rect(x: b.x, y: b.y + s, width: b.width, height: b.height)]
        case .above, .below:
            let s = size.width / 3
            return [b, Rect(x: b.x + s, y: b.y, width: b.width, height: b.height),
                    Rect(x: b.x - s, y: b.y, width: b.width, height: b.height)]
        case .topRight, .topLeft, .bottomRight, .bottomLeft:
            return [b]
        }
    }

    /// The box of a label of `size` at `side` of disc `i`, `gap` px from its edge: right, left,
    /// above and below centred on the bubble; the diagonals with their inner corner on the bubble's
    /// 45° line, so every position touches the bubble (a square's corners would leave the label
    /// 0.4 radii away).
    func box(_ side: LabelSide, of i: Int, size: TextSize, gap: Double) -> Rect {
        let cx = x[i], cy = y[i], d = r[i] + gap, w = size.width, h = size.height
        let q = d / 2.squareRoot()
        switch side {
        case .right: return Rect(x: cx + d, y: cy - h / 2, width: w, height: h)
        case .left: return Rect(x: cx - d - w, y: cy - h / 2, width: w, height: h)
        case .above: return Rect(x: cx - w / 2, y: cy - d - h, width: w, height: h)
        case .below: return Rect(x: cx - w / 2, y: cy + d, width: w, height: h)
        case .topRight: return Rect(x: cx + q, y: cy - q - h, width: w, height: h)
        case .topLeft: return Rect(x: cx - q - w, y: cy - q - h, width: w, height: h)
        case .bottomRight: return Rect(x: cx + q, y: cy + q, width: w, height: h)
        case .bottomLeft: return Rect(x: cx - q - w, y: cy + q, width: w, height: h)
        }
    }
}
