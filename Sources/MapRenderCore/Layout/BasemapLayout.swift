import Foundation

/// Projects basemap polygons and lines into the view's pixels.
///
/// Rings that cross the antimeridian are unwrapped (consecutive vertices never jump by more than half
/// the world), and each shape is drawn at every world copy that overlaps the view, so a view across
/// 180° shows both sides. Shapes outside the view are culled; vertices closer than a quarter pixel
/// to the previous one are dropped. Polygon edges lying on a cut (both ends on +180°, both on
/// -180°, or both on the clamped ±85.05° edge, where Natural Earth splits Chukotka, Fiji and
/// Antarctica) are listed in `ShapeBatch.unstroked`, so no false border is drawn along them.
public enum BasemapLayout {
    /// Which cut a vertex lies on: 1 at +180°, 2 at -180°, 4 at the north edge, 8 at the south edge.
    @inline(__always)
    static func cutSide(lon: Double, lat: Double) -> UInt8 {
        var s: UInt8 = 0
        if lon >= 180 - 1e-9 { s |= 1 } else if lon <= -180 + 1e-9 { s |= 2 }
        if lat >= WebMercator.maxLatitude - 1e-9 { s |= 4 } else if lat <= -WebMercator.maxLatitude + 1e-9 { s |= 8 }
        return s
    }

    public static func batches(for shapes: ShapeSet, viewport v: Viewport, style: Style.Basemap) -> [ShapeBatch] {
        var polys = ShapeBatch(kind: .polygon, fill: style.fill, stroke: style.stroke, strokeWidth: style.strokeWidth)
        var lines = ShapeBatch(kind: .line, fill: .clear, stroke: style.lineColor, strokeWidth: style.lineWidth)
        let ws = v.worldSize
        let halfW = v.width / 2 / ws, halfH = v.height / 2 / ws
        let margin = 4 / ws  // strokes reach a little outside their shape
        let viewX0 = v.centerX - halfW - margin, viewX1 = v.centerX + halfW + margin
        let viewY0 = v.centerY - halfH - margin, viewY1 = v.centerY + halfH + margin
        var wx: [Double] = [], wy: [Double] = []
        var cut: [UInt8] = []
        for s in 0..<shapes.shapeCount {
            // Project and unwrap every ring of the shape; track its bounding box.
            wx.removeAll(keepingCapacity: true)
            wy.removeAll(keepingCapacity: true)
            cut.removeAll(keepingCapacity: true)
            let isPolygon = shapes.kinds[s] == .polygon
            var ringEnds: [Int] = []
            var minX = Double.infinity, maxX = -Double.infinity, minY = Double.infinity, maxY = -Double.infinity
            for r in shapes.rings(of: s) {
                var prev: Double? = nil
                var shift = 0.0
                for p in shapes.vertices(of: r) {
                    var x = WebMercator.x(lon: shapes.coords[2 * p])
                    let y = WebMercator.y(lat: shapes.coords[2 * p + 1])
                    if let q = prev {
                        let d = x + shift - q
                        if d > 0.5 { shift -= 1 } else if d < -0.5 { shift += 1 }
                    }
                    x += shift
                    prev = x
                    wx.append(x); wy.append(y)
                    if isPolygon { cut.append(cutSide(lon: shapes.coords[2 * p], lat: shapes.coords[2 * p + 1])) }
                    minX = min(minX, x); maxX = max(maxX, x); minY = min(minY, y); maxY = max(maxY, y)
                }
                ringEnds.append(wx.count)
            }
            guard maxY >= viewY0, minY <= viewY1, !wx.isEmpty else { continue }
            let kLo = Int((viewX0 - maxX).rounded(.up)), kHi = Int((viewX1 - minX).rounded(.down))
            guard kLo <= kHi else { continue }
            for k in kLo...kHi {
                let offset = Double(k) - v.centerX
                var start = 0
                if isPolygon {
                    emit(&polys, ringEnds: ringEnds, offset: offset, ws: ws, v: v, wx: wx, wy: wy, cut: cut, start: &start)
                } else {
                    emit(&lines, ringEnds: ringEnds, offset: offset, ws: ws, v: v, wx: wx, wy: wy, cut: [], start: &start)
                }
            }
        }
        return [polys, lines].filter { $0.pathCount > 0 }
    }

    private static func emit(_ b: inout ShapeBatch, ringEnds: [Int], offset: Double, ws: Double, v: Viewport,
                             wx: [Double], wy: [Double], cut: [UInt8], start: inout Int) {
        let hw = v.width / 2, hh = v.height / 2
        for end in ringEnds {
            var lastX = Double.nan, lastY = Double.nan
            var lastCut: UInt8 = 0
            let before = b.coords.count, unstrokedBefore = b.unstroked.count
            for i in start..<end {
                let px = (wx[i] + offset) * ws + hw
                let py = (wy[i] - v.centerY) * ws + hh
                // Vertices on a cut are kept, so the cut's edges stay recognisable.
                if abs(px - lastX) < 0.25 && abs(py - lastY) < 0.25 && i != end - 1 && (cut.isEmpty || cut[i] == 0) { continue }
                if !cut.isEmpty {
                    // The edge from the previous kept vertex to this one lies on one cut line.
                    if b.coords.count > before && lastCut & cut[i] != 0 { b.unstroked.append(b.coords.count / 2 - 1) }
                    lastCut = cut[i]
                }
                b.coords.append(px); b.coords.append(py)
                lastX = px; lastY = py
            }
            start = end
            if b.coords.count - before >= 4 { b.closeRing() } else {
                b.coords.removeSubrange(before...)
                b.unstroked.removeSubrange(unstrokedBefore...)
            }
        }
        if b.ringStart.count - 1 > b.pathRingStart.last! { b.closePath() }
    }
}
