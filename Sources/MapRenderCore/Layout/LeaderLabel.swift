/// A name set away from its dot with a thin leader line from the dot to the name, as a printed
/// atlas sets the names of a crowded coast out in the sea: the last resort of a point label on a
/// dense dot map whose eight sides are all taken (`LabelLayout.PlainPlacer.placeLeadered`).
///
/// ```swift
/// for c in LeaderLabel.candidates(around: dot, radius: 2, size: measured) {
///     if fits(c.box) && c.leaderBoxes.allSatisfy(fits) { place(c); break }
/// }
/// ```
///
/// Candidates: a ring of eight directions (east, west, north, south, then the diagonals, as a
/// label's sides go) at each of `distances` from the dot's centre, nearest ring first. The leader
/// runs from just outside the dot to a point `distance` away; the name's box touches that point
/// (`gap` px off) with the edge or corner that faces the dot: its left middle to the east, its
/// bottom-left corner to the north-east, and so on. The leader is in the collision index as small
/// squares along it (`leaderBoxes`), so no name and no other leader crosses it.
public enum LeaderLabel {
    /// From the dot's centre to the leader's end, CSS px: past the sides a label has (3 px off
    /// the dot) up to about four names' heights further. (Rings at 80 and 100 px named no more
    /// of the 50 largest places on the world dot map, and drew leaders across half a sea.)
    public static let distances: [Double] = [16, 24, 34, 46, 60]
    /// The eight directions, in the order a label's sides are tried: (dx, dy) unit steps, y down.
    public static let directions: [(x: Double, y: Double)] = {
        let d = 0.5.squareRoot()
        return [(1, 0), (-1, 0), (0, -1), (0, 1), (d, -d), (-d, -d), (d, d), (-d, d)]
    }()
    /// Between the leader's end and the name's box, and between the dot and the leader's start, CSS px.
    public static let gap = 1.0
    /// The leader's stroke, CSS px: a hairline, as an atlas draws it.
    public static let lineWidth = 0.75
    /// The side of the squares that stand for the leader in the collision index, CSS px: the line
    /// and a clear margin about it, so that no name's halo touches it.
    public static let boxSide = 3.0

    /// One place a leadered name may take.
    public struct Candidate: Sendable, Equatable {
        /// The name's box (its halo's reserve included).
        public var box: Rect
        public var leader: LeaderLine
        /// Ring (0: nearest) and direction (index in `directions`).
        public var ring: Int
        public var direction: Int

        /// Squares of `boxSide` along the leader, at most `boxSide` / 2 apart, both ends included.
        public var leaderBoxes: [Rect] { LeaderLabel.boxes(along: leader) }
    }

    /// Every candidate for a name of `size` about a dot centred at `centre` of radius `radius`,
    /// nearest ring first, each ring in `directions` order.
    public static func candidates(around centre: (x: Double, y: Double), radius: Double, size: TextSize) -> [Candidate] {
        var out: [Candidate] = []
        out.reserveCapacity(distances.count * directions.count)
        for (ring, d) in distances.enumerated() {
            for (k, u) in directions.enumerated() {
                out.append(candidate(around: centre, radius: radius, size: size, distance: d, direction: u, ring: ring, index: k))
            }
        }
        return out
    }

    static func candidate(around c: (x: Double, y: Double), radius: Double, size: TextSize, distance: Double,
                          direction u: (x: Double, y: Double), ring: Int, index: Int) -> Candidate {
        let start = radius + gap
        let end = (x: c.x + u.x * distance, y: c.y + u.y * distance)
        let w = size.width, h = size.height
        // The box's edge or corner facing the dot touches the end, `gap` off it.
        let x: Double = u.x > 0.1 ? end.x + gap : u.x < -0.1 ? end.x - gap - w : end.x - w / 2
        let y: Double = u.y > 0.1 ? end.y + gap : u.y < -0.1 ? end.y - gap - h : end.y - h / 2
        let line = LeaderLine(x0: c.x + u.x * start, y0: c.y + u.y * start, x1: end.x, y1: end.y, width: lineWidth)
        return Candidate(box: Rect(x: x, y: y, width: w, height: h), leader: line, ring: ring, direction: index)
    }

    /// Squares of `boxSide` centred along the leader, at most half a side apart, both ends included.
    public static func boxes(along l: LeaderLine) -> [Rect] {
        let dx = l.x1 - l.x0, dy = l.y1 - l.y0
        let length = (dx * dx + dy * dy).squareRoot()
        let steps = max(1, Int((length / (boxSide / 2)).rounded(.up)))
        return (0...steps).map { k in
            let t = Double(k) / Double(steps)
            return Rect(x: l.x0 + t * dx - boxSide / 2, y: l.y0 + t * dy - boxSide / 2, width: boxSide, height: boxSide)
        }
    }
}
