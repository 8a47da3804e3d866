import Foundation
import Testing
import MapRender

/// The options table seen from the binary: `--help`, `--version`, the same message for the same
/// bad value on the command line and in a manifest, properties the input lacks, and the exact
/// messages and exit codes of bad option values.
@Suite struct OptionsCLITests {
    let cli = CLITests()
    static let places = "samples/populated_places.geojson"
    static let cities = "samples/world_cities.csv"

    /// The long options in a `--help` text.
    func options(inHelp help: String) -> Set<String> {
        Set(help.split(whereSeparator: { $0 == " " || $0 == "\n" || $0 == "," })
            .filter { $0.hasPrefix("--") }
            .map { String($0.dropFirst(2).prefix { $0 != "=" }).trimmingCharacters(in: .punctuationCharacters) }
            .filter { !$0.isEmpty })
    }

    /// `render`'s options are the table's entries, one to one, plus the command's own; the
    /// manifest's keys are the table's names plus `output`, `input` and `format`.
    @Test func cliOptionsMatchTheTable() throws {
        let table = Set(RenderOptionTable.options.map(\.cliName))
        let render = options(inHelp: try cli.run(["render", "--help"]).stdout)
        let own: Set = ["output", "format", "summary", "quiet", "help", "version"]
        #expect(render.subtracting(own) == table, "only in --help: \(render.subtracting(own).subtracting(table).sorted()); only in the table: \(table.subtracting(render).sorted())")
        #expect(BatchManifest.jobKeys == ["output", "input", "format"] + RenderOptionTable.options.map(\.name))
        // `animate` has every map, input and clustering option too (its own --id, --time ... besides).
        let animate = options(inHelp: try cli.run(["animate", "--help"]).stdout)
        #expect(table.subtracting(animate).isEmpty, "animate lacks \(table.subtracting(animate).sorted())")
        let cluster = options(inHelp: try cli.run(["cluster", "--help"]).stdout)
        let clustering = Set(RenderOptionTable.clustering.map(\.cliName) + RenderOptionTable.input.map(\.cliName))
        #expect(clustering.subtracting(cluster).isEmpty)
        // The help text and placeholder are the table's.
        let help = try cli.run(["render", "--help"]).stdout.replacingOccurrences(of: "\n", with: " ")
            .replacingOccurrences(of: #"\s+"#, with: " ", options: .regularExpression)
        #expect(help.contains("--size <WxH> Image (or frame) size in CSS pixels, each side 1...16384 (default: 1024x768)."))
    }

    /// One bad value, once on `render`'s command line and once in a manifest: the same text after
    /// the location (`--zoom: ` / `jobs.yaml: jobs[0].zoom: `), and the same exit code.
    @Test(arguments: [
        ("zoom", "30", "30"), ("size", "0x0", "0x0"), ("bbox", "10,10,10,20", #""10,10,10,20""#),
        ("marker", "star", "star"), ("min-points", "1", "1"), ("center", "95,0", #""95,0""#),
    ])
    func sameMessageFromCommandLineAndManifest(key: String, word: String, yaml: String) throws {
        let d = try cli.tempDir(); defer { try? FileManager.default.removeItem(at: d) }
        let r = try cli.run([Self.places, "--\(key)=\(word)", "-o", d.appendingPathComponent("a.png").path]
                            + (key == "center" ? ["--zoom", "3"] : []))
        let manifest = d.appendingPathComponent("jobs.yaml")
        try Data("""
        jobs:
          - output: a.png
            input: \(CLITests.repo.appendingPathComponent(Self.places).path)
            \(key): \(yaml)\(key == "center" ? "\n    zoom: 3" : "")
        """.utf8).write(to: manifest)
        let b = try cli.run(["batch", manifest.path])
        let cliLine = try #require(r.stderr.split(separator: "\n").first.map(String.init))
        let batchLine = try #require(b.stderr.split(separator: "\n").first.map(String.init))
        let cliPrefix = "maprender: error: --\(key): ", batchPrefix = "maprender: error: \(manifest.path): jobs[0].\(key): "
        #expect(cliLine.hasPrefix(cliPrefix), "\(cliLine)")
        #expect(batchLine.hasPrefix(batchPrefix), "\(batchLine)")
        #expect(cliLine.dropFirst(cliPrefix.count) == batchLine.dropFirst(batchPrefix.count))
        #expect(r.status == 64 && b.status == 64)
        #expect(!FileManager.default.fileExists(atPath: d.appendingPathComponent("a.png").path))
    }

    // MARK: - Properties the input lacks: the same rule in `render` and `batch`

    /// A filter reading a property the input lacks is an error naming the nearest one, and
    /// `["zoom"]` is refused, in `render` and in `batch` alike.
    @Test(arguments: [
        (#"["==", ["get", "contry"], "FR"]"#, 64,
         "filter reads 'contry', which <input> does not have; did you mean 'country'?"),
        (#"country == "FR""#, 0, ""),
        (#"[">", ["zoom"], 3]"#, 78, #"<file>: <path>: a filter cannot use ["zoom"]: points are chosen before the view"#),
    ])
    func filterRuleIsTheSameInRenderAndBatch(filter: String, status: Int32, message: String) throws {
        let d = try cli.tempDir(); defer { try? FileManager.default.removeItem(at: d) }
        let input = CLITests.repo.appendingPathComponent(Self.cities).path
        let r = try cli.run([input, "--filter", filter, "--size", "200x150", "-o", d.appendingPathComponent("r.png").path])
        let manifest = d.appendingPathComponent("jobs.json")
        let json = filter.hasPrefix("[") ? filter : "\"\(filter.replacingOccurrences(of: "\"", with: "\\\""))\""
        try Data(#"{ "jobs": [ { "output": "b.png", "input": "\#(input)", "size": "200x150", "filter": \#(json) } ] }"#.utf8)
            .write(to: manifest)
        // The input lies outside the manifest's folder (batch confines paths to it by default).
        let b = try cli.run(["batch", manifest.path, "-q", "--allow-outside-root"])
        if status == 0 {
            #expect(r.status == 0 && b.status == 0, "\(r.stderr) \(b.stderr)")
            return
        }
        func expected(_ file: String, _ path: String) -> String {
            message.replacingOccurrences(of: "<input>", with: input)
                .replacingOccurrences(of: "<file>", with: file).replacingOccurrences(of: "<path>", with: path)
        }
        #expect(r.status == status, "\(r.stderr)")
        #expect(r.stderr == "maprender: error: \(expected("--filter", "filter"))\n")
        if status == 64 {
            // Found when the job runs (after reading the input): the job fails, the batch exits 1.
            #expect(b.status == 1)
            #expect(b.stderr.contains(expected("", "")), "\(b.stderr)")
        } else {
            #expect(b.status == status)
            #expect(b.stderr == "maprender: error: \(expected(manifest.path, "jobs[0].filter"))\n")
        }
    }

    /// `--label`, `--label-priority`, `--id-field` and `--cluster-sum` naming a property the input
    /// lacks: exit 64, naming the option, the property and the nearest existing one.
    @Test(arguments: [
        (["--label", "nme"], "label reads 'nme'", "did you mean 'name'?"),
        (["--label", "name", "--label-priority", "populaton"], "label-priority reads 'populaton'", "did you mean 'population'?"),
        (["--id-field", "idd"], "id-field reads 'idd'", "did you mean 'id'?"),
        (["--cluster-sum", "populatio"], "cluster-sum reads 'populatio'", "did you mean 'population'?"),
    ])
    func unknownPropertyIsAnError(args: [String], what: String, hint: String) throws {
        let d = try cli.tempDir(); defer { try? FileManager.default.removeItem(at: d) }
        let r = try cli.run([Self.cities, "-o", d.appendingPathComponent("a.png").path] + args)
        #expect(r.status == 64)
        #expect(r.stderr == "maprender: error: \(what), which \(Self.cities) does not have; \(hint)\n")
        let ok = try cli.run([Self.cities, "-o", d.appendingPathComponent("a.png").path, "--size", "100x100", "--label", "name",
                              "--label-priority", "population", "--id-field", "id", "--cluster-sum", "population"])
        #expect(ok.status == 0, "\(ok.stderr)")
    }

    @Test func unknownLabelFailsABatchJob() throws {
        let d = try cli.tempDir(); defer { try? FileManager.default.removeItem(at: d) }
        let input = CLITests.repo.appendingPathComponent(Self.cities).path
        let manifest = d.appendingPathComponent("jobs.json")
        try Data(#"{ "jobs": [ { "output": "b.png", "input": "\#(input)", "size": "100x100", "label": "nme" } ] }"#.utf8)
            .write(to: manifest)
        let b = try cli.run(["batch", manifest.path, "-q", "--allow-outside-root"])
        #expect(b.status == 1)
        #expect(b.stderr.contains("label reads 'nme', which \(input) does not have; did you mean 'name'?"), "\(b.stderr)")
    }

    // MARK: - Small gaps (issue 12)

    @Test func versionIsPrinted() throws {
        let r = try cli.run(["--version"])
        #expect(r.status == 0)
        #expect(r.stdout == MapRenderVersion.long + "\n")
    }

    @Test func rootHelpShowsSubcommandsAndRenderOptions() throws {
        let r = try cli.run(["--help"])
        #expect(r.status == 0)
        for s in ["SUBCOMMANDS:", "batch", "animate", "--version", "--label-priority", "--bbox <W,S,E,N>", "--output <file>"] {
            #expect(r.stdout.contains(s), "maprender --help lacks \(s)")
        }
        #expect(try cli.run(["-h"]).stdout == r.stdout)
    }

    @Test func standardOutputIsPNGByDefault() throws {
        let r = try cli.run([Self.places, "--size", "64x48", "-o", "-"])
        #expect(r.status == 0, "\(r.stderr)")
        #expect(r.stdoutData.prefix(8) == Data([0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A]))
        let svg = try cli.run([Self.places, "--size", "64x48", "-o", "-", "--format", "svg"])
        #expect(svg.stdout.contains("<svg"))
    }

    @Test func legendWithNothingToShowWarns() throws {
        let d = try cli.tempDir(); defer { try? FileManager.default.removeItem(at: d) }
        let r = try cli.run([Self.places, "--size", "64x48", "--legend", "-o", d.appendingPathComponent("a.png").path])
        #expect(r.status == 0)
        #expect(r.stderr == "maprender: warning: --legend: nothing to show: neither the style's marker fill nor a fill or line layer's colour is a match, step or interpolate expression of colours\n")
        let style = d.appendingPathComponent("cat.json")
        try Data(##"{ "marker": { "fill": ["match", ["get", "country"], "FR", "#0000ff", "#ff0000"] } }"##.utf8).write(to: style)
        let shown = try cli.run([Self.cities, "--size", "64x48", "--legend", "--style", style.path, "-o", d.appendingPathComponent("b.png").path])
        #expect(shown.status == 0 && shown.stderr.isEmpty, "\(shown.stderr)")
    }

    @Test func compareNamesTheFileThatIsNotAPNG() throws {
        let d = try cli.tempDir(); defer { try? FileManager.default.removeItem(at: d) }
        let png = d.appendingPathComponent("a.png").path
        #expect(try cli.run([Self.places, "--size", "32x32", "-o", png]).status == 0)
        let csv = CLITests.repo.appendingPathComponent(Self.cities).path
        let r = try cli.run(["compare", png, csv])
        #expect(r.status == 2)
        #expect(r.stderr == "maprender: error: \(csv): not a PNG, so it cannot be compared with the PNG \(png)\n")
        let swapped = try cli.run(["compare", csv, png])
        #expect(swapped.stderr == "maprender: error: \(csv): not a PNG, so it cannot be compared with the PNG \(png)\n")
    }

    // MARK: - Misleading messages (issue 14)

    /// Exact message and exit code of each bad value (`maprender: error: ` and a usage hint line).
    @Test(arguments: [
        (["--bbox=-200,-100,200,100"], #"--bbox: W and E must be in -180...180, got "-200,-100,200,100""#),
        (["--bbox=10,10,10,20"], #"--bbox: W and E are equal, so the box has no width, got "10,10,10,20""#),
        (["--size", "0x0"], #"--size: width and height must each be in 1...16384, got "0x0""#),
        (["--size", "-5x10"], #"--size: width and height must each be in 1...16384, got "-5x10""#),
        (["--zoom", "-1"], "--zoom: expected a number in 0...24, got -1"),
        (["--bbox", "-10,35,30,60", "--zoom", "3"], "--bbox cannot be combined with --center or --zoom"),
    ])
    func badValueMessages(args: [String], message: String) throws {
        let r = try cli.run([Self.places, "-o", "/tmp/never-written.png"] + args)
        #expect(r.status == 64)
        #expect(r.stderr == "maprender: error: \(message)\nUsage: see 'maprender render --help'\n", "\(r.stderr)")
    }

    /// `cluster`'s own `--bbox` is checked by the same parser.
    @Test func clusterBoxMessages() throws {
        let r = try cli.run(["cluster", Self.places, "--zoom", "2", "--bbox=10,10,10,20"])
        #expect(r.status == 64)
        #expect(r.stderr.hasPrefix(#"maprender: error: --bbox: W and E are equal, so the box has no width, got "10,10,10,20""#), "\(r.stderr)")
        let ok = try cli.run(["cluster", Self.places, "--zoom", "2", "--bbox", "-20,30,40,60"])
        #expect(ok.status == 0 && ok.stdout.hasPrefix(#"{"type":"FeatureCollection""#), "\(ok.stderr)")
    }

    @Test func negativeBoxWithoutEquals() throws {
        let d = try cli.tempDir(); defer { try? FileManager.default.removeItem(at: d) }
        let r = try cli.run([Self.places, "--bbox", "-10,35,30,60", "--size", "64x48", "-o", d.appendingPathComponent("a.png").path])
        #expect(r.status == 0, "\(r.stderr)")
        let c = try cli.run([Self.places, "--center", "-33.9,151.2", "--zoom", "5", "--size", "64x48", "-o", d.appendingPathComponent("b.png").path])
        #expect(c.status == 0, "\(c.stderr)")
    }

    @Test func styleFolderIsNamedAsAFolder() throws {
        let r = try cli.run([Self.places, "--style", "styles", "-o", "/tmp/never-written.png"])
        #expect(r.status == 66)
        #expect(r.stderr == "maprender: error: cannot read styles: it is a folder\n")
    }

    /// A missing output folder is found before the input is even read (the input here does not exist).
    @Test func missingOutputFolderIsFoundFirst() throws {
        let r = try cli.run(["no-such-input.csv", "-o", "/tmp/no-such-folder-\(UUID())/a.png"])
        #expect(r.status == 73)
        #expect(r.stderr.hasPrefix("maprender: error: cannot write /tmp/no-such-folder-"))
        #expect(r.stderr.hasSuffix(" does not exist\n"))
        let summary = try cli.run(["no-such-input.csv", "-o", "/tmp/a.png", "--summary", "/tmp/no-such-folder/s.json"])
        #expect(summary.status == 73)
        #expect(summary.stderr == "maprender: error: cannot write /tmp/no-such-folder/s.json: folder /tmp/no-such-folder does not exist\n")
    }

    /// A `--report` that cannot be written stops the batch before any job runs.
    @Test func badReportFolderIsFoundBeforeTheJobs() throws {
        let d = try cli.tempDir(); defer { try? FileManager.default.removeItem(at: d) }
        let manifest = d.appendingPathComponent("jobs.json")
        let input = CLITests.repo.appendingPathComponent(Self.places).path
        try Data(#"{ "jobs": [ { "output": "a.png", "input": "\#(input)", "size": "64x48" } ] }"#.utf8).write(to: manifest)
        let report = d.appendingPathComponent("missing/report.json").path
        let r = try cli.run(["batch", manifest.path, "--report", report, "-q"])
        #expect(r.status == 73)
        #expect(r.stderr == "maprender: error: cannot write \(report): folder \(d.appendingPathComponent("missing").path) does not exist\n")
        #expect(!FileManager.default.fileExists(atPath: d.appendingPathComponent("a.png").path))
    }

    /// A box smaller than zoom 24 can show is drawn at zoom 24, the limit of `--zoom`.
    @Test func tinyBoxIsDrawnAtTheZoomLimit() throws {
        let d = try cli.tempDir(); defer { try? FileManager.default.removeItem(at: d) }
        let summary = d.appendingPathComponent("s.json")
        let r = try cli.run([Self.places, "--bbox=0,0,1e-12,1e-12", "--size", "64x48", "-o", d.appendingPathComponent("a.png").path,
                             "--summary", summary.path])
        #expect(r.status == 0, "\(r.stderr)")
        let json = try JSONSerialization.jsonObject(with: Data(contentsOf: summary)) as! [String: Any]
        #expect((json["view"] as! [String: Any])["zoom"] as? Double == 24)
    }
}
