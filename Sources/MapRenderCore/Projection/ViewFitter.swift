import Foundation

/// Chooses the view: fit to data, or from `--center/--zoom` or `--bbox`. Zoom fitting lives here only.
public enum ViewFitter {
    /// The zoom used for a single point or coincident points, when the data has no extent.
    public static let defaultSinglePointZoom = 14.0
    /// Data wider than this (300° of longitude, in world units) is fitted as the whole world centred on 0°.
    public static let worldSpanning = 300.0 / 360

    /// The horizontal extent of world x values the short way round: returns (minX, maxX) with
    /// maxX possibly above 1 when the data crosses the antimeridian (Fiji, Tonga, Chukotka).
    /// The extent an `XExtentRing` of `xs` gives, in two passes (`XExtentRing.extent(of:)`).
    /// - Complexity: O(n + bins).
    public static func shortestXExtent(_ xs: [Double]) -> (min: Double, max: Double)? {
        xs.withUnsafeBufferPointer { XExtentRing.extent(of: $0) }
    }

    /// Fits the view to points given in world units.
    /// - Parameters:
    ///   - extent: how far marks reach beyond their point (a pin reaches up by its height), CSS px.
    ///   - padding: empty margin around the marks, CSS px.
    ///   - maxZoom: the cap (a single point gets `min(maxZoom, defaultSinglePointZoom)`).
    public static func fit(xs: [Double], ys: [Double], width: Double, height: Double,
                           extent: EdgeInsets, padding: EdgeInsets, maxZoom: Double) -> Viewport {
        fit(box: DataBox(xs: xs, ys: ys), width: width, height: height, extent: extent, padding: padding, maxZoom: maxZoom)
    }

    /// What a fit needs of the points: their shortest x extent (`shortestXExtent`) and their y
    /// range. Made once per map: a refit with more padding reuses it (over a million points it
    /// costs as much as the rest of the fit).
    public struct DataBox: Sendable, Equatable {
        public var minX: Double
        public var maxX: Double
        public var minY: Double
        public var maxY: Double

        /// nil for no points.
        public init?(xs: [Double], ys: [Double]) {
            guard let xr = ViewFitter.shortestXExtent(xs), let ylo = ys.min(), let yhi = ys.max() else { return nil }
            (minX, maxX, minY, maxY) = (xr.min, xr.max, ylo, yhi)
        }
    }

    /// `fit(xs:ys:...)` from the points' box (nil: no points, the whole world).
    public static func fit(box: DataBox?, width: Double, height: Double,
                           extent: EdgeInsets, padding: EdgeInsets, maxZoom: Double) -> Viewport {
        guard let box else { return world(width: width, height: height) }
        // World-spanning data shows the whole world once, centred on 0°, not on wherever the
        // widest gap in the data happens to put it.
        let spans = box.maxX - box.minX > worldSpanning
        return fit(minX: spans ? 0 : box.minX, minY: box.minY, maxX: spans ? 1 : box.maxX, maxY: box.maxY,
                   width: width, height: height, extent: extent, padding: padding, maxZoom: maxZoom)
    }

    /// `--center` without `--zoom`: the view centred exactly on `center` (world units) at the
    /// largest zoom that shows every point around it, with room for `extent` and `padding` on
    /// every side. World-spanning data shows the whole world once, centred there (not on 0°).
    public static func fit(xs: [Double], ys: [Double], around center: (x: Double, y: Double),
                           width: Double, height: Double,
                           extent: EdgeInsets, padding: EdgeInsets, maxZoom: Double) -> Viewport {
        fit(box: DataBox(xs: xs, ys: ys), around: center, width: width, height: height, extent: extent,
            padding: padding, maxZoom: maxZoom)
    }

    /// `fit(xs:ys:around:...)` from the points' box (nil: no points).
    public static func fit(box: DataBox?, around center: (x: Double, y: Double), width: Double, height: Double,
                           extent: EdgeInsets, padding: EdgeInsets, maxZoom: Double) -> Viewport {
        guard let box else {
            let v = world(width: width, height: height)
            return Viewport(centerX: center.x, centerY: center.y, zoom: v.zoom, width: width, height: height)
        }
        return fit(minX: box.minX, minY: box.minY, maxX: box.maxX, maxY: box.maxY, around: center, width: width,
                   height: height, extent: extent, padding: padding, maxZoom: maxZoom)
    }

    /// `fit(xs:ys:around:...)` for a world-unit box (maxX may exceed 1 across the antimeridian).
    public static func fit(minX: Double, minY: Double, maxX: Double, maxY: Double, around center: (x: Double, y: Double),
                           width: Double, height: Double,
                           extent: EdgeInsets, padding: EdgeInsets, maxZoom: Double) -> Viewport {
        let cx = center.x, cy = center.y
        var x0 = minX, x1 = maxX
        if x1 - x0 > worldSpanning {
            (x0, x1) = (cx - 0.5, cx + 0.5)
        } else {
            // The copy of the data nearest the centre.
            let shift = ((x0 + x1) / 2 - cx).rounded()
            x0 -= shift; x1 -= shift
        }
        let halfX = max(cx - x0, x1 - cx, 0), halfY = max(cy - minY, maxY - cy, 0)
        // The same room on opposite sides, so the fitted box's middle is the centre itself.
        let i = extent + padding
        let sideX = max(i.left, i.right), sideY = max(i.top, i.bottom)
        let v = fit(minX: cx - halfX, minY: cy - halfY, maxX: cx + halfX, maxY: cy + halfY, width: width, height: height,
                    extent: .zero, padding: EdgeInsets(top: sideY, right: sideX, bottom: sideY, left: sideX), maxZoom: maxZoom)
        return Viewport(centerX: cx, centerY: cy, zoom: v.zoom, width: width, height: height)
    }

    /// Fits a world-unit box (maxX may exceed 1 for boxes across the antimeridian).
    public static func fit(minX: Double, minY: Double, maxX: Double, maxY: Double,
                           width: Double, height: Double,
                           extent: EdgeInsets, padding: EdgeInsets, maxZoom: Double) -> Viewport {
        let inset = extent + padding
        let availW = max(width - inset.left - inset.right, 1)
        let availH = max(height - inset.top - inset.bottom, 1)
        let dx = maxX - minX, dy = maxY - minY
        var zoom = min(maxZoom, defaultSinglePointZoom)
        if dx > 0 || dy > 0 {
            let zx = dx > 0 ? log2(availW / (dx * Viewport.tileSize)) : .infinity
            let zy = dy > 0 ? log2(availH / (dy * Viewport.tileSize)) : .infinity
            zoom = min(zx, zy, maxZoom)
        }
        zoom = max(zoom, 0)
        let ws = Viewport.tileSize * pow(2, zoom)
        // Center the content box [inset.left, width - inset.right] on the data's middle.
        let shiftX = ((inset.left + width - inset.right) / 2 - width / 2) / ws
        let shiftY = ((inset.top + height - inset.bottom) / 2 - height / 2) / ws
        let cx = (minX + maxX) / 2 - shiftX
        let cy = (minY + maxY) / 2 - shiftY
        return Viewport(centerX: cx, centerY: cy, zoom: zoom, width: width, height: height)
    }

    /// The whole world's width across the image (used when there is no data to fit).
    public static func world(width: Double, height: Double) -> Viewport {
        Viewport(centerX: 0.5, centerY: 0.5, zoom: max(0, log2(width / Viewport.tileSize)),
                 width: width, height: height)
    }

    /// The highest zoom any view takes: `--zoom`, `--max-zoom`, and a box fitted by `fit(bounds:)`.
    public static let zoomLimit = 24.0

    /// `--bbox W,S,E,N`: the box fills the view as tightly as its aspect allows (no padding), at
    /// most at `zoomLimit` (a smaller box is shown around its centre at that zoom).
    public static func fit(bounds b: GeoBounds, width: Double, height: Double) -> Viewport {
        let minX = WebMercator.x(lon: b.west)
        var maxX = WebMercator.x(lon: b.east)
        if b.crossesAntimeridian { maxX += 1 }
        return fit(minX: minX, minY: WebMercator.y(lat: b.north), maxX: maxX, maxY: WebMercator.y(lat: b.south),
                   width: width, height: height, extent: .zero, padding: .zero, maxZoom: zoomLimit)
    }

    /// `--center LAT,LON --zoom Z`.
    public static func center(lat: Double, lon: Double, zoom: Double, width: Double, height: Double) -> Viewport {
        Viewport(centerX: WebMercator.x(lon: lon), centerY: WebMercator.y(lat: lat), zoom: zoom,
                 width: width, height: height)
    }
}
