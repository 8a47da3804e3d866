import Foundation

/// Projects basemap polygons and lines into the view's pixels.
///
/// Rings that cross the antimeridian are unwrapped (consecutive vertices never jump by more than half
/// the world), and each shape is drawn at every world copy that overlaps the view, so a view across
/// 180° shows both sides. Shapes outside the view are culled; vertices closer than a quarter pixel
/// to the previous one are dropped.
public enum BasemapLayout {
    public static func batches(for shapes: ShapeSet, viewport v: Viewport, style: Style.Basemap) -> [ShapeBatch] {
        var polys = ShapeBatch(kind: .polygon, fill: style.fill, stroke: style.stroke, strokeWidth: style.strokeWidth)
        var lines = ShapeBatch(kind: .line, fill: .clear, stroke: style.lineColor, strokeWidth: style.lineWidth)
        let ws = v.worldSize
        let halfW = v.width / 2 / ws, halfH = v.height / 2 / ws
        let margin = 4 / ws  // strokes reach a little outside their shape
        let viewX0 = v.centerX - halfW - margin, viewX1 = v.centerX + halfW + margin
        let viewY0 = v.centerY - halfH - margin, viewY1 = v.centerY + halfH + margin
        var wx: [Double] = [], wy: [Double] = []
        for s in 0..<shapes.shapeCount {
            // Project and unwrap every ring of the shape; track its bounding box.
            wx.removeAll(keepingCapacity: true)
            wy.removeAll(keepingCapacity: true)
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
                if shapes.kinds[s] == .polygon {
                    emit(&polys, ringEnds: ringEnds, offset: offset, ws: ws, v: v, wx: wx, wy: wy, start: &start)
                } else {
                    emit(&lines, ringEnds: ringEnds, offset: offset, ws: ws, v: v, wx: wx, wy: wy, start: &start)
                }
            }
        }
        return [polys, lines].filter { $0.pathCount > 0 }
    }

    private static func emit(_ b: inout ShapeBatch, ringEnds: [Int], offset: Double, ws: Double, v: Viewport,
                             wx: [Double], wy: [Double], start: inout Int) {
        let hw = v.width / 2, hh = v.height / 2
        for end in ringEnds {
            var lastX = Double.nan, lastY = Double.nan
            let before = b.coords.count
            for i in start..<end {
                let px = (wx[i] + offset) * ws + hw
                let py = (wy[i] - v.centerY) * ws + hh
                if abs(px - lastX) < 0.25 && abs(py - lastY) < 0.25 && i != end - 1 { continue }
                b.coords.append(px); b.coords.append(py)
                lastX = px; lastY = py
            }
            start = end
            if b.coords.count - before >= 4 { b.closeRing() } else { b.coords.removeSubrange(before...) }
        }
        if b.ringStart.count - 1 > b.pathRingStart.last! { b.closePath() }
    }
}
