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

    /// A ring that goes once round the world encloses a pole and is closed along the map's edge
    /// there, unstroked; Natural Earth's 1:110m Antarctica (its ring ends at 84.7°S on ±180°)
    /// closed along 84.7°S, over a strip of sea with an outline at the bottom of a world map.
    /// Many shapes are laid out in parts on the threads and the parts' batches joined: the same
    /// batches as one pass on one thread (`Work.serial`), with runs of one paint across the parts'
    /// ends, shapes the paint leaves out, lines too small to draw, polygons with cut edges, and
    /// great-circle arcs.
    @Test func batchesInPartsAreTheBatchesOfOnePass() throws {
        var rng = SeededRandom(seed: 48)
        var shapes = ShapeSet()
        for s in 0..<3000 {
            let lon = Double.random(in: -180...170, using: &rng), lat = Double.random(in: -60...70, using: &rng)
            let size = s % 13 == 0 ? 1e-6 : Double.random(in: 0.5...20, using: &rng)
            switch s % 3 {
            case 0: shapes.add(kind: .line, rings: [[lon, lat, lon + size, lat + size / 2, lon + size, lat]], feature: s)
            case 1: shapes.add(kind: .polygon, rings: [[lon, lat, 180, lat, 180, lat + size, lon, lat]], feature: s)
            default: shapes.add(kind: .line, rings: [[lon, lat, lon + 10 * size, -lat]], feature: s, greatCircle: true)
            }
        }
        let v = Viewport(centerX: 0.5, centerY: 0.5, zoom: 1.5, width: 1024, height: 768)
        func paint(_ s: Int) -> (ShapeKind, ShapePaint)? {
            guard s % 11 != 0 else { return nil }
            let width = Double((s / 7) % 3 + 1)
            return (shapes.kinds[s], ShapePaint(fill: RGBA(1, 0, 0, 0.5), stroke: RGBA(0, 0, 1, 0.5), strokeWidth: width))
        }
        func lay() -> [ShapeBatch] {
            ShapeLayout.batches(for: shapes, viewport: v, strokeMargin: 4, simplify: true, keepsFeatures: true, paint: paint)
        }
        let parallel = lay()
        let serial = Work.$serial.withValue(true) { lay() }
        #expect(parallel.count == serial.count && serial.count > 100, "\(parallel.count) and \(serial.count) batches")
        for (a, b) in zip(parallel, serial) {
            #expect(a.kind == b.kind && a.paint == b.paint && a.coords == b.coords && a.ringStart == b.ringStart
                    && a.pathRingStart == b.pathRingStart && a.unstroked == b.unstroked && a.pathFeatures == b.pathFeatures)
        }
        #expect(serial.contains { !$0.unstroked.isEmpty })
    }

    @Test func aRingRoundThePoleIsClosedAlongTheMapsEdge() throws {
        var shapes = ShapeSet()
        // West to east round the world at about 70°S, as Natural Earth cuts it: on ±180° at 84.7°S.
        var ring: [Double] = [180, -84.7]
        for lon in stride(from: 170.0, through: -170.0, by: -10) { ring += [lon, -70 + 3 * sin(lon / 20)] }
        ring += [-180, -84.7, -180, -90, 180, -90, 180, -84.7]
        shapes.add(kind: .polygon, rings: [ring], feature: 0, row: 0)
        shapes.properties.appendEmptyRow()
        let v = ViewFitter.center(lat: 0, lon: 0, zoom: 0, width: 512, height: 512)
        let layer = Style.default.defaultShapeLayers.first { $0.id == "data-fill" }!
        let b = try #require(ShapeLayout.batches(for: shapes, layer: layer, viewport: v).first)
        let ys = stride(from: 1, to: b.coords.count, by: 2).map { b.coords[$0] }
        // The ring reaches the bottom of the world (512 px), not just 84.7°S (about 506.7 px).
        #expect(abs((ys.max() ?? 0) - 512) < 1e-6, "lowest vertex at \(ys.max() ?? 0)")
        // Every edge along the bottom (or up a ±180° cut) is unstroked.
        let n = b.coords.count / 2
        for i in 0..<n {
            let j = (i + 1) % n
            let y0 = b.coords[2 * i + 1], y1 = b.coords[2 * j + 1]
            if y0 > 506.5 && y1 > 506.5 { #expect(b.unstroked.contains(i), "edge \(i) along the bottom is stroked") }
        }
        // A ring that does not go round (a polygon in the south) is drawn as it is.
        var small = ShapeSet()
        small.add(kind: .polygon, rings: [[10, -70, 20, -70, 20, -75, 10, -70]], feature: 0, row: 0)
        small.properties.appendEmptyRow()
        let c = try #require(ShapeLayout.batches(for: small, layer: layer, viewport: v).first)
        #expect(c.coords.count == 8)
    }
}
