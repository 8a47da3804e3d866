import Foundation

/// How a spread group's members are laid out around their shared position, from the roomiest to
/// the most compact. `SpreadFallback` takes the first that has room on the final view; a group
/// none of them fits is drawn as a bubble (or a small badge) with its count.
///
/// - `planned`: `ColocatedSpreader`'s ring or spiral, spaced by the marker's diagonal (any two
///   markers clear each other in every direction).
/// - `tightRing`: a ring (groups of up to `tightRingMaximum`) as small as it can be with no two
///   marker boxes overlapping: boxes clear each other sideways or vertically, not diagonally.
/// - `packedSpiral`: the cells of a staggered lattice one marker box (plus a gap) apart, nearest to
///   the centre first, clockwise from the top within a ring: a spiral of touching markers (groups
///   of up to `packedSpiralMaximum`).
///
/// Every compact layout leaves the centre free (the true position keeps its dot) and may be moved
/// as a whole, legs and all, to lie inside the image (`shiftedInside`).
public enum SpreadLayout: UInt8, CaseIterable, Sendable {
    case planned, tightRing, packedSpiral

    /// Groups up to this size are tried on a tight ring.
    public static let tightRingMaximum = 12
    /// Groups up to this size are tried on a packed spiral (more pins than the default
    /// `--spread-max` cover a large part of the map, uncountable: they are drawn as a bubble).
    public static let packedSpiralMaximum = 50
    /// Space between two markers' boxes in the compact layouts, CSS px.
    public static let gap = 1.0
    /// Offsets (CSS px) of `count` members from the shared position, in member order; nil when
    /// this layout is not tried for that many (`planned` is not computed here: the plan has it).
    /// - Parameter extent: the largest member symbol's extent.
    /// - Complexity: tight ring O(n² · steps) for n ≤ 12; packed spiral O(n log n).
    public func offsets(count n: Int, extent e: EdgeInsets) -> [(dx: Double, dy: Double)]? {
        switch self {
        case .planned: return nil
        case .tightRing:
            guard n >= 2 && n <= Self.tightRingMaximum else { return nil }
            return Self.tightRing(count: n, width: e.left + e.right + Self.gap, height: e.top + e.bottom + Self.gap)
        case .packedSpiral:
            guard n <= Self.packedSpiralMaximum else { return nil }
            return Self.lattice(count: n, pitchX: e.left + e.right + Self.gap, pitchY: e.top + e.bottom + Self.gap,
                                staggered: true)
        }
    }

    /// n anchors on a circle from the top clockwise, with the smallest radius (in steps of 0.5 px)
    /// at which any two boxes of `width` × `height` (gap included) clear each other.
    static func tightRing(count n: Int, width w: Double, height h: Double) -> [(dx: Double, dy: Double)] {
        func ring(_ r: Double) -> [(dx: Double, dy: Double)] {
            (0..<n).map { i in
                let a = -Double.pi / 2 + 2 * Double.pi * Double(i) / Double(n)
                return (r * cos(a), r * sin(a))
            }
        }
        func clear(_ p: [(dx: Double, dy: Double)]) -> Bool {
            for i in p.indices { for j in p.indices where j > i {
                if abs(p[i].dx - p[j].dx) < w - 1e-9 && abs(p[i].dy - p[j].dy) < h - 1e-9 { return false }
            } }
            return true
        }
        // Neighbours at least the box's smaller side apart; at most the diagonal apart always clears.
        let chord = 2 * sin(Double.pi / Double(n))
        var r = (min(w, h) / chord * 2).rounded(.down) / 2
        let limit = (w * w + h * h).squareRoot() / chord
        while r < limit && !clear(ring(r)) { r += 0.5 }
        return ring(r)
    }

    /// The `count` cells nearest the centre of a lattice with the given pitches (every other row
    /// moved by half a pitch when `staggered`), the centre cell left out; ties by angle clockwise
    /// from the top, so the order is a spiral.
    static func lattice(count n: Int, pitchX px: Double, pitchY py: Double, staggered: Bool) -> [(dx: Double, dy: Double)] {
        guard n > 0 else { return [] }
        // Enough rings of cells for n plus the centre, with a margin for the lattice's aspect.
        let side = Int((Double(n + 1).squareRoot() * max(px / py, py / px).squareRoot()).rounded(.up)) + 2
        var cells: [(dx: Double, dy: Double, d: Double, a: Double)] = []
        for row in -side...side {
            for col in -side...side {
                if row == 0 && col == 0 { continue }
                let shift = staggered && row & 1 != 0 ? px / 2 : 0
                let dx = Double(col) * px + shift, dy = Double(row) * py
                // Angle clockwise from the top, in [0, 2π).
                var a = atan2(dx, -dy)
                if a < 0 { a += 2 * .pi }
                cells.append((dx, dy, (dx * dx + dy * dy).squareRoot(), a))
            }
        }
        cells.sort { abs($0.d - $1.d) > 1e-9 ? $0.d < $1.d : $0.a < $1.a }
        return cells.prefix(n).map { ($0.dx, $0.dy) }
    }

    /// The shift (dx, dy) that moves `box` (the whole layout) inside `image`, or nil when it is
    /// larger than the image. (0, 0) when it is inside already.
    static func shiftedInside(_ box: Rect, image: Rect) -> (dx: Double, dy: Double)? {
        guard box.width <= image.width, box.height <= image.height else { return nil }
        var dx = 0.0, dy = 0.0
        if box.x < image.x { dx = image.x - box.x } else if box.maxX > image.maxX { dx = image.maxX - box.maxX }
        if box.y < image.y { dy = image.y - box.y } else if box.maxY > image.maxY { dy = image.maxY - box.maxY }
        return (dx, dy)
    }
}
