import Foundation
import Testing
import TestSupport
@testable import MapRender
import MapRenderCore

/// The options table: each entry read the same way from command-line words and from a manifest,
/// defaults that are the request's own, and the limits shared with request validation.
@Suite struct RenderOptionTableTests {
    static let style = TestPaths.repoFile("styles/dark.json")
    static let countries = TestPaths.repoFile("samples/ne_110m_admin_0_countries.geojson")
    static let icon = TestPaths.repoFile("samples/icons/pin.svg")
    static let basemapStyle = TestPaths.repoFile("styles/basemap-light.json")

    /// A good value for every entry: as command-line words, and as a manifest (JSON) value.
    /// Adding an option to the table without a sample here fails `everyOptionHasASample`.
    static let samples: [String: (words: [String], json: String)] = [
        "input-format": (["csv"], #""csv""#), "lat": (["y"], #""y""#), "lon": (["x"], #""x""#),
        "id-field": (["code"], #""code""#), "wkt": (["geom"], #""geom""#), "polyline": (["route"], #""route""#),
        "polyline-precision": (["6"], "6"), "line-by": (["device"], #""device""#), "order-by": (["time"], #""time""#),
        "line-only": (["true"], "true"), "to-lat": (["dest_lat"], #""dest_lat""#), "to-lon": (["dest_lon"], #""dest_lon""#),
        "circle-radius": (["2.5km"], #""2.5km""#), "number-markers": (["true"], "true"), "delimiter": (["tab"], #""tab""#), "wrap-longitude": (["true"], "true"),
        "size": (["640x480"], #""640x480""#), "scale": (["2"], "2"), "style": ([style], "\"\(style)\""),
        "background": (["#102030"], ##""#102030""##), "marker": (["square"], #""square""#), "marker-size": (["9"], "9"), "marker-icon": ([icon], "\"\(icon)\""),
        "center": (["-33.9,151.2"], "[-33.9, 151.2]"), "zoom": (["5.5"], "5.5"), "bbox": (["-10,35,30,60"], "[-10, 35, 30, 60]"),
        "cluster": (["false"], "false"), "spread-tolerance": (["3"], "3"), "spread-max": (["9"], "9"), "padding": (["7"], "7"),
        "basemap": ([countries, countries], "[\"\(countries)\", \"\(countries)\"]"), "basemap-style": ([basemapStyle], "\"\(basemapStyle)\""), "no-basemap": (["true"], "true"), "attribution": (["© x"], #""© x""#),
        "filter": ([#"pop > 3"#], #"[">", ["get", "pop"], 3]"#), "label": (["name"], #""name""#),
        "label-priority": (["pop"], #""pop""#), "label-style": (["callout"], #""callout""#), "text-padding": (["3"], "3"),
        "allow-overlap": (["true"], "true"), "scale-bar": (["true"], "true"), "legend": (["true"], "true"),
        "text-scale": (["1.5"], "1.5"), "cluster-radius": (["60"], "60"), "min-points": (["3"], "3"), "max-zoom": (["9"], "9"),
        "cluster-sum": (["pop"], #"["pop"]"#), "cluster-max": (["pop", "area"], #"["pop", "area"]"#),
        "cluster-min": (["pop"], #""pop""#), "cluster-mean": (["pop"], #""pop""#),
        "tiles": (["osm", "carto-dark"], #"["osm", "carto-dark"]"#), "tile-size": (["512"], "512"),
        "tiles-subdomains": (["abcd"], #""abcd""#), "tiles-attribution": (["© t"], #""© t""#),
        "integer-zoom": (["true"], "true"), "tile-cache": (["/tmp/tc"], #""/tmp/tc""#),
        "user-agent": (["me@example.org"], #""me@example.org""#), "tile-connections": (["1"], "1"),
        "offline": (["true"], "true"), "tiles-strict": (["true"], "true"),
        "tiles-timeout": (["7.5"], "7.5"), "tile-cache-max": (["200"], "200"), "allow-missing-tiles": (["true"], "true"),
        "allow-empty": (["true"], "true"), "strict": (["true"], "true"), "max-memory": (["100"], "100"),
        "quality": (["75"], "75"), "system-fonts": (["true"], "true"),
    ]

    /// The command line's spelling of a sample: flags are given or not, `--no-cluster` for `cluster: false`.
    func commandLine(_ o: RenderOption, _ words: [String]) -> [(name: String, value: OptionValue)] {
        switch o.form {
        case .flag: return [(o.cliName, OptionValue(flag: true))]
        case .offFlag: return [(o.cliName, OptionValue(flag: true))]
        case .list: return [(o.cliName, OptionValue(words: words))]
        case .value: return [(o.cliName, OptionValue(word: words[0]))]
        }
    }

    func manifestJob(_ key: String, _ json: String, extra: String = "") throws -> BatchJob {
        let dir = try BatchTempDir()
        defer { dir.remove() }
        try dir.write("pts.csv", "lat,lon\n1,2\n")
        let text = #"{ "jobs": [ { "output": "a.png", "input": "pts.csv", "\#(key)": \#(json)\#(extra) } ] }"#
        return try BatchManifest.parse(data: Data(text.utf8), name: "jobs.json", baseDirectory: dir.path).jobs[0]
    }

    @Test func everyOptionHasASample() {
        #expect(Set(Self.samples.keys) == Set(RenderOptionTable.options.map(\.name)))
        #expect(RenderOptionTable.options.count == Set(RenderOptionTable.options.map(\.cliName)).count)
    }

    /// Each entry, given on the command line or in a manifest, makes the same request.
    @Test(arguments: RenderOptionTable.options.map(\.name))
    func commandLineAndManifestMakeTheSameRequest(name: String) throws {
        let o = try #require(RenderOptionTable.option(named: name))
        let sample = try #require(Self.samples[name])
        // `center` needs `zoom`: give it in both.
        let zoom = name == "center" ? [(name: "zoom", value: OptionValue(word: "3"))] : []
        var cli = try RenderOptionTable.request(commandLine: commandLine(o, sample.words) + zoom)
        let job = try manifestJob(name, sample.json, extra: name == "center" ? #", "zoom": 3"# : "")
        var fromManifest = job.request
        // The batch applies its filter apart; inputs and format belong to the job.
        fromManifest.filter = job.filter?.expression
        cli.inputs = fromManifest.inputs
        cli.format = fromManifest.format
        #expect(String(reflecting: cli) != String(reflecting: { var r = RenderRequest(); r.inputs = cli.inputs; return r }()),
                "the sample of \(name) changes nothing")
        if cli.basemapStyle != nil || fromManifest.basemapStyle != nil {
            // A parsed MapLibre style holds dictionaries (a `match`'s labels), which two parses of
            // one file may list in other orders: the same file, the same layers in the same
            // order; the rest of the request compared as a whole.
            #expect(cli.basemapStyle?.file == fromManifest.basemapStyle?.file)
            #expect(cli.basemapStyle?.layers.map(\.style.id) == fromManifest.basemapStyle?.layers.map(\.style.id))
            cli.basemapStyle = nil
            fromManifest.basemapStyle = nil
        }
        #expect(String(reflecting: cli) == String(reflecting: fromManifest))
    }

    /// A default in the help is the request's own default: giving it changes nothing.
    @Test func defaultsInTheHelpAreTheRequestDefaults() throws {
        let none = try RenderOptionTable.request(commandLine: [])
        #expect(String(reflecting: none) == String(reflecting: RenderRequest()))
        let withDefaults = RenderOptionTable.options.filter { $0.defaultText != nil }
        #expect(withDefaults.count >= 10)
        for o in withDefaults {
            let given = try RenderOptionTable.request(commandLine: [(o.cliName, OptionValue(word: o.defaultText!))])
            #expect(String(reflecting: given) == String(reflecting: none), "--\(o.cliName) \(o.defaultText!) is not the default")
            #expect(o.help.contains("(default: \(o.defaultText!))"))
        }
    }

    /// A bad value gives the same text from the command line (after `--KEY: `) and from a
    /// manifest (after `FILE: jobs[0].KEY: `), with the same kind (exit 64).
    @Test(arguments: [
        ("size", "0x0", #""0x0""#, #"width and height must each be in 1...16384, got "0x0""#),
        ("size", "80x", #""80x""#, #"expected a size like "1024x768", got "80x""#),
        ("zoom", "30", "30", "expected a number in 0...24, got 30"),
        ("max-zoom", "2.5", "2.5", "expected a whole number in 0...24, got 2.5"),
        ("scale", "0", "0", "expected a number in 0.1...8, got 0"),
        ("bbox", "-200,-100,200,100", #""-200,-100,200,100""#, #"W and E must be in -180...180, got "-200,-100,200,100""#),
        ("bbox", "10,10,10,20", #""10,10,10,20""#, #"W and E are equal, so the box has no width, got "10,10,10,20""#),
        ("bbox", "0,50,10,40", #""0,50,10,40""#, #"S must be less than N, got "0,50,10,40""#),
        ("bbox", "0,-95,10,40", #""0,-95,10,40""#, #"S and N must be in -90...90, got "0,-95,10,40""#),
        ("center", "100,20", #""100,20""#, #"expected LAT,LON with |lat| <= 90 and |lon| <= 180, got "100,20""#),
        ("marker", "star", #""star""#, #"expected pin, circle or square, got "star""#),
        ("label-style", "boxed", #""boxed""#, #"expected plain or callout, got "boxed""#),
        ("delimiter", ":", #"":""#, #"expected ',', ';', '|' or 'tab', got ":""#),
        ("background", "reddish", #""reddish""#, ##"expected a colour like "#rrggbb", "#rrggbbaa" or "rgba(r,g,b,a)", got "reddish""##),
    ])
    func aBadValueReadsTheSameEverywhere(key: String, word: String, json: String, message: String) throws {
        do {
            _ = try RenderOptionTable.request(commandLine: [(key, OptionValue(word: word))])
            Issue.record("--\(key) \(word) was accepted")
        } catch let e as MapRenderError {
            #expect(e.message == "--\(key): \(message)")
            #expect(e.exitCode == 64)
        }
        do {
            _ = try manifestJob(key, json)
            Issue.record("\(key): \(json) was accepted")
        } catch let e as BatchManifestError {
            #expect(e.issues.count == 1)
            #expect(e.issues.first?.message == "jobs.json: jobs[0].\(key): \(message)")
            #expect(e.exitCode == 64)
        }
    }

    @Test func combinationsAreNamedInEachSpelling() throws {
        // --center alone centres the fitted view (issue 13).
        #expect(try RenderOptionTable.request(commandLine: [("center", OptionValue(word: "1,2"))]).view
                == .fitAround(lat: 1, lon: 2))
        #expect(throws: MapRenderError(.usage, "--bbox cannot be combined with --center or --zoom")) {
            try RenderOptionTable.request(commandLine: [("bbox", OptionValue(word: "0,0,1,1")), ("zoom", OptionValue(word: "3"))])
        }
    }

    /// The marker shape brings its default size, whatever the order; `marker-size` wins over it.
    @Test func markerShapeThenSizeInAnyOrder() throws {
        let shape = (name: "marker", value: OptionValue(word: "circle")), size = (name: "marker-size", value: OptionValue(word: "20"))
        #expect(try RenderOptionTable.request(commandLine: [shape]).style.marker.size == 12)
        #expect(try RenderOptionTable.request(commandLine: [shape, size]).style.marker.size == 20)
        #expect(try RenderOptionTable.request(commandLine: [size, shape]).style.marker.size == 20)
    }

    /// A box smaller than zoom 24 shows is drawn at zoom 24, the limit of `--zoom` (it gave 30).
    @Test func aTinyBoxIsFittedAtTheZoomLimit() {
        let v = ViewFitter.fit(bounds: GeoBounds(west: 0, south: 0, east: 1e-12, north: 1e-12), width: 1024, height: 768)
        #expect(v.zoom == RenderOptionTable.zoomLimit)
        #expect(RenderOptionTable.zoomLimit == 24)
        let wide = ViewFitter.fit(bounds: GeoBounds(west: -10, south: 35, east: 30, north: 60), width: 1024, height: 768)
        #expect(wide.zoom > 3 && wide.zoom < 5)
    }

    /// YAML reads `0x0` as the hexadecimal number 0; a manifest keeps it as the text written.
    @Test func yamlHexStaysText() throws {
        let dir = try BatchTempDir()
        defer { dir.remove() }
        try dir.write("pts.csv", "lat,lon\n1,2\n")
        do {
            _ = try BatchManifest.parse(data: Data("jobs:\n  - { output: a.png, input: pts.csv, size: 0x0 }\n".utf8),
                                        name: "jobs.yaml", baseDirectory: dir.path)
            Issue.record("size 0x0 was accepted")
        } catch let e as BatchManifestError {
            #expect(e.issues.map(\.message) == [#"jobs.yaml: jobs[0].size: width and height must each be in 1...16384, got "0x0""#])
        }
    }

    /// Request validation uses the table's limits (for requests built in code).
    @Test func validationUsesTheTableLimits() {
        var r = RenderRequest()
        r.inputs = ["x.csv"]
        r.view = .center(lat: 0, lon: 0, zoom: 25)
        #expect(throws: MapRenderError(.usage, "zoom must be in 0...24, got 25.0")) { try MapRenderer.validate(r) }
        r.view = .fit(zoom: nil)
        r.width = 16385
        #expect(throws: MapRenderError(.usage, "size must be between 1x1 and 16384x16384, got 16385x768")) { try MapRenderer.validate(r) }
    }
}
