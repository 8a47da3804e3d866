import Foundation

/// What the map shows: a center in world units, a fractional zoom, and a size in CSS pixels.
///
/// Zoom follows MapLibre GL: at zoom z the world is `512 · 2^z` pixels wide, so supercluster's
/// radius (in pixels at extent 512) is a distance on the rendered map.
public struct Viewport: Sendable, Equatable {
    public static let tileSize = 512.0

    /// Center in Mercator world units, x in [0, 1).
    public var centerX: Double
    public var centerY: Double
    public var zoom: Double
    /// Size in CSS pixels (the image has `scale` times as many device pixels).
    public var width: Double
    public var height: Double

    public init(centerX: Double, centerY: Double, zoom: Double, width: Double, height: Double) {
        var cx = centerX.truncatingRemainder(dividingBy: 1)
        if cx < 0 { cx += 1 }
        self.centerX = cx
        self.centerY = centerY
        self.zoom = zoom
        self.width = width
        self.height = height
    }

    /// The world's width in CSS pixels at this zoom.
    public var worldSize: Double { Self.tileSize * pow(2, zoom) }

    /// World units → CSS pixels, taking the copy of the world nearest the center horizontally,
    /// so data across the antimeridian lands next to each other.
    @inline(__always)
    public func pixel(x: Double, y: Double) -> (x: Double, y: Double) {
        let t = toPixels
        return (t.x(x), t.y(y))
    }

    /// `pixel(x:y:)` by axis, with the world's size worked out once: for loops over many points.
    public struct ToPixels: Sendable {
        let centerX: Double, centerY: Double, worldSize: Double, halfWidth: Double, halfHeight: Double

        @inline(__always)
        public func x(_ x: Double) -> Double {
            var dx = x - centerX
            dx -= dx.rounded()
            return dx * worldSize + halfWidth
        }

        @inline(__always)
        public func y(_ y: Double) -> Double { (y - centerY) * worldSize + halfHeight }
    }

    public var toPixels: ToPixels {
        ToPixels(centerX: centerX, centerY: centerY, worldSize: worldSize, halfWidth: width / 2, halfHeight: height / 2)
    }

    /// CSS pixels → world units (x not normalised: it may lie outside [0, 1]).
    public func world(px: Double, py: Double) -> (x: Double, y: Double) {
        let ws = worldSize
        return (centerX + (px - width / 2) / ws, centerY + (py - height / 2) / ws)
    }

    /// The shown area in degrees; `west > east` when it crosses the antimeridian.
    public var bounds: GeoBounds { bounds(margin: 0) }

    /// The shown area widened by `margin` CSS px on every side, in degrees (latitudes clamped to the
    /// square world, the whole longitude range once it spans the world).
    public func bounds(margin: Double) -> GeoBounds {
        let tl = world(px: -margin, py: -margin), br = world(px: width + margin, py: height + margin)
        let spansWorld = br.x - tl.x >= 1
        return GeoBounds(
            west: spansWorld ? -180 : Longitude.fold(WebMercator.lon(x: tl.x)),
            south: WebMercator.lat(y: min(max(br.y, 0), 1)),
            east: spansWorld ? 180 : Longitude.fold(WebMercator.lon(x: br.x)),
            north: WebMercator.lat(y: min(max(tl.y, 0), 1)))
    }

    public var centerLongitude: Double { WebMercator.lon(x: centerX) }
    public var centerLatitude: Double { WebMercator.lat(y: centerY) }
}
