import Foundation
@testable import MapRenderCairo
import MapRenderCore
import Testing
import TestSupport
@testable import MapRender

/// The bench's flows map (translucent great-circle arcs, width by count) drawn into the pixels
/// (`ThinLineRaster`) against Cairo stroking the same scene, whole and across 180°, at one and
/// at two threads (bands).
@Suite struct ThinLineFlowsTests {
    static func flows(_ n: Int, seed: UInt64) -> String {
        var rng = SeededRandom(seed: seed)
        let hubs = (0..<40).map { _ in (Double.random(in: -45...65, using: &rng), Double.random(in: -180...180, using: &rng)) }
        var csv = "lat,lon,dest_lat,dest_lon,count\n"
        for _ in 0..<n {
            let h = hubs[Int.random(in: 0..<hubs.count, using: &rng)]
            csv += "\(h.0),\(h.1),\(Double.random(in: -55...70, using: &rng)),\(Double.random(in: -180...180, using: &rng)),\(Int.random(in: 1...100, using: &rng))\n"
        }
        return csv
    }

    @Test(arguments: [(name: "flows-world", lon: 0.0, zoom: nil as Double?), (name: "flows-180", lon: 180.0, zoom: 1.6)])
    func flowsMatchCairosStroke(_ c: (name: String, lon: Double, zoom: Double?)) throws {
        let dir = FileManager.default.temporaryDirectory.appendingPathComponent("maprender-thinflows-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: dir) }
        let path = dir.appendingPathComponent("flows.csv").path
        try Self.flows(4000, seed: 48).write(toFile: path, atomically: true, encoding: .utf8)
        var r = RenderRequest()
        r.inputs = [path]
        r.pointArcs = PointArcs(latField: "dest_lat", lonField: "dest_lon")
        r.lineOnly = true
        r.defaultBasemap = false
        r.style = try Style.parse(data: Data(##"{"layers":[{"id":"flows","type":"line","paint":{"line-color":"#c2185b","line-opacity":0.35,"line-width":["interpolate",["linear"],["get","count"],1,0.5,100,2.5]}}]}"##.utf8), name: "flows.json")
        r.width = 1024; r.height = 768
        if let z = c.zoom { r.view = .center(lat: 10, lon: c.lon, zoom: z) }
        for threads in [1, 2] {
            r.threads = threads
            let result = try MapRenderer.render(r)
            let fast = CairoRenderer(text: PangoText(), threads: threads)
            let slow = CairoRenderer(text: PangoText(), threads: threads)
            slow.directThinLines = false
            let a = try fast.render(result.scene, format: .png), b = try slow.render(result.scene, format: .png)
            #expect(a == result.data, "MapRenderer draws thin lines directly")
            #expect(a != b)
            let ia = try PNGCodec.decode(data: a), ib = try PNGCodec.decode(data: b)
            let d = try ImageDiff.compare(ib, ia, options: .init(threshold: 0.1))
            // Total ink (darkness below the background) of each.
            let bg = ib[0, 0]
            var inkA = 0, inkB = 0
            for y in 0..<ia.height {
                for x in 0..<ia.width {
                    let p = ia[x, y], q = ib[x, y]
                    inkA += 3 * 255 - Int(p.r) - Int(p.g) - Int(p.b) - (3 * 255 - Int(bg.r) - Int(bg.g) - Int(bg.b))
                    inkB += 3 * 255 - Int(q.r) - Int(q.g) - Int(q.b) - (3 * 255 - Int(bg.r) - Int(bg.g) - Int(bg.b))
                }
            }
            let ratio = Double(inkA) / Double(inkB)
            let out = FileManager.default.temporaryDirectory.appendingPathComponent("maprender-thinlines")
            try? FileManager.default.createDirectory(at: out, withIntermediateDirectories: true)
            try a.write(to: out.appendingPathComponent("\(c.name)-fast.png"))
            try b.write(to: out.appendingPathComponent("\(c.name)-cairo.png"))
            print("thin lines vs Cairo, \(c.name), \(threads) threads: \(String(format: "%.3f", d.differentFraction * 100))% of pixels differ, ink ratio \(String(format: "%.4f", ratio)) (\(out.path)/\(c.name)-fast.png, -cairo.png)")
            #expect(d.differentFraction <= 0.01)
            #expect(abs(ratio - 1) <= 0.03)
        }
    }
}
