import Foundation

/// The pole of inaccessibility of a polygon: the point inside it farthest from its outline, where
/// a polygon's label reads best (a centroid may lie outside a crescent or in a bay).
///
/// ```swift
/// let square: [[Double]] = [[0, 0, 10, 0, 10, 10, 0, 10, 0, 0]]   // rings as x, y, x, y, ...
/// let p = Polylabel.pole(of: square, precision: 1)                 // (5, 5), distance 5
/// ```
///
/// Mapbox's polylabel algorithm (Vladimir Agafonkin, 2016; the reference implementation is
/// github.com/mapbox/polylabel, read for the algorithm, not copied): cover the bounding box with
/// square cells as large as its shorter side; a cell's centre lies `d` from the outline (negative
/// outside), so no point in the cell can be farther than `d + h√2` (`h` its half side). Cells are
/// taken best bound first from a priority queue; the best centre so far is kept, and a cell whose
/// bound cannot beat it by more than `precision` is not split further, else it is split in four.
/// The first guesses are the area centroid of the outer ring and the box's centre.
///
/// Rings are given as flat `x, y` pairs, the first the outer ring, the rest holes (which side a
/// point is on is decided even-odd over all of them, so the orientation does not matter).
///
/// - Complexity: O(n) per cell visited (n vertices); the number of cells visited grows with
///   log(size / precision) for a compact polygon.
public enum Polylabel {
    public struct Pole: Sendable, Equatable {
        public var x: Double, y: Double
        /// Distance from the pole to the nearest point of the outline (0 for a degenerate polygon).
        public var distance: Double
    }

    /// The pole of `rings` found to within `precision` (the units of the coordinates).
    /// nil when the outer ring has no vertex or a coordinate is not finite.
    public static func pole(of rings: [[Double]], precision: Double = 1) -> Pole? {
        guard let outer = rings.first, outer.count >= 2 else { return nil }
        var minX = Double.infinity, minY = Double.infinity, maxX = -Double.infinity, maxY = -Double.infinity
        var k = 0
        while k + 1 < outer.count {
            let x = outer[k], y = outer[k + 1]
            guard x.isFinite, y.isFinite else { return nil }
            minX = min(minX, x); maxX = max(maxX, x); minY = min(minY, y); maxY = max(maxY, y)
            k += 2
        }
        let width = maxX - minX, height = maxY - minY
        let cellSize = min(width, height)
        // A polygon without area in one direction: nothing is inside it.
        guard cellSize > 0 else { return Pole(x: minX, y: minY, distance: 0) }
        let precision = precision > 0 && precision.isFinite ? precision : 1

        var queue = CellQueue()
        let h = cellSize / 2
        var x = minX
        while x < maxX {
            var y = minY
            while y < maxY {
                queue.push(cell(x + h, y + h, h, rings))
                y += cellSize
            }
            x += cellSize
        }
        var best = centroidCell(rings)
        let boxCell = cell(minX + width / 2, minY + height / 2, 0, rings)
        if boxCell.d > best.d { best = boxCell }
        // A bound on the work: a pathological ring (a spiral of a million vertices) cannot run away.
        var visits = 0
        while let c = queue.pop(), visits < 100_000 {
            visits += 1
            if c.d > best.d { best = c }
            if c.max - best.d <= precision { continue }
            let q = c.h / 2
            queue.push(cell(c.x - q, c.y - q, q, rings))
            queue.push(cell(c.x + q, c.y - q, q, rings))
            queue.push(cell(c.x - q, c.y + q, q, rings))
            queue.push(cell(c.x + q, c.y + q, q, rings))
        }
        return Pole(x: best.x, y: best.y, distance: best.d)
    }

    /// Signed distance from (x, y) to the outline of `rings`: positive inside (even-odd), negative outside.
    public static func signedDistance(x: Double, y: Double, rings: [[Double]]) -> Double {
        var inside = false
        var minSq = Double.infinity
        for ring in rings {
            let n = ring.count / 2
            guard n > 0 else { continue }
            var j = n - 1
            for i in 0..<n {
                let ax = ring[2 * i], ay = ring[2 * i + 1], bx = ring[2 * j], by = ring[2 * j + 1]
                if (ay > y) != (by > y) && x < (bx - ax) * (y - ay) / (by - ay) + ax { inside.toggle() }
                minSq = min(minSq, segmentDistanceSquared(x, y, ax, ay, bx, by))
                j = i
            }
        }
        let d = minSq.isFinite ? minSq.squareRoot() : 0
        return inside ? d : -d
    }

    /// Whether the rectangle lies wholly inside `rings` (inside the outer ring, outside every
    /// hole): its centre is inside and no edge of any ring enters it.
    public static func contains(_ r: Rect, rings: [[Double]]) -> Bool {
        guard signedDistance(x: r.x + r.width / 2, y: r.y + r.height / 2, rings: rings) > 0 else { return false }
        for ring in rings {
            let n = ring.count / 2
            guard n > 1 else { continue }
            var j = n - 1
            for i in 0..<n {
                if segmentEntersRect(ring[2 * j], ring[2 * j + 1], ring[2 * i], ring[2 * i + 1], r) { return false }
                j = i
            }
        }
        return true
    }

    /// The area of a ring given as flat x, y pairs (positive or negative by its orientation).
    public static func signedArea(_ ring: [Double]) -> Double {
        let n = ring.count / 2
        guard n >= 3 else { return 0 }
        var a = 0.0
        var j = n - 1
        for i in 0..<n {
            a += (ring[2 * j] - ring[2 * i]) * (ring[2 * i + 1] + ring[2 * j + 1])
            j = i
        }
        return a / 2
    }

    // MARK: - Private

    struct Cell {
        var x: Double, y: Double
        /// Half the cell's side.
        var h: Double
        /// Distance from the centre to the outline (negative outside).
        var d: Double
        /// The best distance any point in the cell can have.
        var max: Double
    }

    static func cell(_ x: Double, _ y: Double, _ h: Double, _ rings: [[Double]]) -> Cell {
        let d = signedDistance(x: x, y: y, rings: rings)
        return Cell(x: x, y: y, h: h, d: d, max: d + h * 2.0.squareRoot())
    }

    /// A cell at the area centroid of the outer ring (its first vertex when it has no area).
    static func centroidCell(_ rings: [[Double]]) -> Cell {
        let ring = rings[0]
        let n = ring.count / 2
        var area = 0.0, cx = 0.0, cy = 0.0
        var j = n - 1
        for i in 0..<n {
            let ax = ring[2 * i], ay = ring[2 * i + 1], bx = ring[2 * j], by = ring[2 * j + 1]
            let f = ax * by - bx * ay
            cx += (ax + bx) * f
            cy += (ay + by) * f
            area += f * 3
            j = i
        }
        if area == 0 { return cell(ring[0], ring[1], 0, rings) }
        return cell(cx / area, cy / area, 0, rings)
    }

    static func segmentDistanceSquared(_ px: Double, _ py: Double, _ ax: Double, _ ay: Double, _ bx: Double, _ by: Double) -> Double {
        var x = ax, y = ay
        var dx = bx - x, dy = by - y
        if dx != 0 || dy != 0 {
            let t = ((px - x) * dx + (py - y) * dy) / (dx * dx + dy * dy)
            if t > 1 { x = bx; y = by } else if t > 0 { x += dx * t; y += dy * t }
        }
        dx = px - x; dy = py - y
        return dx * dx + dy * dy
    }

    /// Whether segment a–b has a point strictly inside `r` (Liang–Barsky clipping).
    static func segmentEntersRect(_ ax: Double, _ ay: Double, _ bx: Double, _ by: Double, _ r: Rect) -> Bool {
        var t0 = 0.0, t1 = 1.0
        let dx = bx - ax, dy = by - ay
        for (p, q) in [(-dx, ax - r.x), (dx, r.maxX - ax), (-dy, ay - r.y), (dy, r.maxY - ay)] {
            if p == 0 {
                if q <= 0 { return false }
            } else {
                let t = q / p
                if p < 0 { if t > t1 { return false }; t0 = Swift.max(t0, t) } else { if t < t0 { return false }; t1 = Swift.min(t1, t) }
            }
        }
        return t0 < t1
    }

    /// A max-heap of cells by their bound; ties in insertion order would not matter to the result's
    /// distance, and the heap's order is fixed, so the result is the same on every run.
    struct CellQueue {
        private var heap: [Cell] = []
        mutating func push(_ c: Cell) {
            heap.append(c)
            var i = heap.count - 1
            while i > 0 {
                let parent = (i - 1) / 2
                guard heap[parent].max < heap[i].max else { break }
                heap.swapAt(parent, i)
                i = parent
            }
        }
        mutating func pop() -> Cell? {
            guard let top = heap.first else { return nil }
            let last = heap.removeLast()
            if !heap.isEmpty {
                heap[0] = last
                var i = 0
                while true {
                    let l = 2 * i + 1, r = l + 1
                    var m = i
                    if l < heap.count && heap[l].max > heap[m].max { m = l }
                    if r < heap.count && heap[r].max > heap[m].max { m = r }
                    if m == i { break }
                    heap.swapAt(i, m)
                    i = m
                }
            }
            return top
        }
    }
}
