import Foundation
import MapRenderCairo
import MapRenderCore
import Testing
import TestSupport
@testable import MapRender

/// Many shape batches are drawn in bands of rows on the cores (`CairoRenderer.drawInBands`): the
/// bytes are the same at any thread count, and the same as one pass over the whole image.
@Suite struct ArcBandTests {
    /// 3,000 translucent great-circle arcs of 100 widths (3,000 batches, as in the bench) over
    /// the built-in land, and the same with a constant width (one batch of 3,000 paths, stroked in
    /// pieces through a group), at 1, 2, 3 and 8 threads: one set of bytes each. One thread draws
    /// the batches one by one on the whole image, so the bands are checked against it.
    @Test func arcsInBandsAreTheSameBytesAtAnyThreadCount() throws {
        let dir = FileManager.default.temporaryDirectory.appendingPathComponent("maprender-arcbands-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: dir) }
        var rng = SeededRandom(seed: 3000)
        var csv = "lat,lon,dest_lat,dest_lon,count\n"
        for _ in 0..<3000 {
            csv += "\(Double.random(in: -60...70, using: &rng)),\(Double.random(in: -180...180, using: &rng)),"
                + "\(Double.random(in: -60...70, using: &rng)),\(Double.random(in: -180...180, using: &rng)),\(Int.random(in: 1...100, using: &rng))\n"
        }
        let path = dir.appendingPathComponent("flows.csv").path
        try csv.write(toFile: path, atomically: true, encoding: .utf8)
        for width in [#"["interpolate", ["linear"], ["get", "count"], 1, 0.5, 100, 2.5]"#, "1.5"] {
            var r = RenderRequest()
            r.inputs = [path]
            r.pointArcs = PointArcs(latField: "dest_lat", lonField: "dest_lon")
            r.lineOnly = true
            r.style = try Style.parse(data: Data(##"{"layers":[{"id":"flows","type":"line","paint":{"line-color":"#c2185b","line-opacity":0.35,"line-width":\##(width)}}]}"##.utf8), name: "flows.json")
            r.width = 640; r.height = 480
            var bytes: [Int: Data] = [:]
            for threads in [1, 2, 3, 8] {
                r.threads = threads
                let result = try MapRenderer.render(r)
                let paths = result.scene.items.reduce(0) { if case .shapes(let b) = $1 { return $0 + b.pathCount } else { return $0 } }
                #expect(paths >= CairoRenderer.bandedPaths, "the run is drawn in bands: \(paths) paths")
                bytes[threads] = result.data
            }
            for threads in [2, 3, 8] { #expect(bytes[threads] == bytes[1], "width \(width): \(threads) threads") }
        }
    }

    /// Fills and outlines in bands: 2,500 geodesic circles of 40 km (polygons, filled and
    /// stroked by the default circle style) over the built-in land, in a
    /// letterboxed world clip (`--bbox` across 180° at zoom 2), at 1, 2 and 3 threads: one set of bytes.
    @Test func polygonsInBandsAreTheSameBytesAtAnyThreadCount() throws {
        var rng = SeededRandom(seed: 2500)
        var points = PointSet()
        for _ in 0..<2500 {
            points.lon.append(Double.random(in: -180...180, using: &rng)); points.lat.append(Double.random(in: -70...80, using: &rng))
            points.properties.appendEmptyRow()
        }
        var r = RenderRequest()
        r.points = points
        r.pointCircles = PointCircles(radius: .metres(40_000))
        r.clustering = nil
        r.width = 700; r.height = 700
        r.view = .center(lat: 0, lon: 180, zoom: 0.3)
        var bytes: [Int: Data] = [:]
        for threads in [1, 2, 3] {
            r.threads = threads
            let result = try MapRenderer.render(r)
            let paths = result.scene.items.reduce(0) { if case .shapes(let b) = $1 { return $0 + b.pathCount } else { return $0 } }
            #expect(paths >= CairoRenderer.bandedPaths, "\(paths) paths")
            #expect(result.scene.world != nil, "letterboxed: the world clip is drawn in each band")
            bytes[threads] = result.data
        }
        #expect(bytes[2] == bytes[1] && bytes[3] == bytes[1])
    }

    /// A choropleth in bands, each band drawing only the paths that reach its rows
    /// (`CairoRenderer.bandPaths`): 240 star-shaped polygons of 120 vertices with holes (fewer
    /// paths than `bandedPaths`, more vertices than `bandedVertices`), filled by a step of a
    /// property and outlined, some across 180° (edges on the cut, not stroked), on a
    /// letterboxed world, at 1, 2, 3 and 8 threads: one set of bytes, and the outlines are there.
    @Test func choroplethInBandsIsTheSameBytesAtAnyThreadCount() throws {
        let dir = FileManager.default.temporaryDirectory.appendingPathComponent("maprender-choroband-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: dir) }
        var rng = SeededRandom(seed: 240)
        var features: [String] = []
        var vertices = 0
        for k in 0..<240 {
            let lon = k % 12 == 0 ? 179.0 : Double.random(in: -175...175, using: &rng), lat = Double.random(in: -65...75, using: &rng)
            func ring(_ r: Double, _ n: Int) -> String {
                var pts: [String] = []
                for j in 0..<n {
                    let a = Double(j) / Double(n) * 2 * .pi, rr = r * (j % 2 == 0 ? 1 : 0.6)
                    pts.append("[\(lon + rr * cos(a) / cos(lat * .pi / 180)),\(lat + rr * sin(a))]")
                }
                vertices += n + 1
                return "[" + (pts + [pts[0]]).joined(separator: ",") + "]"
            }
            features.append(#"{"type":"Feature","properties":{"rate":\#(k % 100)},"geometry":{"type":"Polygon","coordinates":["# + ring(4, 120) + "," + ring(1, 20) + "]}}")
        }
        let path = dir.appendingPathComponent("stars.geojson").path
        try #"{"type":"FeatureCollection","features":["#.appending(features.joined(separator: ",\n")).appending("]}").write(toFile: path, atomically: true, encoding: .utf8)
        var r = RenderRequest()
        r.inputs = [path]
        r.style = try Style.parse(data: Data(##"{"layers":[{"id":"c","type":"fill","paint":{"fill-color":["step",["get","rate"],"#fee5d9",25,"#fcae91",50,"#fb6a4a",75,"#cb181d"],"fill-outline-color":"#202020","fill-outline-width":0.5}}]}"##.utf8), name: "choropleth.json")
        r.width = 900; r.height = 700
        r.view = .center(lat: 0, lon: 180, zoom: 0.4)
        var bytes: [Int: Data] = [:]
        for threads in [1, 2, 3, 8] {
            r.threads = threads
            let result = try MapRenderer.render(r)
            var paths = 0, drawn = 0, cut = 0
            for case .shapes(let b) in result.scene.items { paths += b.pathCount; drawn += b.coords.count / 2; cut += b.unstroked.count }
            #expect(paths < CairoRenderer.bandedPaths && drawn >= CairoRenderer.bandedVertices, "\(paths) paths, \(drawn) vertices")
            #expect(cut > 0, "some polygons cut at 180°")
            bytes[threads] = result.data
        }
        #expect(vertices > 30_000)
        for threads in [2, 3, 8] { #expect(bytes[threads] == bytes[1], "\(threads) threads") }
        // Dark outlines drawn: the image has many near-black pixels.
        let image = try PNGCodec.decode(data: try #require(bytes[1]))
        var dark = 0
        for k in stride(from: 0, to: image.pixels.count, by: 4) where image.pixels[k] < 90 { dark += 1 }
        #expect(dark > 5_000, "\(dark) outline pixels")
    }
}
