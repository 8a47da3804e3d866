import Foundation
import Testing
import TestSupport

/// `--basemap-style` through the real binary: what stderr, --summary and the exit code say.
@Suite struct BasemapStyleCLITests {
    let cli = CLITests()

    /// The unsupported properties are one warning on stderr and a list in --summary; the map is written.
    @Test func unsupportedPropertiesOnStderrAndInSummary() throws {
        let d = try cli.tempDir(); defer { try? FileManager.default.removeItem(at: d) }
        let style = d.appendingPathComponent("s.json")
        try """
            {"version": 8, "sources": {"ne": {"type": "vector", "url": "pmtiles://\(TestPaths.repoFile("samples/ne_vector_z0-6.pmtiles"))"}},
             "layers": [{"id": "bg", "type": "background", "paint": {"background-color": "#eee"}},
                        {"id": "w", "type": "fill", "source": "ne", "source-layer": "water", "paint": {"fill-color": "#9cf", "fill-pattern": "dots"}},
                        {"id": "x", "type": "fill-extrusion", "source": "ne", "source-layer": "water"}]}
            """.write(to: style, atomically: true, encoding: .utf8)
        let out = d.appendingPathComponent("m.png").path, summary = d.appendingPathComponent("s.json.out").path
        let r = try cli.run(["samples/capitals.csv", "--basemap-style", style.path, "--zoom", "2", "--center", "45,10",
                             "-o", out, "--summary", summary])
        #expect(r.status == 0, "\(r.stderr)")
        let lines = r.stderr.split(separator: "\n").filter { $0.contains("not drawn") }
        #expect(lines.count == 1)
        #expect(lines.first?.contains("fill-extrusion layers (1 layer: x); fill-pattern (no sprite) (1 layer: w)") == true, "\(r.stderr)")
        let j = try JSONSerialization.jsonObject(with: Data(contentsOf: URL(fileURLWithPath: summary))) as! [String: Any]
        let b = j["basemapStyle"] as! [String: Any]
        #expect(b["unsupported"] as? [String] == ["fill-extrusion layers (1 layer: x)", "fill-pattern (no sprite) (1 layer: w)"])
        #expect(b["tileZoom"] as? Int == 2)
        #expect(FileManager.default.fileExists(atPath: out))
    }

    /// A broken style is exit 78 naming the file and the key; a missing one exit 66; animate
    /// draws a good one and refuses a broken one the same way.
    @Test func errors() throws {
        let d = try cli.tempDir(); defer { try? FileManager.default.removeItem(at: d) }
        let style = d.appendingPathComponent("bad.json")
        try #"{"version": 8, "sources": {}, "layers": [{"id": "a", "type": "line", "source": "none"}]}"#
            .write(to: style, atomically: true, encoding: .utf8)
        let bad = try cli.run(["samples/capitals.csv", "--basemap-style", style.path, "-o", d.appendingPathComponent("m.png").path])
        #expect(bad.status == 78)
        #expect(bad.stderr.contains(#"bad.json: layers[0] ("a").source: no source "none" in the style's sources"#), "\(bad.stderr)")
        let missing = try cli.run(["samples/capitals.csv", "--basemap-style", d.appendingPathComponent("nope.json").path,
                                   "-o", d.appendingPathComponent("m.png").path])
        #expect(missing.status == 66)
        // animate draws it (under every frame), and says a bad style as render does.
        let a = d.appendingPathComponent("a.geojson"), b = d.appendingPathComponent("b.geojson")
        try #"{"type":"Feature","id":1,"properties":{},"geometry":{"type":"Point","coordinates":[10,50]}}"#.write(to: a, atomically: true, encoding: .utf8)
        try #"{"type":"Feature","id":1,"properties":{},"geometry":{"type":"Point","coordinates":[12,48]}}"#.write(to: b, atomically: true, encoding: .utf8)
        let anim = try cli.run(["animate", a.path, b.path, "--frames", "2", "--size", "200x120", "--zoom", "4", "--center", "49,11",
                                "--basemap-style", "styles/basemap-light.json", "-o", d.appendingPathComponent("frames").path])
        #expect(anim.status == 0, "\(anim.stderr)")
        #expect(FileManager.default.fileExists(atPath: d.appendingPathComponent("frames/frame-00003.png").path))
        let animBad = try cli.run(["animate", a.path, b.path, "--frames", "2", "--basemap-style", style.path,
                                   "-o", d.appendingPathComponent("bad-frames").path])
        #expect(animBad.status == 78, "\(animBad.stderr)")
    }
}
