import Foundation
import Testing
import TestSupport
import MapRender

/// `maprender batch` on tiles, through the real `BatchRunner`: the jobs of one manifest share one
/// fetcher and cache (the tile stage's service for equal options), so each distinct tile reaches
/// the server once per run, however many maps need it and however many run at once.
@Suite struct TileBatchTests {
    @Test func manyMapsOfOneRegionFetchEachTileOnce() throws {
        let server = try TileServer()
        let dir = FileManager.default.temporaryDirectory.appendingPathComponent("maprender-tilebatch-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: dir) }
        // "hold": each answer takes 0.3 s, so jobs running at once ask for the same tiles at once.
        let template = server.url("hold")
        let countries = ["FR", "DE", "IT", "ES", "GB", "NL", "BE", "CH", "AT", "PL", "CZ", "DK"]
        // 24 maps of Europe: each country twice (PNG and SVG), on two views that share most tiles.
        var jobs: [String] = []
        for (k, c) in countries.enumerated() {
            // 140° wide at 640 px: view zoom under 2, tile zoom 3 (the fixtures' last).
            let bbox = k % 2 == 0 ? "-60,10,80,70" : "-57,11,83,71"
            for ext in ["png", "svg"] {
                jobs.append(#"{ "output": "maps/\#(c).\#(ext)", "filter": ["==", ["get", "country"], "\#(c)"], "bbox": "\#(bbox)" }"#)
            }
        }
        let text = """
        { "defaults": { "input": "\(TestPaths.repoFile("samples/world_cities.csv"))", "size": "640x400",
                        "tiles": "\(template)", "tile-cache": "\(dir.path)/cache", "cluster": false },
          "jobs": [\(jobs.joined(separator: ",\n"))] }
        """
        let manifest = try BatchManifest.parse(data: Data(text.utf8), name: "jobs.json", baseDirectory: dir.path)
        var options = BatchOptions()
        options.workers = 4
        let report = BatchRunner.run(manifest, options: options)
        #expect(report.failed == 0, "\(report.jobs.compactMap(\.error))")
        #expect(report.ok == jobs.count)
        #expect(report.jobs.allSatisfy { $0.warnings.isEmpty }, "\(report.jobs.flatMap(\.warnings))")

        // The tiles the maps needed: each requested exactly once.
        let counts = try server.stats().counts.filter { $0.key.hasPrefix("/hold/") }
        let requests = counts.values.reduce(0, +)
        print("batch of \(jobs.count) maps: \(requests) requests for \(counts.count) distinct tiles")
        #expect(counts.count >= 6)
        #expect(counts.values.allSatisfy { $0 == 1 }, "tiles requested more than once: \(counts.filter { $0.value > 1 })")
        // Every job drew tiles, all from this one fetch.
        for j in report.jobs where j.output.hasSuffix(".svg") {
            let svg = try String(contentsOfFile: j.output, encoding: .utf8)
            #expect(svg.contains("data:image/png;base64"), "\(j.output) has no tiles")
        }
        // The run again: nothing new is asked of the server.
        let again = BatchRunner.run(manifest, options: options)
        #expect(again.failed == 0)
        #expect(try server.stats().counts.filter { $0.key.hasPrefix("/hold/") }.values.reduce(0, +) == requests)
    }
}
