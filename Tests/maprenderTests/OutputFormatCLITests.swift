import Foundation
import MapRender
import MapRenderCairo
import Testing

/// JPEG and WebP output (`-o map.jpg`, `-o map.webp`, `--format`, `--quality`), run as a process:
/// the files decoded by libjpeg-turbo's `djpeg` and libwebp's `dwebp` (Debian libjpeg-turbo-progs,
/// webp; scripts/deps.sh) look like the PNG of the same map, and two runs give the same bytes.
@Suite struct OutputFormatCLITests {
    let cli = CLITests()
    static let map = ["samples/populated_places.geojson", "--basemap", "samples/ne_110m_admin_0_countries.geojson",
                      "--label", "name", "--size", "480x320", "--attribution", "Made with Natural Earth"]

    /// Runs a tool from /usr/bin and returns its standard output.
    func tool(_ name: String, _ args: [String]) throws -> Data {
        let p = Process()
        p.executableURL = URL(fileURLWithPath: "/usr/bin/" + name)
        p.arguments = args
        let out = Pipe()
        p.standardOutput = out
        p.standardError = FileHandle.nullDevice
        try p.run()
        let data = out.fileHandleForReading.readDataToEndOfFile()
        p.waitUntilExit()
        #expect(p.terminationStatus == 0, "\(name) \(args) failed")
        return data
    }

    /// A binary PPM (P6, maxval 255) as RGBA.
    func ppm(_ data: Data) throws -> RGBAImage {
        let bytes = [UInt8](data)
        var fields: [String] = [], i = 0
        while fields.count < 4 {
            while i < bytes.count, bytes[i] == 0x20 || bytes[i] == 0x0A || bytes[i] == 0x09 || bytes[i] == 0x0D { i += 1 }
            var word = ""
            while i < bytes.count, ![0x20, 0x0A, 0x09, 0x0D].contains(bytes[i]) { word.append(Character(UnicodeScalar(bytes[i]))); i += 1 }
            fields.append(word)
        }
        i += 1 // the one whitespace byte after maxval
        try #require(fields[0] == "P6" && fields[3] == "255", "not a P6 PPM: \(fields)")
        let w = try #require(Int(fields[1])), h = try #require(Int(fields[2]))
        try #require(bytes.count - i == w * h * 3)
        var rgba = [UInt8](repeating: 255, count: w * h * 4)
        for k in 0..<(w * h) {
            rgba[4 * k] = bytes[i + 3 * k]; rgba[4 * k + 1] = bytes[i + 3 * k + 1]; rgba[4 * k + 2] = bytes[i + 3 * k + 2]
        }
        return RGBAImage(width: w, height: h, pixels: rgba)
    }

    func decoded(_ path: String) throws -> RGBAImage {
        path.hasSuffix(".webp") ? try ppm(tool("dwebp", ["-quiet", "-ppm", path, "-o", "-"]))
            : try ppm(tool("djpeg", ["-ppm", path]))
    }

    func render(_ out: String, _ extra: [String] = []) throws -> Data {
        let r = try cli.run(Self.map + ["-o", out] + extra)
        #expect(r.status == 0, "\(r.stderr)")
        return try Data(contentsOf: URL(fileURLWithPath: out))
    }

    @Test func jpegAndWebPLookLikeThePNGAndRepeatTheirBytes() throws {
        let d = try cli.tempDir(); defer { try? FileManager.default.removeItem(at: d) }
        func path(_ name: String) -> String { d.appendingPathComponent(name).path }
        let png = try PNGCodec.decode(data: render(path("map.png")))
        for name in ["map.jpg", "map.jpeg", "map.webp"] {
            let bytes = try render(path(name))
            #expect(bytes.starts(with: name.hasSuffix(".webp") ? Array("RIFF".utf8) : [0xFF, 0xD8, 0xFF]), "\(name)")
            let image = try decoded(path(name))
            let diff = try ImageDiff.compare(png, image)
            #expect(diff.differentFraction <= 0.02, "\(name): \(diff.differentPixels) of \(diff.totalPixels) pixels differ")
            // Deterministic: a second run writes the same bytes.
            #expect(try render(path("again-" + name)) == bytes, "\(name) differs between runs")
        }
        // .jpg and .jpeg are one format.
        #expect(try Data(contentsOf: URL(fileURLWithPath: path("map.jpg"))) == Data(contentsOf: URL(fileURLWithPath: path("map.jpeg"))))
    }

    @Test func qualityChangesTheBytesAndWebP100IsLossless() throws {
        let d = try cli.tempDir(); defer { try? FileManager.default.removeItem(at: d) }
        func path(_ name: String) -> String { d.appendingPathComponent(name).path }
        let png = try PNGCodec.decode(data: render(path("map.png")))
        let q90 = try render(path("q90.jpg"))
        let q30 = try render(path("q30.jpg"), ["--quality", "30"])
        #expect(q30.count < q90.count)
        #expect(try render(path("default.jpg"), ["--quality", "90"]) == q90, "the default quality is 90")
        // WebP at 100 is lossless: the same pixels as the PNG.
        _ = try render(path("lossless.webp"), ["--quality", "100"])
        let lossless = try decoded(path("lossless.webp"))
        #expect(lossless.pixels == png.pixels)
        // --format names the format whatever the extension, and standard output takes it.
        let r = try cli.run(Self.map + ["-o", "-", "--format", "webp"])
        #expect(r.status == 0, "\(r.stderr)")
        #expect(r.stdoutData == (try render(path("std.webp"))))
        #expect(try cli.run(Self.map + ["-o", "-", "--format", "jpg"]).stdoutData == q90)
        // Out of range: a usage error naming the option.
        let bad = try cli.run(Self.map + ["-o", path("x.jpg"), "--quality", "0"])
        #expect(bad.status == 64)
        #expect(bad.stderr.contains("--quality"), "\(bad.stderr)")
    }

    @Test func batchWritesJPEGAndWebPFromTheExtensionOrFormat() throws {
        let d = try cli.tempDir(); defer { try? FileManager.default.removeItem(at: d) }
        func path(_ name: String) -> String { d.appendingPathComponent(name).path }
        let manifest = d.appendingPathComponent("jobs.yaml")
        try Data("""
        defaults:
          input: \(CLITests.repo.appendingPathComponent("samples/populated_places.geojson").path)
          basemap: \(CLITests.repo.appendingPathComponent("samples/ne_110m_admin_0_countries.geojson").path)
          label: name
          size: 480x320
          attribution: Made with Natural Earth
        jobs:
          - output: a.jpg
          - output: b.webp
          - output: c.img
            format: jpeg
            quality: 30
        """.utf8).write(to: manifest)
        let r = try cli.run(["batch", manifest.path, "--allow-outside-root"])
        #expect(r.status == 0, "\(r.stderr)")
        // The same bytes as `render` writes for the same options.
        #expect(try Data(contentsOf: URL(fileURLWithPath: path("a.jpg"))) == render(path("cli.jpg")))
        #expect(try Data(contentsOf: URL(fileURLWithPath: path("b.webp"))) == render(path("cli.webp")))
        #expect(try Data(contentsOf: URL(fileURLWithPath: path("c.img"))) == render(path("cli30.jpg"), ["--quality", "30"]))
    }
}
