/// A view snapped for pixel-crisp tiles, and the world-unit samples of lines and polygons that
/// a fitted view must show.
extension Viewport {
    /// This view snapped for pixel-crisp tiles (`--integer-zoom`): the zoom floored to a whole
    /// number (so what was fitted still fits) and the center moved by under a device pixel so
    /// that tile edges fall on device pixels.
    public func snappedToIntegerZoom(scale: Double) -> Viewport {
        var out = self
        out.zoom = max(0, zoom.rounded(.down))
        let ws = out.worldSize * scale
        let leftEdge = out.centerX * ws - width * scale / 2
        let topEdge = out.centerY * ws - height * scale / 2
        out.centerX += (leftEdge.rounded() - leftEdge) / ws
        out.centerY += (topEdge.rounded() - topEdge) / ws
        return out
    }
}

extension ShapeSet {
    /// Visits ring r's vertices in world units (Web Mercator), unwrapped: consecutive vertices
    /// never jump by more than half the world, so a ring across 180° goes the short way (x may
    /// pass 1 or 0). The one projection of lines and polygons, for fitting and for drawing.
    @inline(__always)
    public func forEachUnwrappedVertex(ofRing r: Int, _ body: (_ x: Double, _ y: Double, _ vertex: Int) -> Void) {
        forEachUnwrappedX(ofRing: r) { x, q in body(x, WebMercator.y(lat: coords[2 * q + 1]), q) }
    }

    /// The unwrapped x of each of ring r's vertices, without y (which costs a sine and a log):
    /// for boxes, y being monotonic in the latitude.
    @inline(__always)
    public func forEachUnwrappedX(ofRing r: Int, _ body: (_ x: Double, _ vertex: Int) -> Void) {
        var prev = Double.nan
        var shift = 0.0
        for q in vertices(of: r) {
            var x = WebMercator.x(lon: coords[2 * q])
            if !prev.isNaN {
                let d = x + shift - prev
                if d > 0.5 { shift -= 1 } else if d < -0.5 { shift += 1 }
            }
            x += shift
            prev = x
            body(x, q)
        }
    }
}

/// Positions in world units (Web Mercator, 0...1) that a view fitted to the data must show
/// besides the points: for each line or polygon, the corners of its box and, for a wide one,
/// points along its width every 1/32 of the world, so the shortest span of all (`ViewFitter`)
/// never goes round the other way past the middle of a long line.
public struct FitSamples: Sendable, Equatable {
    public var xs: [Double] = []
    public var ys: [Double] = []

    public init() {}

    public var isEmpty: Bool { xs.isEmpty }

    /// - Complexity: O(vertices).
    public init(shapes: ShapeSet) {
        for s in 0..<shapes.shapeCount {
            var minX = Double.infinity, maxX = -Double.infinity, minLat = Double.infinity, maxLat = -Double.infinity
            for r in shapes.rings(of: s) {
                // Unwrapped as the shape is drawn: across 180° the short way. y is monotonic in
                // the latitude, so the box's y comes from the extreme latitudes: two sines and
                // logs per shape instead of one per vertex (a 1M-vertex track: 1M fewer).
                let arcs = shapes.isGreatCircle(s), first = shapes.ringStart[r]
                shapes.forEachUnwrappedX(ofRing: r) { x, q in
                    let lat = shapes.coords[2 * q + 1]
                    minX = min(minX, x); maxX = max(maxX, x); minLat = min(minLat, lat); maxLat = max(maxLat, lat)
                    if arcs && q > first {
                        // The arc's true extent: it may bulge poleward of both its ends.
                        let c = shapes.coords
                        let e = GreatCircle.latitudeRange(lat1: c[2 * q - 1], lon1: c[2 * q - 2], lat2: lat, lon2: c[2 * q])
                        minLat = min(minLat, e.south); maxLat = max(maxLat, e.north)
                    }
                }
            }
            guard minX.isFinite else { continue }
            let minY = WebMercator.y(lat: maxLat), maxY = WebMercator.y(lat: minLat)
            func wrap(_ x: Double) -> Double { x - x.rounded(.down) }
            var x = minX
            while true {
                xs.append(wrap(x)); ys.append(minY)
                xs.append(wrap(x)); ys.append(maxY)
                if x >= maxX { break }
                x = min(x + 1.0 / 32, maxX)
            }
        }
    }
}
