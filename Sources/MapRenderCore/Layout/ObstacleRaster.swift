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
        let x0 = max(0, Int(r.x.rounded(.down))), y0 = max(0, Int(r.y.rounded(.down)))
        let x1 = min(width, Int(r.maxX.rounded(.up))), y1 = min(height, Int(r.maxY.rounded(.up)))
        guard x0 < x1, y0 < y1 else { return }
        let w = width + 1
        table[y0 * w + x0] += 1
        table[y0 * w + x1] -= 1
        table[y1 * w + x0] -= 1
        table[y1 * w + x1] += 1
    }

    /// Turns the difference grid into coverage, then into a summed-area table of covered pixels.
    public mutating func finish() {
        guard !finished else { return }
        finished = true
        let w = width + 1
        table.withUnsafeMutableBufferPointer { t in
            // Coverage counts: prefix sums along rows, then columns.
            for y in 0..<height { var run: Int32 = 0; for x in 0..<width { run += t[y * w + x]; t[y * w + x] = run } }
            for x in 0..<width { var run: Int32 = 0; for y in 0..<height { run += t[y * w + x]; t[y * w + x] = run } }
            // Occupancy (0/1), shifted by one so row and column 0 are the zero border, summed.
            for y in stride(from: height - 1, through: 0, by: -1) {
                for x in stride(from: width - 1, through: 0, by: -1) {
                    t[(y + 1) * w + x + 1] = t[y * w + x] > 0 ? 1 : 0
                }
            }
            for x in 0...width { t[x] = 0 }
            for y in 0...height { t[y * w] = 0 }
            for y in 1...height { var run: Int32 = 0; for x in 1...width { run += t[y * w + x]; t[y * w + x] = run + t[(y - 1) * w + x] } }
        }
    }

    /// True when no obstacle pixel lies under the rectangle (parts outside the image are not checked).
    public func isFree(_ r: Rect) -> Bool {
        precondition(finished, "call finish() before querying")
        guard r.x.isFinite, r.y.isFinite, r.maxX.isFinite, r.maxY.isFinite else { return false }
        let x0 = max(0, Int(r.x.rounded(.down))), y0 = max(0, Int(r.y.rounded(.down)))
        let x1 = min(width, Int(r.maxX.rounded(.up))), y1 = min(height, Int(r.maxY.rounded(.up)))
        guard x0 < x1, y0 < y1 else { return true }
        let w = width + 1
        return table[y1 * w + x1] - table[y0 * w + x1] - table[y1 * w + x0] + table[y0 * w + x0] == 0
    }
}
