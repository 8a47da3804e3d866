import Foundation

// Raster tile basemaps: where they sit in the pipeline.
//
// Tiles are an input like the basemap GeoJSON, but they can only be chosen once the view is known,
// so they come after planning and before layout's output is drawn:
//
//   view (Viewport, fractional zoom)
//     → TileCoverage.cover (here, pure maths: which tiles at which integer tile zoom, each one's
//       CSS-px rectangle, world copies and the antimeridian, overzoom past the source's max zoom)
//     → MapRenderTiles (fetch: tile folder, MBTiles, PMTiles, HTTP with a disk cache; decode
//       PNG/JPEG/WebP through libpng, libjpeg-turbo, libwebp)
//     → Scene `.raster` marks put first, under the basemap GeoJSON and the data
//     → CairoRenderer draws each tile with a good (bilinear or better) filter; SVG and PDF embed
//       each distinct tile image once.
//
// Nothing here touches files or the network: the same view always asks for the same tiles.

/// One tile of a pyramid: zoom, column (x, west to east) and row (y, north to south: XYZ, not TMS).
public struct TileID: Hashable, Sendable, Comparable, CustomStringConvertible {
    public var z: Int, x: Int, y: Int
    public init(z: Int, x: Int, y: Int) { self.z = z; self.x = x; self.y = y }
    public var description: String { "\(z)/\(x)/\(y)" }
    public static func < (a: TileID, b: TileID) -> Bool { (a.z, a.y, a.x) < (b.z, b.y, b.x) }
}

/// A tile and where it lands on the image, in CSS pixels (edges on whole device pixels).
public struct TilePlacement: Sendable, Equatable {
    /// The tile to fetch: `x` wrapped into 0..<2^z.
    public var tile: TileID
    public var rect: Rect
}

/// Which tiles a view needs. Pure computation: no I/O.
public enum TileCoverage {
    /// The zooms any tileset may have: 2^30 tiles a side still leaves every product of tile
    /// counts and every tile id (PMTiles, TMS rows, Int32 in MBTiles) far from overflow.
    public static let zoomRange = 0...30

    /// The integer tile zoom for a view at fractional `viewZoom` (512-px world at zoom 0).
    ///
    /// Tiles of `tileSize` pixels (`pixelRatio` device pixels per tile pixel: 2 for `@2x` tiles)
    /// are chosen so that one tile pixel is at most one device pixel: for 256-px tiles at
    /// `scale` 1 this is ⌈zoom⌉ + 1; at `scale` 2 without `@2x` tiles, one zoom more.
    public static func tileZoom(viewZoom: Double, tileSize: Double, scale: Double, pixelRatio: Double = 1) -> Int {
        let z = viewZoom + log2(Viewport.tileSize * scale / (tileSize * pixelRatio))
        guard z.isFinite else { return 0 }
        return Int((min(max(z, -64), 64) - 1e-9).rounded(.up))
    }

    /// The tiles covering `viewport` at tile zoom `zoom`, clamped to `minZoom...maxZoom` (past the
    /// maximum the last level is stretched: overzoom). Every world copy the view shows gets its
    /// own placement of the wrapped tile; rows outside the world are left out. Ordered by row,
    /// then column, left to right. At most `limit` placements (a huge image at a high zoom).
    /// Whatever the source claims, the zoom stays within `zoomRange`.
    public static func cover(_ viewport: Viewport, zoom: Int, minZoom: Int = 0, maxZoom: Int = 22,
                             scale: Double = 1, limit: Int = 4096) -> (zoom: Int, placements: [TilePlacement]) {
        let z = min(zoomRange.upperBound, max(zoomRange.lowerBound, max(minZoom, min(maxZoom, zoom))))
        let n = 1 << z
        let ws = viewport.worldSize
        let tl = viewport.world(px: 0, py: 0), br = viewport.world(px: viewport.width, py: viewport.height)
        let x0 = Int((tl.x * Double(n)).rounded(.down)), x1 = Int((br.x * Double(n)).rounded(.up)) - 1
        let y0 = max(0, Int((tl.y * Double(n)).rounded(.down))), y1 = min(n - 1, Int((br.y * Double(n)).rounded(.up)) - 1)
        guard x1 >= x0, y1 >= y0 else { return (z, []) }
        // World x → CSS px, unwrapped (tiles left of x = 0 are the copy west of the antimeridian).
        func px(_ wx: Double) -> Double { snap((wx - viewport.centerX) * ws + viewport.width / 2, scale) }
        func py(_ wy: Double) -> Double { snap((wy - viewport.centerY) * ws + viewport.height / 2, scale) }
        var out: [TilePlacement] = []
        out.reserveCapacity(min(limit, (x1 - x0 + 1) * (y1 - y0 + 1)))
        for y in y0...y1 {
            let top = py(Double(y) / Double(n)), bottom = py(Double(y + 1) / Double(n))
            for x in x0...x1 {
                guard out.count < limit else { return (z, out) }
                let left = px(Double(x) / Double(n)), right = px(Double(x + 1) / Double(n))
                let wrapped = ((x % n) + n) % n
                out.append(TilePlacement(tile: TileID(z: z, x: wrapped, y: y),
                                         rect: Rect(x: left, y: top, width: right - left, height: bottom - top)))
            }
        }
        return (z, out)
    }

    /// A view snapped for pixel-crisp tiles (`Viewport.snappedToIntegerZoom`).
    public static func integerZoom(_ v: Viewport, scale: Double) -> Viewport {
        v.snappedToIntegerZoom(scale: scale)
    }

    /// Rounds a CSS-px coordinate to the nearest device pixel, so neighbouring tiles share an edge exactly.
    @inline(__always)
    static func snap(_ v: Double, _ scale: Double) -> Double { (v * scale).rounded() / scale }
}
