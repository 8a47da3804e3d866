import Foundation
import Testing
import TestSupport

/// Runs the real `maprender` binary on real files and checks output and exit codes.
@Suite struct CLITests {
    static let repo = TestPaths.repo

    /// The binary built beside the test bundle.
    static let binary: URL = {
        var dir = URL(fileURLWithPath: "/proc/self/exe").resolvingSymlinksInPath().deletingLastPathComponent()
        for _ in 0..<4 {
            let candidate = dir.appendingPathComponent("maprender")
            if FileManager.default.isExecutableFile(atPath: candidate.path) { return candidate }
            dir.deleteLastPathComponent()
        }
        fatalError("maprender binary not found near the test bundle")
    }()

    struct Run { var status: Int32; var stdout: String; var stderr: String; var stdoutData: Data }

    func run(_ args: [String], stdin: Data? = nil) throws -> Run {
        let p = Process()
        p.executableURL = Self.binary
        p.arguments = args
        p.currentDirectoryURL = Self.repo
        let out = Pipe(), err = Pipe(), inp = Pipe()
        p.standardOutput = out; p.standardError = err; p.standardInput = inp
        try p.run()
        if let stdin { inp.fileHandleForWriting.write(stdin) }
        try inp.fileHandleForWriting.close()
        let o = out.fileHandleForReading.readDataToEndOfFile()
        let e = err.fileHandleForReading.readDataToEndOfFile()
        p.waitUntilExit()
        return Run(status: p.terminationStatus, stdout: String(decoding: o, as: UTF8.self),
                   stderr: String(decoding: e, as: UTF8.self), stdoutData: o)
    }

    func tempDir() throws -> URL {
        let d = FileManager.default.temporaryDirectory.appendingPathComponent("cli-\(UUID())")
        try FileManager.default.createDirectory(at: d, withIntermediateDirectories: true)
        return d
    }

    /// A shared dataset's vendored copy (`TestPaths.vendored`).
    func shared(_ name: String) -> String { TestPaths.shared(name) }

    @Test func rendersTheReadmeCommand() throws {
        let d = try tempDir(); defer { try? FileManager.default.removeItem(at: d) }
        let out = d.appendingPathComponent("map.png").path
        let summary = d.appendingPathComponent("summary.json").path
        let r = try run(["samples/populated_places.geojson", "--basemap", "samples/ne_110m_admin_0_countries.geojson",
                         "--marker", "circle", "-o", out, "--summary", summary])
        #expect(r.status == 0, "\(r.stderr)")
        let png = try Data(contentsOf: URL(fileURLWithPath: out))
        #expect(png.prefix(8) == Data([0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A]))
        let json = try JSONSerialization.jsonObject(with: Data(contentsOf: URL(fileURLWithPath: summary))) as! [String: Any]
        let clusters = json["clusters"] as! [String: Any]
        #expect((json["pointsDrawn"] as! Int) + (clusters["pointsInside"] as! Int) == 243)
        let view = json["view"] as! [String: Any]
        #expect((view["size"] as! [Double]) == [1024, 768])
        #expect((json["timings"] as! [String: Double]).keys.contains("render"))
    }

    @Test func csvFromStandardInputToSVGOnStandardOutput() throws {
        let csv = "name;latitude;longitude\nA;48.85;2.35\nB;51.5;-0.12\nbad;x;1\n"
        let r = try run(["-", "--input-format", "csv", "-o", "-", "--format", "svg"], stdin: Data(csv.utf8))
        #expect(r.status == 0, "\(r.stderr)")
        #expect(r.stdout.hasPrefix("<?xml"))
        #expect(r.stderr.contains("skipped 1 row"))
        #expect(r.stderr.contains("line 4"))
    }

    @Test func inspectPrintsTheInputReport() throws {
        let r = try run(["inspect", shared("airports_us.csv")])
        #expect(r.status == 0, "\(r.stderr)")
        let json = try JSONSerialization.jsonObject(with: r.stdoutData) as! [String: Any]
        #expect(json["pointsRead"] as? Int == 3376)
        #expect(json["latitudeColumn"] as? String == "latitude")
        #expect(json["format"] as? String == "csv")
    }

    @Test func badInputsGiveOneLineAndTheDocumentedExitCode() throws {
        let d = try tempDir(); defer { try? FileManager.default.removeItem(at: d) }
        let out = d.appendingPathComponent("never.png").path
        func write(_ name: String, _ text: String) throws -> String {
            let p = d.appendingPathComponent(name).path
            try Data(text.utf8).write(to: URL(fileURLWithPath: p))
            return p
        }
        let cases: [([String], Int32, String)] = [
            ([d.appendingPathComponent("missing.csv").path, "-o", out], 66, "missing.csv"),
            ([try write("bad.geojson", "{\"type\": \"FeatureCollection\",\n \"features\": [}"), "-o", out], 65, "bad.geojson:2:"),
            ([try write("nocoords.csv", "name,height\nA,1\n"), "-o", out], 65, "name, height"),
            ([shared("airports_us.csv"), "--size", "big", "-o", out], 64, "--size"),
            ([shared("airports_us.csv"), "-o", d.appendingPathComponent("map.gif").path], 64, "format"),
            ([shared("airports_us.csv"), "--style", try write("s.json", #"{"marker": {"fil": "red"}}"#), "-o", out], 78, "marker.fil"),
            ([shared("airports_us.csv"), "-o", "/nonexistent-dir/x.png"], 73, "/nonexistent-dir"),
            ([shared("airports_us.csv"), "--center", "95,0", "--zoom", "3", "-o", out], 64, "--center"),
        ]
        for (args, code, mention) in cases {
            let r = try run(args)
            #expect(r.status == code, "\(args): \(r.stderr)")
            #expect(r.stderr.contains(mention), "\(args): \(r.stderr)")
            #expect(r.stderr.split(separator: "\n").count <= 3, "\(args): \(r.stderr)")
        }
        #expect(!FileManager.default.fileExists(atPath: out))
    }

    @Test func compareExitCodes() throws {
        let d = try tempDir(); defer { try? FileManager.default.removeItem(at: d) }
        let a = d.appendingPathComponent("a.png").path, b = d.appendingPathComponent("b.png").path
        let diff = d.appendingPathComponent("diff.png").path
        #expect(try run(["samples/populated_places.geojson", "--size", "300x200", "-o", a]).status == 0)
        #expect(try run(["samples/populated_places.geojson", "--size", "300x200", "-o", b]).status == 0)
        let same = try run(["compare", a, b])
        #expect(same.status == 0)
        #expect(same.stdout.hasPrefix("0 different pixels"))
        #expect(try run(["samples/populated_places.geojson", "--size", "300x200", "--background", "#000000", "-o", b]).status == 0)
        let different = try run(["compare", a, b, "--diff", diff])
        #expect(different.status == 1)
        #expect(FileManager.default.fileExists(atPath: diff))
        #expect(try run(["compare", a, d.appendingPathComponent("nope.png").path]).status == 2)
    }

    @Test func helpDescribesEveryOption() throws {
        let r = try run(["render", "--help"])
        for option in ["--size", "--scale", "--style", "--center", "--zoom", "--bbox", "--max-zoom", "--basemap",
                       "--attribution", "--label", "--summary", "--lat", "--lon", "--id-field", "--delimiter",
                       "--wrap-longitude", "--format", "--text-scale", "--padding", "--marker", "--background"] {
            #expect(r.stdout.contains(option), "help lacks \(option)")
        }
    }
}
