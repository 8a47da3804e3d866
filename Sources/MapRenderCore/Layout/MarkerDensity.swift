/// Small markers as soft label obstacles: a summed-area table of marker centres per pixel, so
/// "how many markers would this label cover?" costs four reads however dense the map.
///
/// A dense map of small dots (world cities at 4 px) blocks every label inside its dense areas when
/// markers are hard obstacles, and only coasts get names. A label may instead cover a few small
/// markers; the count is its cost, and the placement with the lowest cost wins.
/// - Complexity: O(width · height + markers) to build, O(1) per query.
public struct MarkerDensity: Sendable {
    public let width: Int, height: Int
    private var table: [Int32]

    public init(width: Double, height: Double, x: [Double], y: [Double]) {
        let w = max(1, Int(width.rounded(.up))), h = max(1, Int(height.rounded(.up)))
        self.width = w; self.height = h
        var t = [Int32](repeating: 0, count: (w + 1) * (h + 1))
        for k in x.indices {
            let px = Int(x[k].rounded(.down)), py = Int(y[k].rounded(.down))
            guard px >= 0, py >= 0, px < w, py < h else { continue }
            t[(py + 1) * (w + 1) + px + 1] += 1
        }
        for yy in 1...h {
            var run: Int32 = 0
            for xx in 1...w { run += t[yy * (w + 1) + xx]; t[yy * (w + 1) + xx] = run + t[(yy - 1) * (w + 1) + xx] }
        }
        table = t
    }

    /// Markers whose centre lies in the rectangle (clipped to the image).
    public func count(in r: Rect) -> Int {
        guard r.x.isFinite, r.y.isFinite, r.maxX.isFinite, r.maxY.isFinite else { return Int.max }
        let x0 = min(max(0, Int(r.x.rounded(.down))), width), y0 = min(max(0, Int(r.y.rounded(.down))), height)
        let x1 = min(max(0, Int(r.maxX.rounded(.up))), width), y1 = min(max(0, Int(r.maxY.rounded(.up))), height)
        guard x0 < x1, y0 < y1 else { return 0 }
        let w = width + 1
        return Int(table[y1 * w + x1] - table[y0 * w + x1] - table[y1 * w + x0] + table[y0 * w + x0])
    }
}
