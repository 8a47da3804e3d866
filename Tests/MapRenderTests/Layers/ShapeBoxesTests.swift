import Foundation
import Testing
import TestSupport
@testable import MapRender
@testable import MapRenderCore

/// `ShapeSet.boxes` lets a zoomed view skip the built-in land's far shapes unprojected; it must
/// never change what is drawn. Property: over generated views (every zoom, across 180°, at the
/// poles, letterboxed worlds), each set's batches are the same with its boxes as without them.
@Suite struct ShapeBoxesTests {
    static func same(_ a: [ShapeBatch], _ b: [ShapeBatch]) -> Bool {
        a.count == b.count && zip(a, b).allSatisfy {
            $0.kind == $1.kind && $0.paint == $1.paint && $0.coords == $1.coords && $0.ringStart == $1.ringStart
                && $0.pathRingStart == $1.pathRingStart && $0.unstroked == $1.unstroked
        }
    }

    @Test func boxesChangeNothingThatIsDrawn() throws {
        var countries = try ShapeReader.read(path: TestPaths.repoFile("samples/ne_110m_admin_0_countries.geojson"))
        countries.computeBoxes()
        let sets = [("1:110m", DefaultBasemap.shapes), ("1:50m", DefaultBasemap.detailed),
                    ("lakes 1:50m", DefaultBasemap.detailedLakes), ("countries file", countries)]
        let layers = Style.default.defaultShapeLayers.filter { $0.source == .basemap }
        var rng = SeededRandom(seed: 44)
        var skipped = 0, drawnViews = 0
        for n in 0..<150 {
            // A quarter of the views across 180°, a tenth near a pole; zoom 0 to 12.
            let lon = n % 4 == 0 ? Double.random(in: 175...185, using: &rng) - 360 * Double(n % 8 == 0 ? 1 : 0)
                                 : Double.random(in: -180...180, using: &rng)
            let lat = n % 10 == 0 ? Double.random(in: 75...85, using: &rng) * (n % 20 == 0 ? 1 : -1)
                                  : Double.random(in: -70...70, using: &rng)
            let zoom = Double.random(in: 0...12, using: &rng)
            var v = Viewport(centerX: WebMercator.x(lon: lon), centerY: WebMercator.y(lat: lat), zoom: zoom,
                             width: Double(Int.random(in: 200...1400, using: &rng)), height: Double(Int.random(in: 150...900, using: &rng)))
            v.centerX -= v.centerX.rounded(.down)
            for (name, set) in sets {
                var plain = set
                plain.boxes = nil
                for layer in layers {
                    let with = ShapeLayout.batches(for: set, layer: layer, viewport: v)
                    let without = ShapeLayout.batches(for: plain, layer: layer, viewport: v)
                    #expect(Self.same(with, without), "\(name), \(layer.id): lon \(lon) lat \(lat) zoom \(zoom) \(v.width)x\(v.height)")
                    if !with.isEmpty { drawnViews += 1 }
                }
            }
            if zoom > 6 { skipped += 1 }
        }
        // The views are not all empty: the comparison saw shapes drawn.
        #expect(drawnViews > 150, "\(drawnViews)")
        #expect(skipped > 40)
    }

    /// Every shape lies inside its box (in degrees, longitudes unwrapped), and a polygon round a
    /// pole reaches both (the drawn ring is closed along the map's edge).
    @Test func everyVertexIsInsideItsShapesBox() throws {
        for set in [DefaultBasemap.shapes, DefaultBasemap.detailed] {
            let boxes = try #require(set.boxes)
            for s in 0..<set.shapeCount {
                for r in set.rings(of: s) {
                    for q in set.vertices(of: r) {
                        let lat = set.coords[2 * q + 1], lon = set.coords[2 * q]
                        #expect(lat >= boxes[4 * s + 2] && lat <= boxes[4 * s + 3])
                        // Some copy of the longitude falls in the unwrapped range.
                        let west: Double = boxes[4 * s] - 1e-9, east: Double = boxes[4 * s + 1] + 1e-9
                        let copies: [Double] = [lon - 360, lon, lon + 360]
                        #expect(copies.contains { (c: Double) -> Bool in c >= west && c <= east })
                    }
                }
            }
        }
        // Antarctica at 1:110m goes round the South Pole.
        let boxes = try #require(DefaultBasemap.shapes.boxes)
        #expect((0..<DefaultBasemap.shapes.shapeCount).contains { boxes[4 * $0 + 2] == -90 && boxes[4 * $0 + 1] - boxes[4 * $0] > 300 })
    }
}
