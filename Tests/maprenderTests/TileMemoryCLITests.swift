import Foundation
import MapRender
import Testing
import TestSupport

/// Issue 45: `--max-memory` covers decoded tiles. Sixteen PNG tiles of a few hundred KB that
/// decode to 4096 x 4096 each (64 MiB of RGBA, 1 GiB together); and the original attack, 8192²
/// tiles, which the codec's size policy refuses from the header. Peak RSS measured by
/// /usr/bin/time (Debian `time`, installed by scripts/deps.sh).
@Suite(.serialized) struct TileMemoryCLITests {
    let cli = CLITests()

    /// A folder of the 16 tiles of zoom 2, each a `side`² PNG (a gradient, so it is not one colour).
    func tileFolder(side: Int, in d: URL) throws -> URL {
        var rgba = [UInt8](repeating: 255, count: side * side * 4)
        for y in 0..<side {
            for x in 0..<side {
                let i = (y * side + x) * 4
                rgba[i] = UInt8(x * 255 / side); rgba[i + 1] = UInt8(y * 255 / side); rgba[i + 2] = 128
            }
        }
        let png = try ImageCodec.encodePNG(rgba: rgba, width: side, height: side)
        let root = d.appendingPathComponent("tiles\(side)")
        for x in 0..<4 {
            let col = root.appendingPathComponent("2/\(x)")
            try FileManager.default.createDirectory(at: col, withIntermediateDirectories: true)
            for y in 0..<4 { try png.write(to: col.appendingPathComponent("\(y).png")) }
        }
        return root
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

    @Test func sixteen4096PNGTilesStayWithinMaxMemory() throws {
        let d = try cli.tempDir(); defer { try? FileManager.default.removeItem(at: d) }
        let tiles = try tileFolder(side: 4096, in: d)
        let size = try FileManager.default.attributesOfItem(atPath: tiles.appendingPathComponent("2/0/0.png").path)[.size] as? Int ?? 0
        let args = ["samples/airports_us.csv", "--center", "0,0", "--zoom", "2", "--size", "1024x1024",
                    "--tiles", tiles.path, "-o", d.appendingPathComponent("m.png").path]
        let bounded = try timed(args + ["--max-memory", "500"])
        print("16 PNG tiles of \(size / 1024) KB decoding to 4096²: --max-memory 500: exit \(bounded.status), peak \(bounded.rssMB) MB")
        #expect(bounded.status == 0, "\(bounded.stderr)")
        // Some tiles fit in what the limit leaves (about 488 MB: 7 of 64 MiB), the rest are refused, with a warning.
        #expect(bounded.stderr.contains("maprender: warning: tiles: 9 of 16 not decoded: they would take the map's decoded tiles past the 488 MB that --max-memory leaves for them"),
                "\(bounded.stderr)")
        #expect(bounded.stderr.contains("would take the map's decoded tiles past what --max-memory leaves for them (488 MB)"), "\(bounded.stderr)")
        #expect(bounded.rssMB > 0 && bounded.rssMB < 700, "peak RSS \(bounded.rssMB) MB")
        // Without the limit (the default 8192 MB) all 16 are decoded: the figure the limit saves.
        let unbounded = try timed(args)
        print("the same without --max-memory: exit \(unbounded.status), peak \(unbounded.rssMB) MB")
        #expect(unbounded.status == 0 && !unbounded.stderr.contains("not decoded"), "\(unbounded.stderr)")
        #expect(unbounded.rssMB > 1024, "peak RSS \(unbounded.rssMB) MB")
    }

    @Test func sixteen8192PNGTilesAreRefusedFromTheirHeaders() throws {
        let d = try cli.tempDir(); defer { try? FileManager.default.removeItem(at: d) }
        let tiles = try tileFolder(side: 8192, in: d)
        let size = try FileManager.default.attributesOfItem(atPath: tiles.appendingPathComponent("2/0/0.png").path)[.size] as? Int ?? 0
        let r = try timed(["samples/airports_us.csv", "--center", "0,0", "--zoom", "2", "--size", "1024x1024",
                           "--tiles", tiles.path, "-o", d.appendingPathComponent("m.png").path, "--max-memory", "500"])
        print("16 PNG tiles of \(size / 1024) KB decoding to 8192²: exit \(r.status), peak \(r.rssMB) MB")
        #expect(r.status == 69, "\(r.stderr)")
        #expect(r.stderr.contains("not a readable image: PNG is 8192x8192 pixels, outside 1x1...4096x4096"), "\(r.stderr)")
        #expect(r.rssMB > 0 && r.rssMB < 200, "peak RSS \(r.rssMB) MB")
    }
}
