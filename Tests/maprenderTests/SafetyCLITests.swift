import Foundation
import Testing
import TestSupport

/// Issue 14: nothing a file, an option or a manifest holds crashes maprender, exhausts the
/// machine, destroys data or reaches outside its folder. Each case runs the real binary and
/// checks the exact message and exit code (and that the files it must not touch are intact).
@Suite struct SafetyCLITests {
    let cli = CLITests()
    static let airports = "samples/airports_us.csv"

    func run(_ args: [String], stdin: Data? = nil) throws -> CLITests.Run { try cli.run(args, stdin: stdin) }

    /// A fresh folder, removed by the caller.
    func folder() throws -> URL { try cli.tempDir() }

    func write(_ text: String, _ url: URL) throws { try Data(text.utf8).write(to: url) }

    /// A copy of the airports sample at `path`.
    func copyAirports(to path: String) throws {
        try FileManager.default.copyItem(atPath: CLITests.repo.appendingPathComponent(Self.airports).path, toPath: path)
    }

    /// A fresh folder holding a copy of the airports as `pts.csv`, removed by the caller.
    func folderWithPoints() throws -> URL {
        let d = try folder()
        try copyAirports(to: d.appendingPathComponent("pts.csv").path)
        return d
    }

    // MARK: - Outputs never replace inputs or each other

    @Test func outputOntoItsInputIsRefused() throws {
        let d = try folder(); defer { try? FileManager.default.removeItem(at: d) }
        let input = d.appendingPathComponent("in.csv")
        try copyAirports(to: input.path)
        let before = try Data(contentsOf: input)
        let r = try run([input.path, "-o", input.path, "--format", "png"])
        #expect(r.status == 64)
        #expect(r.stderr == "maprender: error: refusing to write --output \(input.path): it is the input \(input.path); choose another output\n")
        #expect(try Data(contentsOf: input) == before)

        let s = try run([input.path, "-o", d.appendingPathComponent("m.png").path, "--summary", input.path])
        #expect(s.status == 64)
        #expect(s.stderr == "maprender: error: refusing to write --summary \(input.path): it is the input \(input.path); choose another output\n")
        #expect(try Data(contentsOf: input) == before)
    }

    @Test func twoOutputsOnOneFileAreRefused() throws {
        let d = try folder(); defer { try? FileManager.default.removeItem(at: d) }
        let map = d.appendingPathComponent("map.svg").path
        let r = try run([Self.airports, "-o", map, "--summary", map])
        #expect(r.status == 64)
        #expect(r.stderr == "maprender: error: refusing to write --summary \(map): it is also the --output; give each output its own file\n")
        #expect(!FileManager.default.fileExists(atPath: map))
    }

    @Test func aHardLinkToTheInputIsTheInput() throws {
        let d = try folder(); defer { try? FileManager.default.removeItem(at: d) }
        let input = d.appendingPathComponent("in.csv").path, alias = d.appendingPathComponent("alias.png").path
        try copyAirports(to: input)
        #expect(link(input, alias) == 0)
        let r = try run([input, "-o", alias])
        #expect(r.status == 64)
        #expect(r.stderr == "maprender: error: refusing to write --output \(alias): it is the input \(input); choose another output\n")
    }

    // MARK: - Atomic replacement changes only the bytes

    @Test func aSymlinkedOutputKeepsItsLinkAndAFileItsMode() throws {
        let d = try folder(); defer { try? FileManager.default.removeItem(at: d) }
        let target = d.appendingPathComponent("real.png").path, linkPath = d.appendingPathComponent("link.png").path
        try write("old", URL(fileURLWithPath: target))
        #expect(chmod(target, 0o600) == 0)
        try FileManager.default.createSymbolicLink(atPath: linkPath, withDestinationPath: "real.png")
        let r = try run([Self.airports, "-o", linkPath, "--size", "120x90"])
        #expect(r.status == 0, "\(r.stderr)")
        #expect(try FileManager.default.destinationOfSymbolicLink(atPath: linkPath) == "real.png")
        #expect(try Data(contentsOf: URL(fileURLWithPath: target)).prefix(4) == Data([0x89, 0x50, 0x4E, 0x47]))
        var st = stat()
        #expect(stat(target, &st) == 0 && st.st_mode & 0o7777 == 0o600)
        // Nothing but the two entries is left in the folder (no temporary file).
        #expect(try FileManager.default.contentsOfDirectory(atPath: d.path).sorted() == ["link.png", "real.png"])
    }

    @Test func aDeviceIsWrittenNotReplaced() throws {
        let r = try run([Self.airports, "-o", "/dev/null", "--format", "png", "--size", "120x90"])
        #expect(r.status == 0, "\(r.stderr)")
        var st = stat()
        #expect(stat("/dev/null", &st) == 0 && st.st_mode & S_IFMT == S_IFCHR)
    }

    @Test func staleTemporaryFilesOfDeadRunsAreRemoved() throws {
        let d = try folder(); defer { try? FileManager.default.removeItem(at: d) }
        // A process id that no longer runs: a child that has exited.
        let child = Process()
        child.executableURL = URL(fileURLWithPath: "/bin/true")
        try child.run()
        child.waitUntilExit()
        let dead = child.processIdentifier
        let stale = [".map.png.maprender-tmp-\(dead)-12345", ".map.png.tmp-\(dead)-7"]
        let kept = [".map.png.maprender-tmp-\(getpid())-1", ".other.png.maprender-tmp-\(dead)-1", "notes.txt"]
        for n in stale + kept { try write("partial", d.appendingPathComponent(n)) }
        let r = try run([Self.airports, "-o", d.appendingPathComponent("map.png").path, "--size", "120x90"])
        #expect(r.status == 0, "\(r.stderr)")
        #expect(try FileManager.default.contentsOfDirectory(atPath: d.path).sorted() == (kept + ["map.png"]).sorted())
    }

    // MARK: - An empty result keeps the old map

    @Test func anEmptyResultFailsAndKeepsTheOldOutput() throws {
        let d = try folder(); defer { try? FileManager.default.removeItem(at: d) }
        let out = d.appendingPathComponent("map.png")
        try write("the last good map", out)
        let filter = #"["==", ["get", "state"], "nowhere"]"#
        let r = try run([Self.airports, "-o", out.path, "--filter", filter])
        #expect(r.status == 65)
        #expect(r.stderr == "maprender: error: \(Self.airports): no points to draw (--filter kept none of 3376 points); nothing written (--allow-empty writes an empty map)\n")
        #expect(try String(contentsOf: out, encoding: .utf8) == "the last good map")

        let bad = d.appendingPathComponent("bad.csv")
        try write("lat,lon\n999,0\nx,y\n", bad)
        let b = try run([bad.path, "-o", out.path])
        #expect(b.status == 65)
        #expect(b.stderr.hasSuffix("maprender: error: \(bad.path): no points to draw (none of 2 records has valid coordinates: 1 coordinate is not a number, 1 latitude outside -90..90); nothing written (--allow-empty writes an empty map)\n"))
        #expect(try String(contentsOf: out, encoding: .utf8) == "the last good map")

        let allowed = try run([Self.airports, "-o", out.path, "--filter", filter, "--allow-empty", "--size", "120x90"])
        #expect(allowed.status == 0, "\(allowed.stderr)")
        #expect(try Data(contentsOf: out).prefix(4) == Data([0x89, 0x50, 0x4E, 0x47]))
    }

    // MARK: - Memory, estimated before reading

    @Test func aRenderTooLargeForMemoryIsRefusedUpFront() throws {
        // 32000 x 32000 pixels at 12 bytes each.
        let r = try run([Self.airports, "-o", "/dev/null", "--format", "png", "--size", "16000x16000", "--scale", "2"])
        #expect(r.status == 64)
        #expect(r.stderr == "maprender: error: the render would need about 11721 MB of memory (11719 MB for the image, 1.4 MB for about 3415 CSV rows), more than the limit of 8192 MB; --max-memory raises it\n")
        let small = try run([Self.airports, "-o", "/dev/null", "--format", "png", "--size", "800x600", "--max-memory", "5"])
        #expect(small.status == 64)
        #expect(small.stderr == "maprender: error: the render would need about 6.8 MB of memory (5.5 MB for the image, 1.4 MB for about 3415 CSV rows), more than the limit of 5 MB; --max-memory raises it\n")
        let geo = try run(["samples/populated_places.geojson", "-o", "/dev/null", "--format", "png", "--size", "800x600", "--max-memory", "2"])
        #expect(geo.status == 64)
        #expect(geo.stderr == "maprender: error: the render would need about 5.6 MB of memory (5.5 MB for the image, 0.1 MB for the GeoJSON files), more than the limit of 2 MB; --max-memory raises it\n")
    }

    @Test func aCSVFromStandardInputIsBoundedWhileRead() throws {
        // Not known up front: the 100x100 image leaves 928576 bytes of the 1 MB, 2321 points.
        let csv = "lat,lon\n" + (0..<5000).map { "\($0 % 80).5,\($0 % 170).5\n" }.joined()
        let r = try run(["-", "-o", "/dev/null", "--format", "png", "--size", "100x100", "--max-memory", "1"], stdin: Data(csv.utf8))
        #expect(r.status == 64)
        #expect(r.stderr == "maprender: error: <stdin>: reading stopped at 2322 points (line 2323): at about 400 bytes each, they and the image would need more than the limit of 1 MB; --max-memory raises it\n")
        let fits = try run(["-", "-o", "/dev/null", "--format", "png", "--size", "100x100", "--max-memory", "3"], stdin: Data(csv.utf8))
        #expect(fits.status == 0, "\(fits.stderr)")
    }

    /// `cluster` and `inspect` draw nothing, but read the whole input: the same bound, less the image.
    @Test func clusterAndInspectAreBoundedLikeARender() throws {
        let inspect = try run(["inspect", Self.airports, "--max-memory", "1"])
        #expect(inspect.status == 64)
        #expect(inspect.stderr == "maprender: error: reading the input would need about 1.4 MB of memory (1.4 MB for about 3415 CSV rows), more than the limit of 1 MB; --max-memory raises it\n")
        #expect(inspect.stdout.isEmpty)
        let cluster = try run(["cluster", "samples/world_cities.csv", "--zoom", "1", "--max-memory", "2"])
        #expect(cluster.status == 64)
        #expect(cluster.stderr == "maprender: error: reading the input would need about 13 MB of memory (13 MB for about 33526 CSV rows), more than the limit of 2 MB; --max-memory raises it\n")
        #expect(cluster.stdout.isEmpty)
        // Within the limit: read as before.
        let fits = try run(["inspect", Self.airports, "--max-memory", "2"])
        #expect(fits.status == 0, "\(fits.stderr)")
        #expect(fits.stdout.contains(#""pointsRead" : 3376"#), "\(fits.stdout.prefix(400))")
        // Standard input is bounded while read: 1 MB holds 2621 points, GeoJSON a third of its bytes.
        let csv = "lat,lon\n" + (0..<5000).map { "\($0 % 80).5,\($0 % 170).5\n" }.joined()
        let streamed = try run(["inspect", "-", "--input-format", "csv", "--max-memory", "1"], stdin: Data(csv.utf8))
        #expect(streamed.status == 64)
        #expect(streamed.stderr == "maprender: error: <stdin>: reading stopped at 2622 points (line 2623): at about 400 bytes each, they would need more than the limit of 1 MB; --max-memory raises it\n")
        let features = (0..<5000).map { #"{"type":"Feature","properties":{},"geometry":{"type":"Point","coordinates":[\#($0 % 170),1]}}"# }
        let geo = #"{"type":"FeatureCollection","features":["# + features.joined(separator: ",") + "]}"
        let g = try run(["cluster", "-", "--zoom", "1", "--input-format", "geojson", "--max-memory", "1"], stdin: Data(geo.utf8))
        #expect(g.status == 64)
        // Where reading stops depends on how the pipe hands the bytes over: past 1 MB / 3, short of the whole.
        let head = "maprender: error: <stdin>: reading stopped at "
        let tail = " bytes of GeoJSON: parsed (about 3 times its size), it would need more than the limit of 1 MB; --max-memory raises it\n"
        #expect(g.stderr.hasPrefix(head) && g.stderr.hasSuffix(tail), "\(g.stderr)")
        let stoppedAt = Int(g.stderr.dropFirst(head.count).dropLast(tail.count)) ?? 0
        #expect(stoppedAt > (1 << 20) / 3 && stoppedAt < geo.utf8.count, "\(g.stderr)")
    }

    // MARK: - Filters and expressions

    @Test func filtersThatCannotSelectAreErrors() throws {
        let out = "/dev/null"
        let constant = try run([Self.airports, "-o", out, "--format", "png", "--filter", #"["+", 1, 2]"#])
        #expect(constant.status == 78)
        #expect(constant.stderr == "maprender: error: --filter: filter: expected a boolean, got 3 (the expression's constant value)\n")
        let literal = try run([Self.airports, "-o", out, "--format", "png", "--filter", "42"])
        #expect(literal.status == 78)
        #expect(literal.stderr == #"maprender: error: --filter: filter: expected an expression like ["==", ["get", "country"], "FR"] or a comparison like country == "FR", got 42"# + "\n")
        let text = try run([Self.airports, "-o", out, "--format", "png", "--filter", #"["get", "state"]"#])
        #expect(text.status == 78)
        #expect(text.stderr == #"maprender: error: --filter: feature 0: the expression gave "MS", not true or false; the point is left out (3376 features in all); a filter must give a boolean, e.g. ["==", ["get", "type"], "city"]"# + "\n")
    }

    @Test func unusableExpressionResultsWarnOnceAndStrictMakesThemErrors() throws {
        let d = try folder(); defer { try? FileManager.default.removeItem(at: d) }
        let style = d.appendingPathComponent("s.json")
        try write(#"{ "marker": { "size": ["/", 1, ["-", ["get", "state"], 0]], "fill": ["get", "city"] } }"#, style)
        let args = [Self.airports, "-o", "/dev/null", "--format", "png", "--size", "120x90", "--style", style.path]
        let r = try run(args)
        #expect(r.status == 0, "\(r.stderr)")
        #expect(r.stderr == """
            maprender: warning: marker.fill: feature 0: the expression gave "Bay Springs", not a colour; the style's fill is used (3373 features in all)
            maprender: warning: marker.size: feature 0: the expression gave null, not a finite number; the style's size 28 px is used (3376 features in all)

            """)
        let strict = try run(args + ["--strict"])
        #expect(strict.status == 78)
        #expect(strict.stderr == #"maprender: error: marker.fill: feature 0: the expression gave "Bay Springs", not a colour (3373 features in all) (--strict)"# + "\n")
    }

    /// Cairo's PDF writer refused labels holding Unicode noncharacters ("input string not valid
    /// UTF-8", exit 70) where PNG and SVG drew them: every format draws U+FFFD, with a warning.
    @Test func labelNoncharactersAreDrawnAsReplacementsInEveryFormat() throws {
        let d = try folder(); defer { try? FileManager.default.removeItem(at: d) }
        let geo = d.appendingPathComponent("nonchar.geojson")
        try #"{"type":"FeatureCollection","features":[{"type":"Feature","properties":{"name":"ok"},"geometry":{"type":"Point","coordinates":[1,10]}},{"type":"Feature","properties":{"name":"a\uFFFEb\uFFFF\uDBFF\uDFFF\uFDD0"},"geometry":{"type":"Point","coordinates":[3,10]}}]}"#
            .write(to: geo, atomically: true, encoding: .utf8)
        for format in ["pdf", "svg", "png"] {
            let out = d.appendingPathComponent("m.\(format)")
            let r = try run([geo.path, "-o", out.path, "--size", "160x90", "--label", "name", "--no-cluster"])
            #expect(r.status == 0, "\(format): \(r.stderr)")
            #expect(r.stderr == "maprender: warning: label text of point 1 (and maybe others) holds Unicode noncharacters (U+FFFE, U+FFFF, U+FDD0–U+FDEF...): drawn as U+FFFD\n", "\(format)")
            #expect(FileManager.default.fileExists(atPath: out.path))
        }
    }

    @Test func invalidUTF8WarnsOnceAndStrictMakesItAnError() throws {
        let d = try folder(); defer { try? FileManager.default.removeItem(at: d) }
        let geo = d.appendingPathComponent("latin1.geojson")
        func feature(_ name: [UInt8], _ lon: Int) -> [UInt8] {
            Array(#"{"type":"Feature","properties":{"name":""#.utf8) + name
                + Array(#""},"geometry":{"type":"Point","coordinates":[\#(lon),10]}}"#.utf8)
        }
        let bytes = Array(#"{"type":"FeatureCollection","features":["#.utf8) + feature(Array("ok".utf8), 1) + [0x2C]
            + feature(Array("caf".utf8) + [0xE9], 2) + [0x2C] + feature([0xFF], 3) + Array("]}".utf8)
        try Data(bytes).write(to: geo)
        let args = [geo.path, "-o", "/dev/null", "--format", "png", "--size", "120x90", "--label", "name"]
        let r = try run(args)
        #expect(r.status == 0, "\(r.stderr)")
        #expect(r.stderr == "maprender: warning: \(geo.path): 2 text fields are not valid UTF-8 (first on feature 1); the bad bytes are shown as U+FFFD\n")
        let strict = try run(args + ["--strict"])
        #expect(strict.status == 65)
        #expect(strict.stderr == "maprender: error: \(geo.path): 2 text fields are not valid UTF-8 (first on feature 1) (--strict)\n")

        let csv = d.appendingPathComponent("latin1.csv")
        try Data(Array("lat,lon,name\n1,2,ok\n3,4,caf".utf8) + [0xE9, 0x0A]).write(to: csv)
        let c = try run([csv.path, "-o", "/dev/null", "--format", "png", "--label", "name", "--strict"])
        #expect(c.status == 65)
        #expect(c.stderr == "maprender: error: \(csv.path): 1 text field is not valid UTF-8 (first on line 3) (--strict)\n")
    }

    /// `["/", x, 0]` (infinity) and a negative size from an expression: a warning naming the key
    /// and the first feature, an error with --strict; a constant out of range is a style error.
    @Test func outOfRangeExpressionResultsAreNamed() throws {
        let d = try folder(); defer { try? FileManager.default.removeItem(at: d) }
        func style(_ text: String) throws -> String {
            let url = d.appendingPathComponent("s\(UUID()).json")
            try write(text, url)
            return url.path
        }
        let base = [Self.airports, "-o", "/dev/null", "--format", "png", "--size", "120x90", "--style"]
        let divided = try style(#"{ "marker": { "size": ["/", 1, 0] } }"#)
        let inf = try run(base + [divided])
        #expect(inf.status == 0)
        #expect(inf.stderr == "maprender: warning: marker.size: feature 0: the expression gave inf, not a finite number; the style's size 28 px is used (3376 features in all)\n")
        let strict = try run(base + [divided, "--strict"])
        #expect(strict.status == 78)
        #expect(strict.stderr == "maprender: error: marker.size: feature 0: the expression gave inf, not a finite number (3376 features in all) (--strict)\n")
        let negative = try run(base + [try style(#"{ "marker": { "size": ["-", 0, 50] } }"#)])
        #expect(negative.status == 0)
        #expect(negative.stderr == "maprender: warning: marker.size: feature 0: the expression gave -50, outside 1...256; drawn at 1 px (3376 features in all)\n")
        let constant = try style(#"{ "marker": { "size": -50 } }"#)
        let c = try run(base + [constant])
        #expect(c.status == 78)
        #expect(c.stderr == "maprender: error: \(constant): marker.size: expected a number in 1...256, got -50\n")
    }

    // MARK: - Messages never echo what is not a CSV header, nor control characters

    @Test func aFileThatIsNotCSVIsNotQuoted() throws {
        let d = try folder(); defer { try? FileManager.default.removeItem(at: d) }
        let secret = d.appendingPathComponent("secret.csv")
        try write("SECRET-TOKEN-123\nmore\n", secret)
        let r = try run([secret.path, "-o", "/dev/null", "--format", "png"])
        #expect(r.status == 65)
        #expect(r.stderr == "maprender: error: \(secret.path): no latitude/longitude columns found; the first line is not a CSV header (1 field, 16 bytes) (use --lat and --lon)\n")
        let escape = d.appendingPathComponent("esc.csv")
        try write("name\u{1B}[31m,value\n1,2\n", escape)
        let e = try run([escape.path, "-o", "/dev/null", "--format", "png"])
        #expect(e.status == 65)
        #expect(e.stderr == "maprender: error: \(escape.path): no latitude/longitude columns found; header is: name\\u{1B}[31m, value (use --lat and --lon)\n")
    }

    /// In a batch too: neither the error nor the report quotes a file that is not CSV.
    @Test func aBatchInputThatIsNotCSVIsNotQuoted() throws {
        let d = try folder(); defer { try? FileManager.default.removeItem(at: d) }
        try write("SECRET-TOKEN-123\n", d.appendingPathComponent("key.txt"))
        let manifest = d.appendingPathComponent("m.yaml")
        try write("jobs:\n  - { input: key.txt, output: a.png, size: 120x90 }\n", manifest)
        let report = d.appendingPathComponent("report.json")
        let r = try run(["batch", manifest.path, "-q", "--report", report.path])
        #expect(r.status == 1)
        #expect(!r.stderr.contains("SECRET"))
        #expect(r.stderr.contains("key.txt: no latitude/longitude columns found; the first line is not a CSV header (1 field, 16 bytes) (use --lat and --lon)"), "\(r.stderr)")
        let json = try String(contentsOf: report, encoding: .utf8)
        #expect(!json.contains("SECRET") && json.contains("the first line is not a CSV header"), "\(json)")
    }

    // MARK: - compare

    @Test func compareNamesTheFileAtFault() throws {
        let d = try folder(); defer { try? FileManager.default.removeItem(at: d) }
        let a = d.appendingPathComponent("a.png").path, svg = d.appendingPathComponent("a.svg").path
        #expect(try run([Self.airports, "-o", a, "--size", "120x90"]).status == 0)
        #expect(try run([Self.airports, "-o", svg, "--size", "120x90"]).status == 0)
        let null = try run(["compare", a, "/dev/null"])
        #expect(null.status == 2)
        #expect(null.stderr == "maprender: error: cannot read /dev/null: not a regular file\n")
        let dot = try run(["compare", a, "."])
        #expect(dot.status == 2)
        #expect(dot.stderr == "maprender: error: cannot read .: it is a folder, not a file\n")
        let mixed = try run(["compare", svg, a])
        #expect(mixed.status == 2)
        #expect(mixed.stderr == "maprender: error: cannot compare \(svg) (text) with \(a) (a PNG)\n")
        let onto = try run(["compare", a, a, "--diff", a])
        #expect(onto.status == 2)
        #expect(onto.stderr == "maprender: error: refusing to write --diff \(a): it is the expected \(a); choose another output\n")
    }

    @Test func compareOfPDFsIsByteForByte() throws {
        let d = try folder(); defer { try? FileManager.default.removeItem(at: d) }
        let a = d.appendingPathComponent("a.pdf").path, b = d.appendingPathComponent("b.pdf").path
        #expect(try run([Self.airports, "-o", a, "--size", "120x90"]).status == 0)
        try FileManager.default.copyItem(atPath: a, toPath: b)
        let same = try run(["compare", a, b])
        #expect(same.status == 0)
        #expect(same.stdout.hasPrefix("identical bytes ("))
        var bytes = try Data(contentsOf: URL(fileURLWithPath: b))
        bytes[20] ^= 0xFF
        try bytes.write(to: URL(fileURLWithPath: b))
        let different = try run(["compare", a, b])
        #expect(different.status == 1)
        #expect(different.stdout == "files differ at byte 20 (sizes \(bytes.count) and \(bytes.count))\n")
    }

    @Test func compareChecksPNGChunksAndSizeBeforeDecoding() throws {
        let d = try folder(); defer { try? FileManager.default.removeItem(at: d) }
        let a = d.appendingPathComponent("a.png"), bad = d.appendingPathComponent("bad.png")
        #expect(try run([Self.airports, "-o", a.path, "--size", "120x90"]).status == 0)
        var bytes = try Data(contentsOf: a)
        let idat = bytes.range(of: Data("IDAT".utf8))!.lowerBound
        bytes[idat + 20] ^= 0xFF
        try bytes.write(to: bad)
        let r = try run(["compare", a.path, bad.path])
        #expect(r.status == 2)
        #expect(r.stderr == "maprender: error: \(bad.path): corrupt PNG: chunk IDAT at byte \(idat - 4) fails its CRC check\n")

        // Damaged compressed data under a valid CRC: the data, never "out of memory".
        var damaged = try Data(contentsOf: a)
        let length = damaged[(idat - 4)..<idat].reduce(0) { $0 << 8 | Int($1) }
        damaged[idat + 14] ^= 0xFF
        damaged[idat + 15] ^= 0xFF
        let crc = PNGBytes.crc(Array(damaged[idat..<(idat + 4 + length)]))
        damaged.replaceSubrange((idat + 4 + length)..<(idat + 8 + length),
                                with: [UInt8(crc >> 24), UInt8(crc >> 16 & 0xFF), UInt8(crc >> 8 & 0xFF), UInt8(crc & 0xFF)])
        try damaged.write(to: bad)
        let z = try run(["compare", a.path, bad.path])
        #expect(z.status == 2)
        #expect(z.stderr == "maprender: error: \(bad.path): corrupt PNG: its image data cannot be decoded (damaged compressed data)\n")

        // 12000 x 12000 in a header of a few bytes: refused from the header alone.
        let huge = d.appendingPathComponent("huge.png")
        try PNGBytes.header(width: 12000, height: 12000).write(to: huge)
        let h = try run(["compare", huge.path, huge.path])
        #expect(h.status == 2)
        #expect(h.stderr == "maprender: error: \(huge.path): the image is 12000x12000 = 144000000 pixels, more than the limit of 67108864; --max-pixels raises it\n")
    }

    // MARK: - Manifests: bounds before parsing, paths confined

    @Test func deepOrExplodingManifestsAreRefusedBeforeParsing() throws {
        let d = try folder(); defer { try? FileManager.default.removeItem(at: d) }
        let deep = d.appendingPathComponent("deep.yaml")
        try write("jobs: " + String(repeating: "[", count: 5000) + String(repeating: "]", count: 5000) + "\n", deep)
        let r = try run(["batch", deep.path])
        #expect(r.status == 78)
        #expect(r.stderr == "maprender: error: \(deep.path): line 1: lists and objects nested more than 64 levels deep (the manifest limit)\n")

        let mapping = d.appendingPathComponent("mapping.yaml")
        try write((0..<200).map { String(repeating: " ", count: $0) + "k:" }.joined(separator: "\n") + " 1\n", mapping)
        let m = try run(["batch", mapping.path])
        #expect(m.status == 78)
        #expect(m.stderr == "maprender: error: \(mapping.path): line 65: lists and objects nested more than 64 levels deep (the manifest limit)\n")

        let json = d.appendingPathComponent("deep.json")
        try write(#"{"jobs":"# + String(repeating: "[", count: 600) + String(repeating: "]", count: 600) + "}", json)
        let j = try run(["batch", json.path])
        #expect(j.status == 78)
        #expect(j.stderr == "maprender: error: \(json.path): line 1: lists and objects nested more than 64 levels deep (the manifest limit)\n")

        let bomb = d.appendingPathComponent("bomb.yaml")
        var text = #"a: &a ["lol","lol","lol","lol","lol","lol","lol","lol","lol"]"# + "\n"
        let names = ["a", "b", "c", "d", "e", "f", "g", "h", "i"]
        for k in 1..<names.count {
            text += "\(names[k]): &\(names[k]) [" + Array(repeating: "*\(names[k - 1])", count: 9).joined(separator: ",") + "]\n"
        }
        try write(text + "jobs: [*i]\n", bomb)
        let b = try run(["batch", bomb.path])
        #expect(b.status == 78)
        #expect(b.stderr == "maprender: error: \(bomb.path): line 7: more than 1000000 values once YAML aliases are expanded (the manifest limit)\n")
    }

    @Test func manifestPathsStayInTheManifestFolder() throws {
        let d = try folder(); defer { try? FileManager.default.removeItem(at: d) }
        let sub = d.appendingPathComponent("jobs")
        try FileManager.default.createDirectory(at: sub, withIntermediateDirectories: true)
        try copyAirports(to: sub.appendingPathComponent("pts.csv").path)
        let manifest = sub.appendingPathComponent("m.yaml")
        try write("defaults: { input: pts.csv, size: 120x90 }\njobs:\n  - output: ../escape.png\n  - output: /tmp/abs-\(UUID()).png\n", manifest)
        let r = try run(["batch", manifest.path, "-q"])
        #expect(r.status == 78)
        let top = sub.resolvingSymlinksInPath().path
        let lines = r.stderr.split(separator: "\n")
        #expect(lines.count == 2)
        #expect(lines.first == "maprender: error: \(manifest.path): jobs[0].output: \(d.appendingPathComponent("escape.png").path) is outside \(top) (give --root DIR or --allow-outside-root)")
        #expect(!FileManager.default.fileExists(atPath: d.appendingPathComponent("escape.png").path))

        let rooted = try run(["batch", manifest.path, "-q", "--root", d.path])
        #expect(rooted.status == 78) // the absolute path is still outside
        let allowed = try run(["batch", manifest.path, "-q", "--allow-outside-root"])
        #expect(allowed.status == 0, "\(allowed.stderr)")
        #expect(FileManager.default.fileExists(atPath: d.appendingPathComponent("escape.png").path))
    }

    @Test func batchOutputsNeverReplaceTheManifestOrAnInput() throws {
        let d = try folderWithPoints(); defer { try? FileManager.default.removeItem(at: d) }
        // A manifest named like a map (YAML is told by its first character).
        let named = d.appendingPathComponent("m.png")
        try write("defaults: { input: pts.csv, size: 120x90 }\njobs:\n  - output: a.png\n  - output: m.png\n", named)
        let r = try run(["batch", named.path, "-q"])
        #expect(r.status == 64)
        #expect(r.stderr == "maprender: error: refusing to write jobs[1].output \(named.path): it is the manifest \(named.path); choose another output\n")
        let onto = d.appendingPathComponent("onto.yaml")
        try write("defaults: { input: pts.csv, size: 120x90 }\njobs:\n  - { output: pts.csv, format: png }\n", onto)
        let o = try run(["batch", onto.path, "-q"])
        #expect(o.status == 64)
        let pts = d.resolvingSymlinksInPath().appendingPathComponent("pts.csv").path
        #expect(o.stderr == "maprender: error: refusing to write jobs[0].output \(pts): it is the input of jobs[0] \(pts); choose another output\n")
        #expect(try Data(contentsOf: d.appendingPathComponent("pts.csv")) == Data(contentsOf: CLITests.repo.appendingPathComponent(Self.airports)))
        let manifest = d.appendingPathComponent("m.yaml")

        try write("defaults: { input: pts.csv, size: 120x90 }\njobs:\n  - output: a.png\n", manifest)
        let report = try run(["batch", manifest.path, "-q", "--report", d.appendingPathComponent("pts.csv").path])
        #expect(report.status == 64)
        #expect(report.stderr == "maprender: error: refusing to write --report \(d.appendingPathComponent("pts.csv").path): it is the input of jobs[0] \(d.appendingPathComponent("pts.csv").path); choose another output\n")
        #expect(!FileManager.default.fileExists(atPath: d.appendingPathComponent("a.png").path))
    }

    @Test func aBatchJobWithNoPointsFailsAndKeepsItsOutput() throws {
        let d = try folderWithPoints(); defer { try? FileManager.default.removeItem(at: d) }
        let manifest = d.appendingPathComponent("m.json")
        try write(#"{"defaults": {"input": "pts.csv", "size": "120x90"}, "jobs": [{"output": "a.png", "filter": ["==", ["get", "state"], "XX"]}]}"#, manifest)
        try write("old", d.appendingPathComponent("a.png"))
        let r = try run(["batch", manifest.path, "-q"])
        #expect(r.status == 1)
        #expect(r.stderr.contains(#"no points to draw (the filter ["==",["get","state"],"XX"] kept none); nothing written (--allow-empty writes an empty map)"#))
        #expect(try String(contentsOf: d.appendingPathComponent("a.png"), encoding: .utf8) == "old")
        #expect(try run(["batch", manifest.path, "-q", "--allow-empty"]).status == 0)
    }

    /// YAML's `0x0` is a size here, not the hexadecimal number 0.
    @Test func aBatchSizeOf0x0IsReadAsASize() throws {
        let d = try folderWithPoints(); defer { try? FileManager.default.removeItem(at: d) }
        let manifest = d.appendingPathComponent("m.yaml")
        try write("defaults: { input: pts.csv }\njobs:\n  - { output: a.png, size: 0x0 }\n", manifest)
        let r = try run(["batch", manifest.path, "-q"])
        #expect(r.status == 64)
        #expect(r.stderr == "maprender: error: \(manifest.path): jobs[0].size: width and height must each be in 1...16384, got \"0x0\"\n")
    }

    // MARK: - animate: bounded frames, a clean-up that removes only its own frames

    @Test func animationFrameCountsAreBoundedBeforeReading() throws {
        let huge = try run(["animate", "samples/tracks.csv", "-o", "/nonexistent/frames", "--duration", "1e9"])
        #expect(huge.status == 64)
        #expect(huge.stderr == "maprender: error: the animation would have 10000000000 frames (--duration × --fps), more than the limit of 100000; --max-frames raises it\n")
        let frames = try run(["animate", "samples/tracks.csv", "-o", "/nonexistent/frames", "--frames", "1000000000"])
        #expect(frames.status == 64)
        #expect(frames.stderr == "maprender: error: the animation would have 1000000000 frames (--frames), more than the limit of 100000; --max-frames raises it\n")
        let long = try run(["animate", "samples/tracks.csv", "-o", "/nonexistent/frames", "--duration", "1e6"])
        #expect(long.status == 64)
        #expect(long.stderr == "maprender: error: the animation would have 10000000 frames (--duration × --fps), more than the limit of 100000; --max-frames raises it\n")
    }

    /// Any number of jobs: once `4 * jobs` overflowed, then a text context was made per job.
    @Test func aHugeJobCountRendersTheSameFrames() throws {
        let d = try folder(); defer { try? FileManager.default.removeItem(at: d) }
        let args = ["animate", "samples/tracks.csv", "--size", "120x90", "--frames", "3", "-q"]
        let one = try run(args + ["-o", d.appendingPathComponent("one").path, "--jobs", "1"])
        #expect(one.status == 0, "\(one.stderr)")
        let huge = try run(args + ["-o", d.appendingPathComponent("huge").path, "--jobs", "9223372036854775807"])
        #expect(huge.status == 0, "\(huge.stderr.prefix(300))")
        for k in 1...3 {
            let name = String(format: "frame-%05d.png", k)
            #expect(FileManager.default.contentsEqual(atPath: d.appendingPathComponent("one/\(name)").path,
                                                     andPath: d.appendingPathComponent("huge/\(name)").path), "\(name)")
        }
    }

    @Test func frameCleanUpRemovesOnlyItsOwnFrames() throws {
        let d = try folder(); defer { try? FileManager.default.removeItem(at: d) }
        let frames = d.appendingPathComponent("frames")
        let args = ["animate", "samples/tracks.csv", "-o", frames.path, "--size", "120x90", "-q"]
        #expect(try run(args + ["--frames", "12"]).status == 0)
        // The user's: a folder named like a frame, and a file the run did not write.
        try FileManager.default.removeItem(at: frames.appendingPathComponent("frame-00009.png"))
        try FileManager.default.createDirectory(at: frames.appendingPathComponent("frame-00009.png/sub"), withIntermediateDirectories: true)
        try write("data", frames.appendingPathComponent("frame-00009.png/sub/data.txt"))
        try write("mine", frames.appendingPathComponent("frame-00099.png"))
        #expect(try run(args + ["--frames", "5"]).status == 0)
        let left = try FileManager.default.contentsOfDirectory(atPath: frames.path).sorted()
        #expect(left == [".maprender-frames", "frame-00001.png", "frame-00002.png", "frame-00003.png", "frame-00004.png",
                         "frame-00005.png", "frame-00009.png", "frame-00099.png", "maprender-frames.json"])
        #expect(FileManager.default.fileExists(atPath: frames.appendingPathComponent("frame-00009.png/sub/data.txt").path))

        // An input named like a frame of the folder is never written over.
        let input = frames.appendingPathComponent("frame-00002.png")
        try FileManager.default.removeItem(at: input)
        try FileManager.default.copyItem(atPath: CLITests.repo.appendingPathComponent("samples/tracks.csv").path, toPath: input.path)
        let r = try run(["animate", input.path, "-o", frames.path, "--format", "png", "--frames", "5", "-q"])
        #expect(r.status == 64)
        #expect(r.stderr == "maprender: error: refusing to write frames to \(frames.path): frame frame-00002.png is an input; choose another folder\n")
        #expect(try Data(contentsOf: input) == Data(contentsOf: CLITests.repo.appendingPathComponent("samples/tracks.csv")))
    }
}

/// Hand-made PNG bytes for tests of the header checks.
enum PNGBytes {
    /// A valid PNG of the given size whose pixel data is empty (only its header can be read).
    static func header(width: UInt32, height: UInt32) -> Data {
        func be(_ v: UInt32) -> [UInt8] { [UInt8(v >> 24), UInt8(v >> 16 & 0xFF), UInt8(v >> 8 & 0xFF), UInt8(v & 0xFF)] }
        func chunk(_ type: String, _ body: [UInt8]) -> [UInt8] {
            let t = Array(type.utf8)
            return be(UInt32(body.count)) + t + body + be(crc(t + body))
        }
        let ihdr = be(width) + be(height) + [8, 6, 0, 0, 0]
        let zlibEmpty: [UInt8] = [0x78, 0x9C, 0x03, 0x00, 0x00, 0x00, 0x00, 0x01]
        return Data([0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A] + chunk("IHDR", ihdr) + chunk("IDAT", zlibEmpty) + chunk("IEND", []))
    }

    static func crc(_ bytes: [UInt8]) -> UInt32 {
        var c: UInt32 = 0xFFFF_FFFF
        for b in bytes {
            c ^= UInt32(b)
            for _ in 0..<8 { c = c & 1 != 0 ? 0xEDB8_8320 ^ (c >> 1) : c >> 1 }
        }
        return c ^ 0xFFFF_FFFF
    }
}
