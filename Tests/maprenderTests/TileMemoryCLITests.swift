import Foundation
import MapRender
import Testing
import TestSupport

/// Issue 45: `--max-memory` covers decoded tiles. Sixteen PNG tiles of a few hundred KB, half of
/// them decoding to 4096 x 4096 (64 MiB of RGBA each), half to 1024 x 1024; and the original
/// attack, 8192² tiles, which the codec's size policy refuses from the header. Peak RSS measured
/// by /usr/bin/time (Debian `time`, installed by scripts/deps.sh).
@Suite(.serialized) struct TileMemoryCLITests {
    let cli = CLITests()

    /// A folder of the 16 tiles of zoom 2: columns 0 and 2 `side`² PNGs, columns 1 and 3 `small`²
    /// (gradients, so they are not one colour).
    func tileFolder(side: Int, small: Int? = nil, in d: URL) throws -> URL {
        let big = try gradientPNG(side)
        let little = try small.map(gradientPNG) ?? big
        let root = d.appendingPathComponent("tiles\(side)")
        for x in 0..<4 {
            let col = root.appendingPathComponent("2/\(x)")
            try FileManager.default.createDirectory(at: col, withIntermediateDirectories: true)
            for y in 0..<4 { try (x % 2 == 0 ? big : little).write(to: col.appendingPathComponent("\(y).png")) }
        }
        return root
    }

    func gradientPNG(_ side: Int) throws -> Data {
        var rgba = [UInt8](repeating: 255, count: side * side * 4)
        for y in 0..<side {
            for x in 0..<side {
                let i = (y * side + x) * 4
                rgba[i] = UInt8(x * 255 / side); rgba[i + 1] = UInt8(y * 255 / side); rgba[i + 2] = 128
            }
        }
        return try ImageCodec.encodePNG(rgba: rgba, width: side, height: side)
    }

    /// Runs the binary under /usr/bin/time: exit status, stderr less time's line, peak RSS in MB.
    func timed(_ args: [String]) throws -> (status: Int32, stderr: String, rssMB: Int) {
        let time = "/usr/bin/time"
        guard FileManager.default.isExecutableFile(atPath: time) else {
            Issue.record("\(time) is missing: scripts/deps.sh installs Debian's `time`")
            return (-1, "", 0)
        }
        let p = Process()
        p.executableURL = URL(fileURLWithPath: time)
        p.arguments = ["-f", "rss=%M", CLITests.binary.path] + args
        p.currentDirectoryURL = CLITests.repo
        let err = Pipe()
        p.standardError = err
        p.standardOutput = FileHandle.nullDevice
        p.standardInput = FileHandle.nullDevice
        try p.run()
        let e = String(decoding: err.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        p.waitUntilExit()
        let r = (status: p.terminationStatus, stderr: e)
        var lines = r.stderr.split(separator: "\n", omittingEmptySubsequences: false).map(String.init)
        let rssLine = lines.lastIndex { $0.hasPrefix("rss=") }
        let kb = rssLine.flatMap { Int(lines[$0].dropFirst(4)) } ?? -1
        if let i = rssLine { lines.remove(at: i) }
        return (r.status, lines.joined(separator: "\n"), kb / 1024)
    }

    @Test func tilesDecodingPast4096PNGsShareOfMaxMemoryAreRefused() throws {
        let d = try cli.tempDir(); defer { try? FileManager.default.removeItem(at: d) }
        let tiles = try tileFolder(side: 4096, small: 1024, in: d)
        let size = try FileManager.default.attributesOfItem(atPath: tiles.appendingPathComponent("2/0/0.png").path)[.size] as? Int ?? 0
        func args(_ out: String) -> [String] {
            ["samples/airports_us.csv", "--center", "0,0", "--zoom", "1", "--size", "1024x1024",
             "--tiles", tiles.path, "-o", d.appendingPathComponent(out).path]
        }
        let bounded = try timed(args("m.png") + ["--max-memory", "500"])
        print("8 PNG tiles of \(size / 1024) KB decoding to 4096², 8 to 1024²: --max-memory 500: exit \(bounded.status), peak \(bounded.rssMB) MB")
        // Each of the 16 tiles may take 1/16 of what the limit leaves (about 488 MB: 30 MB); the
        // 4096² ones (64 MiB) are refused from their headers, the others drawn. Exit 0: some arrived.
        #expect(bounded.status == 0, "\(bounded.stderr)")
        #expect(bounded.stderr.contains("maprender: warning: tiles: 8 of 16 not decoded: each tile may take 30 MB decoded, its share of the "),
                "\(bounded.stderr)")
        #expect(bounded.stderr.contains("tile 2/0/0: its 4096x4096 pixels (64 MB decoded) would take more than its share of what --max-memory leaves for the map's decoded tiles (30 MB a tile, of "),
                "\(bounded.stderr)")
        #expect(bounded.rssMB > 0 && bounded.rssMB < 250, "peak RSS \(bounded.rssMB) MB")
        // Without the limit (the default 8192 MB) all 16 are decoded: the memory the limit saved.
        let unbounded = try timed(args("all.png"))
        print("the same without --max-memory: exit \(unbounded.status), peak \(unbounded.rssMB) MB")
        #expect(unbounded.status == 0 && !unbounded.stderr.contains("not decoded"), "\(unbounded.stderr)")
        #expect(unbounded.rssMB > 512, "peak RSS \(unbounded.rssMB) MB")
        // The same map drawn twice under the limit: the same bytes (the share does not depend on arrival order).
        let again = try cli.run(args("m2.png") + ["--max-memory", "500"])
        #expect(again.status == 0)
        #expect(try Data(contentsOf: d.appendingPathComponent("m.png")) == Data(contentsOf: d.appendingPathComponent("m2.png")))
    }

    @Test func sixteen8192PNGTilesAreRefusedFromTheirHeaders() throws {
        let d = try cli.tempDir(); defer { try? FileManager.default.removeItem(at: d) }
        let tiles = try tileFolder(side: 8192, in: d)
        let size = try FileManager.default.attributesOfItem(atPath: tiles.appendingPathComponent("2/0/0.png").path)[.size] as? Int ?? 0
        let r = try timed(["samples/airports_us.csv", "--center", "0,0", "--zoom", "1", "--size", "1024x1024",
                           "--tiles", tiles.path, "-o", d.appendingPathComponent("m.png").path, "--max-memory", "500"])
        print("16 PNG tiles of \(size / 1024) KB decoding to 8192²: exit \(r.status), peak \(r.rssMB) MB")
        #expect(r.status == 69, "\(r.stderr)")
        #expect(r.stderr.contains("not a readable image: PNG is 8192x8192 pixels, outside 1x1...4096x4096"), "\(r.stderr)")
        #expect(r.rssMB > 0 && r.rssMB < 200, "peak RSS \(r.rssMB) MB")
    }

    /// One vector tile (MVT, written here by hand) holding a zig-zag line of `vertices` vertices:
    /// two bytes a vertex, so 3M vertices are a 6 MB tile that decodes to a few hundred MB.
    func zigzagTile(vertices: Int) -> Data {
        func varint(_ v: UInt64) -> [UInt8] {
            var v = v, out: [UInt8] = []
            while v >= 0x80 { out.append(UInt8(v & 0x7f) | 0x80); v >>= 7 }
            out.append(UInt8(v)); return out
        }
        func bytes(_ field: Int, _ b: [UInt8]) -> [UInt8] { varint(UInt64(field << 3 | 2)) + varint(UInt64(b.count)) + b }
        var geometry: [UInt8] = varint(1 << 3 | 1) + [0x80, 0x20, 0x80, 0x20]  // MoveTo (2048, 2048)
        geometry += varint(UInt64((vertices - 1) << 3 | 2))                      // LineTo × (vertices − 1)
        geometry.reserveCapacity(geometry.count + vertices * 2)
        for i in 1..<vertices { geometry += i % 2 == 1 ? [2, 2] : [1, 1] }       // (+1, +1), (−1, −1)
        let feature = varint(3 << 3) + varint(2) + bytes(4, geometry)          // type LineString
        let layer = varint(15 << 3) + varint(2) + bytes(1, Array("lines".utf8)) + bytes(2, feature)
            + varint(5 << 3) + varint(4096)
        return Data(bytes(3, layer))
    }

    /// The basemap-style stage under `--max-memory`: four vector tiles of 3M vertices each. Each
    /// may take a quarter of what the limit leaves; past that its decoding stops at the share's
    /// vertex count, so the tiles are refused, with a warning, and peak memory stays low.
    @Test func vectorTilesPastTheirShareOfMaxMemoryAreRefused() throws {
        let d = try cli.tempDir(); defer { try? FileManager.default.removeItem(at: d) }
        let tile = zigzagTile(vertices: 3_000_000)
        let root = d.appendingPathComponent("vector")
        for x in 0..<2 {
            let col = root.appendingPathComponent("1/\(x)")
            try FileManager.default.createDirectory(at: col, withIntermediateDirectories: true)
            for y in 0..<2 { try tile.write(to: col.appendingPathComponent("\(y).pbf")) }
        }
        let style: [String: Any] = [
            "version": 8,
            "sources": ["v": ["type": "vector", "url": "file://" + root.path, "maxzoom": 1]],
            "layers": [["id": "bg", "type": "background", "paint": ["background-color": "#eeeeee"]],
                       ["id": "l", "type": "line", "source": "v", "source-layer": "lines", "paint": ["line-color": "#333333"]]],
        ]
        let stylePath = d.appendingPathComponent("style.json")
        try JSONSerialization.data(withJSONObject: style, options: [.sortedKeys]).write(to: stylePath)
        func args(_ out: String) -> [String] {
            ["samples/capitals.csv", "--center", "0,0", "--zoom", "1", "--size", "1024x1024",
             "--basemap-style", stylePath.path, "-o", d.appendingPathComponent(out).path]
        }
        let summaryPath = d.appendingPathComponent("summary.json")
        let bounded = try timed(args("m.png") + ["--max-memory", "300", "--summary", summaryPath.path])
        print("4 vector tiles of \(tile.count / 1024) KB, 3M vertices each, --max-memory 300: exit \(bounded.status), peak \(bounded.rssMB) MB")
        #expect(bounded.status == 0, "\(bounded.stderr)")
        #expect(bounded.stderr.contains("maprender: warning: basemap style: source \"v\": 4 of 4 tiles not decoded: each tile may take "),
                "\(bounded.stderr)")
        #expect(bounded.stderr.contains(", its share of the ") && bounded.stderr.contains(" that --max-memory leaves for this source's tiles"),
                "\(bounded.stderr)")
        #expect(bounded.rssMB > 0 && bounded.rssMB < 200, "peak RSS \(bounded.rssMB) MB")
        // The summary counts them failed, as refused raster tiles are, not fetched.
        let summary = try JSONSerialization.jsonObject(with: Data(contentsOf: summaryPath)) as? [String: Any]
        let tiles = (summary?["basemapStyle"] as? [String: Any])?["tiles"] as? [String: Int]
        #expect(tiles?["requested"] == 4 && tiles?["failed"] == 4 && tiles?["fetched"] == 0, "\(String(describing: tiles))")
        // Without the limit all four are decoded and drawn: the memory the limit saved.
        let unbounded = try timed(args("all.png"))
        print("the same without --max-memory: exit \(unbounded.status), peak \(unbounded.rssMB) MB")
        #expect(unbounded.status == 0 && !unbounded.stderr.contains("not decoded"), "\(unbounded.stderr)")
        #expect(unbounded.rssMB > bounded.rssMB + 150, "peak RSS \(unbounded.rssMB) MB against \(bounded.rssMB) MB")
    }
}
