/// Where the basemap's land is on the image, one bit per pixel, with a summed-area table: "does
/// this box cross a coast?" (some of it land, some of it sea) costs four reads.
///
/// Built from the laid-out basemap polygons (pixel coordinates): each path (a polygon with its
/// holes) is filled even-odd, a pixel being land when its centre is inside. Used by label
/// placement on dense dot maps, where a label across a coastline reads worst.
///
/// - Complexity: O(width · height + Σ rows × edges of each path) to build, O(1) per query.
public struct LandMask: Sendable {
    public let width: Int, height: Int
    /// (width + 1) · (height + 1): land pixels above and left of each corner.
    private var table: [Int32]

    /// nil when there are no polygons. `water`: polygons drawn over the land in the map's water
    /// colour (the built-in basemap's lakes): their pixels are not land.
    public init?(polygons batches: [ShapeBatch], water: [ShapeBatch] = [], width: Double, height: Double) {
        let polygons = batches.filter { $0.kind == .polygon && $0.pathCount > 0 }
        guard !polygons.isEmpty else { return nil }
        let w = max(1, Int(width.rounded(.up))), h = max(1, Int(height.rounded(.up)))
        self.width = w; self.height = h
        var land = [UInt8](repeating: 0, count: w * h)
        var crossings: [Double] = []
        let lakes = water.filter { $0.kind == .polygon && $0.pathCount > 0 }
        for (k, b) in (polygons + lakes).enumerated() {
            let value: UInt8 = k < polygons.count ? 1 : 0
            for p in 0..<b.pathCount {
                let rings = b.pathRingStart[p]..<b.pathRingStart[p + 1]
                var minY = Double.infinity, maxY = -Double.infinity
                for r in rings { for v in b.ringStart[r]..<b.ringStart[r + 1] { minY = min(minY, b.coords[2 * v + 1]); maxY = max(maxY, b.coords[2 * v + 1]) } }
                guard minY.isFinite, maxY.isFinite else { continue }
                let row0 = max(0, Int((minY - 0.5).rounded(.up))), row1 = min(h - 1, Int((maxY - 0.5).rounded(.down)))
                guard row0 <= row1 else { continue }
                for row in row0...row1 {
                    let y = Double(row) + 0.5
                    crossings.removeAll(keepingCapacity: true)
                    for r in rings {
                        let first = b.ringStart[r], end = b.ringStart[r + 1]
                        guard end - first >= 3 else { continue }
                        var j = end - 1
                        for i in first..<end {
                            let yi = b.coords[2 * i + 1], yj = b.coords[2 * j + 1]
                            if (yi > y) != (yj > y) {
                                let xi = b.coords[2 * i], xj = b.coords[2 * j]
                                crossings.append(xi + (y - yi) * (xj - xi) / (yj - yi))
                            }
                            j = i
                        }
                    }
                    crossings.sort()
                    var k = 0
                    while k + 1 < crossings.count {
                        // Pixels whose centre lies between the two crossings.
                        let x0 = max(0, Int((crossings[k] - 0.5).rounded(.up)))
                        let x1 = min(w - 1, Int((crossings[k + 1] - 0.5).rounded(.down)))
                        if x0 <= x1 { for x in x0...x1 { land[row * w + x] = value } }
                        k += 2
                    }
                }
            }
        }
        var t = [Int32](repeating: 0, count: (w + 1) * (h + 1))
        for y in 1...h {
            var run: Int32 = 0
            for x in 1...w {
                run += Int32(land[(y - 1) * w + x - 1])
                t[y * (w + 1) + x] = run + t[(y - 1) * (w + 1) + x]
            }
        }
        table = t
    }

    /// Land pixels in the rectangle (clipped to the image), and the pixels it covers there.
    public func land(in r: Rect) -> (land: Int, pixels: Int) {
        guard r.x.isFinite, r.y.isFinite, r.maxX.isFinite, r.maxY.isFinite else { return (0, 0) }
        let x0 = min(max(0, Int(r.x.rounded(.down))), width), y0 = min(max(0, Int(r.y.rounded(.down))), height)
        let x1 = min(max(0, Int(r.maxX.rounded(.up))), width), y1 = min(max(0, Int(r.maxY.rounded(.up))), height)
        guard x0 < x1, y0 < y1 else { return (0, 0) }
        let w = width + 1
        let n = Int(table[y1 * w + x1] - table[y0 * w + x1] - table[y1 * w + x0] + table[y0 * w + x0])
        return (n, (x1 - x0) * (y1 - y0))
    }

    /// Whether the rectangle holds both land and sea pixels.
    public func crossesCoast(_ r: Rect) -> Bool {
        let (n, pixels) = land(in: r)
        return n > 0 && n < pixels
    }
}
