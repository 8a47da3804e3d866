import Foundation
import Testing

/// `maprender animate`: the real binary on real files, its output and exit codes.
@Suite struct AnimateCLITests {
    let cli = CLITests()

    func write(_ text: String, _ name: String, in dir: URL) throws -> String {
        let url = dir.appendingPathComponent(name)
        try text.write(to: url, atomically: true, encoding: .utf8)
        return url.path
    }

    func feature(_ id: String?, _ lon: Double, _ lat: Double) -> String {
        let idPart = id.map { "\"id\":\($0)," } ?? ""
        return #"{"type":"Feature",\#(idPart)"geometry":{"type":"Point","coordinates":[\#(lon),\#(lat)]},"properties":{}}"#
    }

    func collection(_ features: [String]) -> String {
        "{\"type\":\"FeatureCollection\",\"features\":[" + features.joined(separator: ",") + "]}"
    }

    @Test func keyframesToNumberedFrames() throws {
        let d = try cli.tempDir(); defer { try? FileManager.default.removeItem(at: d) }
        let a = try write(collection([feature("1", 0, 0), feature("2", 10, 10), feature("3", 20, 5)]), "a.geojson", in: d)
        let b = try write(collection([feature("1", 5, 2), feature("2", 10, 10), feature("4", -10, -5)]), "b.geojson", in: d)
        let out = d.appendingPathComponent("frames").path
        let r = try cli.run(["animate", a, b, "-o", out, "--frames", "3", "--size", "200x120", "--easing", "cubic",
                             "--summary", "-"])
        #expect(r.status == 0, "\(r.stderr)")
        let names = try FileManager.default.contentsOfDirectory(atPath: out).sorted()
        #expect(names == [".maprender-frames", "frame-00001.png", "frame-00002.png", "frame-00003.png", "frame-00004.png",
                          "maprender-frames.json"])
        // The set's manifest, written last, holds each frame's CRC-32 (checked here with zlib's, by Python).
        let check = try ReadmeEveryCommandTests.run("/usr/bin/env", ["python3", "-c", """
            import json, sys, zlib
            m = json.load(open(sys.argv[1] + '/maprender-frames.json'))
            assert m['count'] == 4 and m['format'] == 'png', m
            for f in m['frames']:
                assert '%08x' % zlib.crc32(open(sys.argv[1] + '/' + f['file'], 'rb').read()) == f['crc32'], f
            print('ok')
            """, out])
        #expect(check.output == "ok\n", "\(check.output)")
        // A run that fails half-way leaves no manifest: the folder holds no complete set.
        try FileManager.default.removeItem(atPath: out + "/frame-00003.png")
        try FileManager.default.createDirectory(atPath: out + "/frame-00003.png", withIntermediateDirectories: false)
        let failed = try cli.run(["animate", a, b, "-o", out, "--frames", "3", "--size", "200x120", "-q"])
        #expect(failed.status != 0)
        #expect(!FileManager.default.fileExists(atPath: out + "/maprender-frames.json"))
        let json = try JSONSerialization.jsonObject(with: r.stdoutData) as! [String: Any]
        #expect(json["frames"] as? Int == 4)
        #expect(json["mode"] as? String == "keyframes")
        let t = (json["transitions"] as! [[String: Any]])[0]
        #expect(t["moved"] as? Int == 1 && t["unchanged"] as? Int == 1 && t["inserted"] as? Int == 1 && t["deleted"] as? Int == 1)
        // Not a terminal: plain progress lines, ending with the total.
        #expect(r.stderr.contains("4/4 frames"))
    }

    @Test func aMissingIDIsAnErrorNamingTheFileAndFeature() throws {
        let d = try cli.tempDir(); defer { try? FileManager.default.removeItem(at: d) }
        let a = try write(collection([feature("1", 0, 0), feature("2", 1, 1)]), "a.geojson", in: d)
        let b = try write(collection([feature("1", 0, 0), feature("2", 1, 1), feature(nil, 2, 2)]), "b.geojson", in: d)
        let r = try cli.run(["animate", a, b, "-o", d.appendingPathComponent("f").path, "--frames", "2"])
        #expect(r.status == 65)
        #expect(r.stderr.contains("b.geojson: feature 2 has no id (use --id-field)"), "\(r.stderr)")
        #expect(!FileManager.default.fileExists(atPath: d.appendingPathComponent("f/frame-00001.png").path))
    }

    @Test func aDuplicatedIDIsAnErrorNamingTheFileAndFeatures() throws {
        let d = try cli.tempDir(); defer { try? FileManager.default.removeItem(at: d) }
        let a = try write(collection([feature("\"x\"", 0, 0), feature("\"y\"", 1, 1), feature("\"x\"", 2, 2)]), "a.geojson", in: d)
        let b = try write(collection([feature("\"x\"", 0, 0)]), "b.geojson", in: d)
        let r = try cli.run(["animate", a, b, "-o", d.appendingPathComponent("f").path])
        #expect(r.status == 65)
        #expect(r.stderr.contains("a.geojson: duplicate id \"x\" (features 0 and 2)"), "\(r.stderr)")
    }

    @Test func tracksFromTheSharedCSV() throws {
        let d = try cli.tempDir(); defer { try? FileManager.default.removeItem(at: d) }
        let out = d.appendingPathComponent("storm").path
        let r = try cli.run(["animate", cli.shared("tracks.csv"), "--id", "id", "--time", "time", "--fps", "4",
                             "--duration", "1.5s", "--start", "2006-10-28T12:00:00Z", "--end", "2006-11-03T18:00:00Z",
                             "--size", "200x120", "-o", out, "--summary", d.appendingPathComponent("s.json").path, "-q"])
        #expect(r.status == 0, "\(r.stderr)")
        #expect(r.stderr.isEmpty)
        #expect(try FileManager.default.contentsOfDirectory(atPath: out).filter { $0.hasPrefix("frame-") }.count == 6)
        let json = try JSONSerialization.jsonObject(with: Data(contentsOf: d.appendingPathComponent("s.json"))) as! [String: Any]
        let tracks = json["tracks"] as! [String: Any]
        #expect(tracks["samplesRead"] as? Int == 1001)
        #expect(tracks["ids"] as? Int == 5)
        #expect(json["mode"] as? String == "tracks")
    }

    @Test func animatedPNGFile() throws {
        let d = try cli.tempDir(); defer { try? FileManager.default.removeItem(at: d) }
        let out = d.appendingPathComponent("walk.png").path
        // One CSV with a time column is read as tracks without --time.
        let r = try cli.run(["animate", cli.shared("tracks.csv"), "--frames", "5", "--fps", "5", "--hold",
                             "--start", "2010-08-05T14:30:00Z", "--end", "2010-08-05T16:00:00Z",
                             "--size", "160x100", "--animated", "-o", out, "-q"])
        #expect(r.status == 0, "\(r.stderr)")
        let data = try Data(contentsOf: URL(fileURLWithPath: out))
        #expect(data.prefix(8) == Data([0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A]))
        let bytes = [UInt8](data)
        // acTL right after IHDR: 8 (signature) + 25 (IHDR chunk); its first field is the frame count.
        #expect(String(decoding: bytes[37..<41], as: UTF8.self) == "acTL")
        #expect(Int(bytes[44]) == 5)
    }

    /// `--label-style callout` in an animated SVG (refused before): one moving box per point.
    @Test func animatedSVGWithCallouts() throws {
        let d = try cli.tempDir(); defer { try? FileManager.default.removeItem(at: d) }
        let places = cli.shared("populated_places_110m.geojson")
        let svg = d.appendingPathComponent("anim.svg").path
        let r = try cli.run(["animate", places, places, "--animated", "-o", svg, "--frames", "2", "--size", "400x300",
                             "--bbox=-11,35,30,60", "--label", "name", "--label-style", "callout", "-q"])
        #expect(r.status == 0, "\(r.stderr)")
        let text = try String(contentsOfFile: svg, encoding: .utf8)
        let outlines = text.components(separatedBy: "attributeName=\"d\"").count - 1
        #expect(outlines >= 2 && outlines == text.components(separatedBy: "<tspan").count - 1, "\(outlines) callouts")
    }

    @Test func usageErrors() throws {
        let d = try cli.tempDir(); defer { try? FileManager.default.removeItem(at: d) }
        let places = cli.shared("populated_places_110m.geojson")
        var r = try cli.run(["animate", places, "-o", d.path])
        #expect(r.status == 64)
        #expect(r.stderr.contains("no time column"), "\(r.stderr)")
        r = try cli.run(["animate", places, places, "-o", d.appendingPathComponent("x.png").path])
        #expect(r.status == 64)
        #expect(r.stderr.contains("--animated"), "\(r.stderr)")
        r = try cli.run(["animate", cli.shared("tracks.csv"), "--duration", "soon", "-o", d.path])
        #expect(r.status == 64)
        #expect(r.stderr.contains("--duration must look like 20s"), "\(r.stderr)")
        r = try cli.run(["animate", places, places, "--cluster-transition", "2", "-o", d.path])
        #expect(r.status == 64)
        #expect(r.stderr.contains("--cluster-transition must be a share of the time between keyframes"), "\(r.stderr)")
        r = try cli.run(["animate", cli.shared("tracks.csv"), "--cluster-transition", "soon", "-o", d.path])
        #expect(r.status == 64)
        #expect(r.stderr.contains("--cluster-transition must be a duration of data time"), "\(r.stderr)")
    }
}
