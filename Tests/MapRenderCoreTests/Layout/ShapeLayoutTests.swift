import Foundation
import Testing
import TestSupport
@testable import MapRenderCore

/// Lines and polygons into pixels: simplified to what the pixels show, and no further.
@Suite struct ShapeLayoutTests {
    /// Property: over generated wiggly tracks, every vertex of the input lies within half a pixel
    /// of the drawn polyline (a quarter pixel from dropping near neighbours, a quarter from
    /// Douglas–Peucker), and the line keeps far fewer vertices than it had.
    @Test(arguments: [1, 2, 3, 4, 5])
    func simplifiedLinesStayWithinHalfAPixel(seed: UInt64) throws {
        var rng = SeededRandom(seed: seed)
        var shapes = ShapeSet()
        var coords: [Double] = []
        var lon = 10.0, lat = 50.0, heading = 0.0
        for _ in 0..<20_000 {
            heading += Double.random(in: -0.3...0.3, using: &rng)
            lon += 0.0003 * sin(heading); lat += 0.0002 * cos(heading)
            coords += [lon + Double.random(in: -0.00005...0.00005, using: &rng), lat]
        }
        shapes.add(kind: .line, rings: [coords], feature: 0, row: 0)
        shapes.properties.appendEmptyRow()
        let v = ViewFitter.fit(bounds: GeoBounds(west: coords.enumerated().filter { $0.offset % 2 == 0 }.map(\.element).min()!,
                                                 south: coords.enumerated().filter { $0.offset % 2 == 1 }.map(\.element).min()!,
                                                 east: coords.enumerated().filter { $0.offset % 2 == 0 }.map(\.element).max()!,
                                                 north: coords.enumerated().filter { $0.offset % 2 == 1 }.map(\.element).max()!),
                               width: 800, height: 600)
        let layer = Style.default.defaultShapeLayers.first { $0.id == "data-lines" }!
        let b = try #require(ShapeLayout.batches(for: shapes, layer: layer, viewport: v).first)
        let drawn = b.coords
        #expect(drawn.count / 2 < 20_000 / 4, "kept \(drawn.count / 2) of 20000")
        // Distance of every 7th input vertex to the drawn polyline (all of its segments).
        var worst = 0.0
        for k in stride(from: 0, to: coords.count / 2, by: 7) {
            let p = v.pixel(x: WebMercator.x(lon: coords[2 * k]), y: WebMercator.y(lat: coords[2 * k + 1]))
            var best = Double.infinity
            for s in 0..<(drawn.count / 2 - 1) {
                let ax = drawn[2 * s], ay = drawn[2 * s + 1], dx = drawn[2 * s + 2] - ax, dy = drawn[2 * s + 3] - ay
                let len2 = dx * dx + dy * dy
                let t = len2 == 0 ? 0 : min(max(((p.x - ax) * dx + (p.y - ay) * dy) / len2, 0), 1)
                best = min(best, hypot(p.x - ax - t * dx, p.y - ay - t * dy))
            }
            worst = max(worst, best)
        }
        #expect(worst <= 0.5 + 1e-9, "a vertex lies \(worst) px from the drawn line")
    }
}
