import Foundation
import Testing
import TestSupport

/// Issue 45: hostile tilesets, output streams that fail (a full or closed standard output),
/// option values that would have crashed or silently misbehaved, and `compare`'s documented exit
/// codes. Each runs the real binary and checks the exact message and exit code.
@Suite struct HostileCLITests {
    let cli = CLITests()
    static let airports = "samples/airports_us.csv"

    struct Run { var status: Int32; var stderr: String }

    /// Runs maprender with standard output `/dev/full`, or closed (`>&-`) when `closed`.
    func run(_ args: [String], closed: Bool = false) throws -> Run {
        let p = Process()
        if closed {
            p.executableURL = URL(fileURLWithPath: "/bin/sh")
            p.arguments = ["-c", "exec \"$0\" \"$@\" >&-", CLITests.binary.path] + args
        } else {
            p.executableURL = CLITests.binary
            p.arguments = args
            p.standardOutput = FileHandle(forWritingAtPath: "/dev/full")
        }
        p.currentDirectoryURL = CLITests.repo
        let err = Pipe()
        p.standardError = err
        p.standardInput = FileHandle.nullDevice
        try p.run()
        let e = err.fileHandleForReading.readDataToEndOfFile()
        p.waitUntilExit()
        return Run(status: p.terminationStatus, stderr: String(decoding: e, as: UTF8.self))
    }

    static let full = "maprender: error: cannot write standard output: No space left on device\n"
    static let closed = "maprender: error: cannot write standard output: Bad file descriptor\n"

    // MARK: - A full or closed standard output

    @Test func renderToAFullStdout() throws {
        let r = try run([Self.airports, "-o", "-", "--format", "png", "--size", "120x90"])
        #expect(r.status == 74 && r.stderr == Self.full, "\(r.status) \(r.stderr)")
    }

    @Test func renderToAClosedStdout() throws {
        let r = try run([Self.airports, "-o", "-", "--format", "svg", "--size", "120x90"], closed: true)
        #expect(r.status == 74 && r.stderr == Self.closed, "\(r.status) \(r.stderr)")
    }

    @Test func summaryToAFullOrClosedStdout() throws {
        let d = try cli.tempDir(); defer { try? FileManager.default.removeItem(at: d) }
        let map = d.appendingPathComponent("m.png").path
        let r = try run([Self.airports, "-o", map, "--size", "120x90", "--summary", "-"])
        #expect(r.status == 74 && r.stderr == Self.full, "\(r.status) \(r.stderr)")
        let c = try run([Self.airports, "-o", map, "--size", "120x90", "--summary", "-"], closed: true)
        #expect(c.status == 74 && c.stderr == Self.closed, "\(c.status) \(c.stderr)")
        // The summary is written before the map replaces anything: the map was never made, and
        // an earlier map stays as it was (it was replaced, then the run failed), with no temporary left.
        #expect(!FileManager.default.fileExists(atPath: map))
        try Data("earlier".utf8).write(to: URL(fileURLWithPath: map))
        let e = try cli.run([Self.airports, "-o", map, "--size", "120x90", "--summary", "/dev/full"])
        #expect(e.status == 73 && e.stderr == "maprender: error: cannot write /dev/full: No space left on device\n", "\(e.status) \(e.stderr)")
        #expect(try Data(contentsOf: URL(fileURLWithPath: map)) == Data("earlier".utf8))
        #expect(try FileManager.default.contentsOfDirectory(atPath: d.path) == ["m.png"])
    }

    @Test func inspectToAFullOrClosedStdout() throws {
        let r = try run(["inspect", Self.airports])
        #expect(r.status == 74 && r.stderr == Self.full, "\(r.status) \(r.stderr)")
        let c = try run(["inspect", Self.airports], closed: true)
        #expect(c.status == 74 && c.stderr == Self.closed, "\(c.status) \(c.stderr)")
    }

    @Test func clusterToAFullOrClosedStdout() throws {
        let r = try run(["cluster", Self.airports, "--zoom", "3"])
        #expect(r.status == 74 && r.stderr == Self.full, "\(r.status) \(r.stderr)")
        let c = try run(["cluster", Self.airports, "--zoom", "3"], closed: true)
        #expect(c.status == 74 && c.stderr == Self.closed, "\(c.status) \(c.stderr)")
    }

    @Test func compareToAFullStdoutIsAnError() throws {
        let d = try cli.tempDir(); defer { try? FileManager.default.removeItem(at: d) }
        let a = d.appendingPathComponent("a.png").path
        #expect(try cli.run([Self.airports, "-o", a, "--size", "60x40"]).status == 0)
        let r = try run(["compare", a, a])
        #expect(r.status == 2 && r.stderr == Self.full, "\(r.status) \(r.stderr)")
    }

    // MARK: - --scale

    @Test func scaleOutside0Point1To8IsAUsageError() throws {
        let d = try cli.tempDir(); defer { try? FileManager.default.removeItem(at: d) }
        let out = d.appendingPathComponent("m.png").path
        for s in ["1e-300", "0.0001", "8.5", "inf"] {
            let r = try cli.run([Self.airports, "-o", out, "--scale", s])
            #expect(r.status == 64, "\(s)")
            let shown = Double(s)?.isFinite == true ? s : "\"\(s)\""  // words that are not decimals are quoted
            #expect(r.stderr.hasPrefix("maprender: error: --scale: expected a number in 0.1...8, got \(shown)\n"), "\(r.stderr)")
            #expect(!FileManager.default.fileExists(atPath: out))
        }
        #expect(try cli.run([Self.airports, "-o", out, "--scale", "0.1", "--size", "200x100"]).status == 0)
    }

    // MARK: - compare's exit codes

    @Test func compareThresholdMinus1ExitsTwo() throws {
        let d = try cli.tempDir(); defer { try? FileManager.default.removeItem(at: d) }
        let a = d.appendingPathComponent("a.png").path
        #expect(try cli.run([Self.airports, "-o", a, "--size", "60x40"]).status == 0)
        let r = try cli.run(["compare", "--threshold", "-1", a, a])
        #expect(r.status == 2)
        #expect(r.stderr == "maprender: error: --threshold must be in 0...1 and --max-diff >= 0\n")
        let m = try cli.run(["compare", a, a, "--max-diff", "-1"])
        #expect(m.status == 2 && m.stderr == "maprender: error: --threshold must be in 0...1 and --max-diff >= 0\n")
        // Any other usage error of compare: 2 as well, with ArgumentParser's message.
        let missing = try cli.run(["compare", a])
        #expect(missing.status == 2 && missing.stderr.hasPrefix("maprender: error: Missing expected argument '<actual>'\n"), "\(missing.stderr)")
        let bad = try cli.run(["compare", a, a, "--threshold", "x"])
        #expect(bad.status == 2, "\(bad.stderr)")
        #expect(try cli.run(["compare", "--help"]).status == 0)
    }

    @Test func compareImagesOfDifferentSizesExitsOne() throws {
        let d = try cli.tempDir(); defer { try? FileManager.default.removeItem(at: d) }
        let a = d.appendingPathComponent("a.png").path, b = d.appendingPathComponent("b.png").path
        #expect(try cli.run([Self.airports, "-o", a, "--size", "100x80"]).status == 0)
        #expect(try cli.run([Self.airports, "-o", b, "--size", "120x80"]).status == 0)
        let r = try cli.run(["compare", a, b])
        #expect(r.status == 1)
        #expect(r.stdout == "image sizes differ: 100x80 vs 120x80\n" && r.stderr.isEmpty)
    }

    // MARK: - Hostile PMTiles through the binary

    @Test func aPMTilesRootLengthPast2To63IsOneLineAndExit65() throws {
        let d = try cli.tempDir(); defer { try? FileManager.default.removeItem(at: d) }
        let p = try HostilePMTiles.file(in: d) { $0.root.1 = (1 << 63) + 5 }
        let r = try cli.run([Self.airports, "-o", d.appendingPathComponent("m.png").path, "--size", "120x90", "--tiles", p])
        #expect(r.status == 65)
        #expect(r.stderr == "maprender: error: --tiles: \(p): the header's root directory offset 127 + length 9223372036854775813 is out of range\n")
    }

    @Test func aPMTilesFirstEntryWithOffset0FailsOnlyItsBatchJob() throws {
        let d = try cli.tempDir(); defer { try? FileManager.default.removeItem(at: d) }
        let bad = try HostilePMTiles.file(in: d, root: HostilePMTiles.directory([(id: 0, run: 1, length: 100, storedOffset: 0)]))
        let good = try HostilePMTiles.file(in: d)
        try FileManager.default.copyItem(atPath: CLITests.repo.appendingPathComponent(Self.airports).path,
                                         toPath: d.appendingPathComponent("pts.csv").path)
        let manifest = d.appendingPathComponent("jobs.yaml")
        try Data("""
        defaults:
          input: pts.csv
          size: 120x90
        jobs:
          - output: a.png
            tiles: \(good)
          - output: b.png
            tiles: \(bad)
          - output: c.png
        """.utf8).write(to: manifest)
        let report = d.appendingPathComponent("report.json").path
        let r = try cli.run(["batch", manifest.path, "--report", report])
        #expect(r.status == 1, "\(r.stderr)")
        for (name, written) in [("a.png", true), ("b.png", false), ("c.png", true)] {
            #expect(FileManager.default.fileExists(atPath: d.appendingPathComponent(name).path) == written, "\(name)")
        }
        #expect(r.stderr.contains("--tiles: \(bad): a directory is corrupt: the first entry has offset 0 (\"after the previous one\")"), "\(r.stderr)")
        #expect(FileManager.default.fileExists(atPath: report))
    }

    // MARK: - Echoed names

    @Test func aBatchOutputNameWithANewlineAndESCCannotForgeALine() throws {
        let d = try cli.tempDir(); defer { try? FileManager.default.removeItem(at: d) }
        try FileManager.default.copyItem(atPath: CLITests.repo.appendingPathComponent(Self.airports).path,
                                         toPath: d.appendingPathComponent("pts.csv").path)
        let manifest = d.appendingPathComponent("jobs.json")
        try Data(#"{"defaults": {"input": "pts.csv", "size": "60x40"}, "jobs": [{"output": "a\n[2/2] ok jobs[9] /etc/shadow\u001b[31m.png"}]}"#.utf8)
            .write(to: manifest)
        let r = try cli.run(["batch", manifest.path])
        #expect(r.status == 0, "\(r.stderr)")
        let lines = r.stderr.split(separator: "\n")
        #expect(lines.count == 2, "\(r.stderr)")
        #expect(lines.first?.contains(#"a\u{A}[2/2] ok jobs[9] /etc/shadow\u{1B}[31m.png ("#) == true, "\(r.stderr)")
        #expect(!r.stderr.contains("\u{1B}"))
    }

    // MARK: - Every tile failing

    @Test func everyTileFailingExits69UnlessAllowMissingTiles() throws {
        let d = try cli.tempDir(); defer { try? FileManager.default.removeItem(at: d) }
        // Port 1: nothing listens, every tile fails at once.
        let args = [Self.airports, "-o", d.appendingPathComponent("m.png").path, "--size", "120x90",
                    "--tiles", "http://127.0.0.1:1/{z}/{x}/{y}.png", "--tile-cache", d.appendingPathComponent("tc").path]
        let r = try cli.run(args)
        let lines = r.stderr.split(separator: "\n")
        #expect(r.status == 69, "\(r.stderr)")
        #expect(lines.count == 1 && lines[0].hasPrefix("maprender: error: tiles: 0 missing, "), "\(r.stderr)")
        #expect(lines.first?.hasSuffix("; no tile arrived (--allow-missing-tiles draws the map without them)") == true, "\(r.stderr)")
        #expect(!FileManager.default.fileExists(atPath: d.appendingPathComponent("m.png").path))
        let allowed = try cli.run(args + ["--allow-missing-tiles"])
        #expect(allowed.status == 0, "\(allowed.stderr)")
        #expect(allowed.stderr.contains("warning: tiles: 0 missing, "), "\(allowed.stderr)")
        #expect(FileManager.default.fileExists(atPath: d.appendingPathComponent("m.png").path))
    }
}
