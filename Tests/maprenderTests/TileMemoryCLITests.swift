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
}
