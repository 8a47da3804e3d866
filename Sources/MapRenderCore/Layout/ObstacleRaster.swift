/// Fixed obstacles (markers, bubbles, legs, decorations) as a pixel coverage image with a
/// summed-area table, so "is this box free of obstacles?" costs four reads, however dense the map.
///
/// A grid index slows down where a hundred thousand markers pile up (every query scans the boxes
/// in its cells); the raster does not. It is conservative: a pixel touched by an obstacle counts
/// as covered, so a label may be refused for a fraction of a pixel, never placed over a mark.
/// Labels, which are inserted one by one, stay in a `CollisionIndex`.
///
/// - Complexity: O(1) per obstacle added, O(width · height) to finish, O(1) per query.
public struct ObstacleRaster: Sendable {
    public let width: Int
    public let height: Int
    /// (width + 1) · (height + 1) cells: a difference grid while adding, then the summed-area table.
    private var table: [Int32]
    private var finished = false

    public init(width: Double, height: Double) {
        self.width = max(1, Int(width.rounded(.up)))
        self.height = max(1, Int(height.rounded(.up)))
        table = [Int32](repeating: 0, count: (self.width + 1) * (self.height + 1))
    }

    /// Marks every pixel the rectangle touches (clipped to the image).
    public mutating func add(_ r: Rect) {
        precondition(!finished, "add obstacles before querying")
        guard r.width > 0, r.height > 0, r.x.isFinite, r.y.isFinite, r.maxX.isFinite, r.maxY.isFinite else { return }
        // Clamped to the image as Doubles before converting (a coordinate beyond Int's range traps).
        let fw = Double(width), fh = Double(height)
        let x0 = Int(min(max(r.x, 0), fw).rounded(.down)), y0 = Int(min(max(r.y, 0), fh).rounded(.down))
        let x1 = Int(min(max(r.maxX, 0), fw).rounded(.up)), y1 = Int(min(max(r.maxY, 0), fh).rounded(.up))
        guard x0 < x1, y0 < y1 else { return }
        let w = width + 1
        table[y0 * w + x0] += 1
        table[y0 * w + x1] -= 1
        table[y1 * w + x0] -= 1
        table[y1 * w + x1] += 1
    }

    /// Turns the difference grid into coverage, then into a summed-area table of covered pixels.
    ///
    /// One pass, row by row (coverage of a row = coverage of the row above + this row's prefix
    /// sum of differences): the column sums used to walk the table column-wise, a cache miss per
    /// cell (a third of the labelled world-cities layout).
    public mutating func finish() {
        guard !finished else { return }
        finished = true
        let w = width + 1, width = self.width, height = self.height
        // Scratch: coverage of the row above (width), then two difference rows (w each).
        var scratch = [Int32](repeating: 0, count: width + 2 * w)
        table.withUnsafeMutableBufferPointer { t in
            scratch.withUnsafeMutableBufferPointer { scratch in
                let t = t.baseAddress!, coverage = scratch.baseAddress!
                var diff = coverage + width, next = diff + w
                for x in 0..<w { diff[x] = t[x]; t[x] = 0 }
                for y in 0..<height {
                    // Difference row y + 1, before its table row becomes summed-area row y + 1.
                    next.update(from: t + (y + 1) * w, count: w)
                    let above = t + y * w, row = t + (y + 1) * w
                    row[0] = 0
                    var run: Int32 = 0, occupied: Int32 = 0
                    for x in 0..<width {
                        run &+= diff[x]
                        coverage[x] &+= run
                        if coverage[x] > 0 { occupied &+= 1 }
                        row[x + 1] = occupied &+ above[x + 1]
                    }
                    swap(&diff, &next)
                }
            }
        }
    }

    /// How many pixels under the rectangle an obstacle touches (parts outside the image are not
    /// counted): the pixels `isFree` asks about, counted.
    public func coveredPixels(in r: Rect) -> Int {
        precondition(finished, "call finish() before querying")
        guard r.x.isFinite, r.y.isFinite, r.maxX.isFinite, r.maxY.isFinite else { return 0 }
        let fw = Double(width), fh = Double(height)
        let x0 = Int(min(max(r.x, 0), fw)), y0 = Int(min(max(r.y, 0), fh))
        let mx = min(max(r.maxX, 0), fw), my = min(max(r.maxY, 0), fh)
        var x1 = Int(mx), y1 = Int(my)
        if Double(x1) < mx { x1 += 1 }
        if Double(y1) < my { y1 += 1 }
        guard x0 < x1, y0 < y1 else { return 0 }
        let w = width + 1
        return table.withUnsafeBufferPointer { t in Int(t[y1 * w + x1] - t[y0 * w + x1] - t[y1 * w + x0] + t[y0 * w + x0]) }
    }

    /// True when no obstacle pixel lies under the rectangle (parts outside the image are not checked).
    ///
    /// Called eight times per candidate label (800k times for 100k labelled points): the edges
    /// are clamped to the image first, so floor and ceiling are integer truncations (no libm
    /// call) with the same cells as `max(0, floor(x))` and `min(width, ceil(maxX))`.
    @inline(__always)
    public func isFree(_ r: Rect) -> Bool {
        precondition(finished, "call finish() before querying")
        guard r.x.isFinite, r.y.isFinite, r.maxX.isFinite, r.maxY.isFinite else { return false }
        let fw = Double(width), fh = Double(height)
        // Non-negative after clamping: truncation is the floor; the ceiling adds one when inexact.
        let x0 = Int(min(max(r.x, 0), fw)), y0 = Int(min(max(r.y, 0), fh))
        let mx = min(max(r.maxX, 0), fw), my = min(max(r.maxY, 0), fh)
        var x1 = Int(mx), y1 = Int(my)
        if Double(x1) < mx { x1 += 1 }
        if Double(y1) < my { y1 += 1 }
        guard x0 < x1, y0 < y1 else { return true }
        let w = width + 1
        return table.withUnsafeBufferPointer { t in
            t[y1 * w + x1] - t[y0 * w + x1] - t[y1 * w + x0] + t[y0 * w + x0] == 0
        }
    }
}
