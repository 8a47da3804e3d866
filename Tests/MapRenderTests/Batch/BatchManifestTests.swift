import Foundation
import Testing
@testable import MapRender

/// Reading manifests (JSON and YAML) and every validation message, with the job's index and key path.
@Suite struct BatchManifestTests {
    /// Parses `text` as the manifest `name` in a folder holding `pts.csv` and `style.json`.
    func parse(_ text: String, name: String = "jobs.json") throws -> BatchManifest {
        let dir = try BatchTempDir()
        defer { dir.remove() }
        try dir.write("pts.csv", "id,name,country,lat,lon\n1,Paris,FR,48.85,2.35\n")
        try dir.write("style.json", ##"{ "background": "#112233" }"##)
        return try BatchManifest.parse(data: Data(text.utf8), name: name, baseDirectory: dir.path)
    }

    /// The messages of a manifest that must fail.
    func issues(_ text: String, name: String = "jobs.json") -> [String] {
        do {
            _ = try parse(text, name: name)
            Issue.record("expected the manifest to be rejected")
            return []
        } catch let e as BatchManifestError {
            return e.issues.map(\.message)
        } catch {
            Issue.record("unexpected error \(error)")
            return []
        }
    }

    static let json = """
    {
      "defaults": { "input": "pts.csv", "size": "200x150", "cluster": false, "max-zoom": 9 },
      "jobs": [
        { "output": "out/fr.png", "filter": ["==", ["get", "country"], "FR"], "label": "name",
          "bbox": "-5,41,10,51", "cluster-sum": ["pop"], "style": "style.json", "marker": "circle" },
        { "output": "out/b.svg", "size": "300x200", "cluster": true, "cluster-radius": 60, "min-points": 3,
          "center": [48.85, 2.35], "zoom": 5, "padding": 10, "scale": 2, "format": "pdf", "text-scale": 1.5,
          "spread-tolerance": 4, "spread-max": 20, "attribution": "© OSM", "background": "#ffffff",
          "marker-size": 14, "lat": "lat", "lon": "lon", "id-field": "id", "delimiter": ",", "wrap-longitude": true,
          "input-format": "csv", "basemap": ["pts.csv"] }
      ]
    }
    """

    static let yaml = """
    # The same manifest as `json`, in YAML.
    defaults:
      input: pts.csv
      size: 200x150
      cluster: false
      max-zoom: 9
    jobs:
      - output: out/fr.png
        filter: ["==", ["get", "country"], "FR"]
        label: name
        bbox: -5,41,10,51
        cluster-sum: [pop]
        style: style.json
        marker: circle
      - output: out/b.svg
        size: 300x200
        cluster: true
        cluster-radius: 60
        min-points: 3
        center: [48.85, 2.35]
        zoom: 5
        padding: 10
        scale: 2
        format: pdf
        text-scale: 1.5
        spread-tolerance: 4
        spread-max: 20
        attribution: © OSM
        background: "#ffffff"
        marker-size: 14
        lat: lat
        lon: lon
        id-field: id
        delimiter: ","
        wrap-longitude: true
        input-format: csv
        basemap: [pts.csv]
    """

    @Test(arguments: [("jobs.json", BatchManifestTests.json), ("jobs.yaml", BatchManifestTests.yaml)])
    func readsEveryOption(name: String, text: String) throws {
        let m = try parse(text, name: name)
        #expect(m.jobs.count == 2)
        let a = m.jobs[0], b = m.jobs[1]
        #expect(a.index == 0 && b.index == 1)
        // Relative paths resolve against the manifest's folder.
        #expect(a.output.hasSuffix("/out/fr.png") && a.output.hasPrefix("/"))
        #expect(a.request.inputs.count == 1 && a.request.inputs[0].hasSuffix("/pts.csv"))
        // Defaults, overridden per job.
        #expect(a.request.width == 200 && a.request.height == 150)
        #expect(b.request.width == 300 && b.request.height == 200)
        #expect(a.request.clustering == nil)
        #expect(b.request.clustering == ClusterOptions(maxZoom: 9, minPoints: 3, radius: 60))
        #expect(a.request.maxZoom == 9)
        #expect(a.request.view == .bbox(GeoBounds(west: -5, south: 41, east: 10, north: 51)))
        #expect(b.request.view == .center(lat: 48.85, lon: 2.35, zoom: 5))
        #expect(a.request.aggregates == [.sum(field: "pop")])
        #expect(a.request.layout.labelField == "name")
        #expect(a.request.style.background == RGBA.parse("#112233"))
        #expect(a.styleFile?.hasSuffix("/style.json") == true)
        #expect(a.request.style.marker.shape == .circle && a.request.style.marker.size == 12)
        #expect(a.request.format == .png)
        #expect(b.request.format == .pdf)
        #expect(b.request.scale == 2 && b.request.padding == 10 && b.request.layout.textScale == 1.5)
        #expect(b.request.spread == SpreadOptions(tolerance: 4, maximum: 20))
        #expect(b.request.layout.attribution == "© OSM")
        #expect(b.request.style.background == RGBA.parse("#ffffff"))
        #expect(b.request.style.marker.size == 14)
        #expect(b.request.inputOptions.latField == "lat" && b.request.inputOptions.idField == "id")
        #expect(b.request.inputOptions.delimiter == UInt8(ascii: ",") && b.request.inputOptions.wrapLongitude)
        #expect(b.request.inputOptions.format == .csv)
        #expect(b.request.basemaps.count == 1)
        #expect(a.filter?.source == #"["==",["get","country"],"FR"]"#)
        #expect(b.filter == nil)
    }

    @Test func jsonAndYAMLGiveTheSameJobs() throws {
        let j = try parse(Self.json, name: "jobs.json"), y = try parse(Self.yaml, name: "jobs.yaml")
        #expect(j.jobs.map(\.fingerprint).count == 2)
        // Paths differ (two temporary folders); everything else is the same.
        func strip(_ s: String) -> String { s.replacingOccurrences(of: #"/[^"]*/"#, with: "/", options: .regularExpression) }
        #expect(j.jobs.map { strip($0.fingerprint) } == y.jobs.map { strip($0.fingerprint) })
    }

    @Test func yamlKeepsCountryCodesAndDatesAsStrings() throws {
        let m = try parse("""
        defaults: { input: pts.csv }
        jobs:
          - { output: no.png, filter: ["==", ["get", "country"], NO] }
          - { output: d.png, filter: ["==", ["get", "day"], 2024-05-01] }
          - { output: y.png, filter: ["==", ["get", "flag"], true] }
        """, name: "jobs.yml")
        #expect(m.jobs.map { $0.filter!.source } == [
            #"["==",["get","country"],"NO"]"#, #"["==",["get","day"],"2024-05-01"]"#, #"["==",["get","flag"],true]"#,
        ])
    }

    @Test func simpleComparisonIsTheSameFilter() throws {
        let m = try parse(#"""
        { "defaults": { "input": "pts.csv" },
          "jobs": [ { "output": "a.png", "filter": "country == \"FR\"" },
                    { "output": "b.png", "filter": ["==", ["get", "country"], "FR"] },
                    { "output": "c.png", "filter": "population >= 1e6" } ] }
        """#)
        #expect(m.jobs[0].filter?.source == m.jobs[1].filter?.source)
        #expect(m.jobs[2].filter?.source == #"[">=",["get","population"],1000000]"#)
        #expect(m.jobs[0].filter?.expression.evaluate(FeatureContext(properties: ["country": .string("FR")])) == .bool(true))
    }

    @Test func formatIsSniffedWithoutAnExtension() throws {
        #expect(try parse(#"{"jobs":[{"output":"a.png","input":"pts.csv"}]}"#, name: "manifest").jobs.count == 1)
        #expect(try parse("jobs:\n  - output: a.png\n    input: pts.csv\n", name: "manifest").jobs.count == 1)
    }

    // MARK: - Validation: one message per problem, naming the job and key

    /// A manifest with one job (index 3, after three good ones) whose keys are `job`.
    func oneBadJob(_ job: String) -> String {
        """
        { "defaults": { "input": "pts.csv" },
          "jobs": [ { "output": "0.png" }, { "output": "1.png" }, { "output": "2.png" }, \(job) ] }
        """
    }

    @Test(arguments: [
        (#"{ "output": "3.png", "sise": "80x60" }"#, "jobs.json: jobs[3].sise: unknown key; did you mean 'size'?"),
        (#"{ "output": "3.png", "labels": "name" }"#, "jobs.json: jobs[3].labels: unknown key; did you mean 'label'?"),
        (#"{ "output": "3.png", "colour": "red" }"#,
         "jobs.json: jobs[3].colour: unknown key; expected one of: " + ManifestReader.jobKeys.joined(separator: ", ")),
        (#"{ "output": "3.png", "size": "80x" }"#, #"jobs.json: jobs[3].size: expected a size like "1024x768", got "80x""#),
        (#"{ "output": "3.png", "size": 800 }"#, #"jobs.json: jobs[3].size: expected a size like "1024x768", got 800"#),
        (#"{ "output": "3.png", "size": "0x10" }"#, #"jobs.json: jobs[3].size: width and height must each be in 1...16384, got "0x10""#),
        (#"{ "output": "3.png", "bbox": "1,2,3" }"#,
         #"jobs.json: jobs[3].bbox: expected W,S,E,N in degrees, got "1,2,3""#),
        (#"{ "output": "3.png", "bbox": [0, 50, 10, 40] }"#,
         #"jobs.json: jobs[3].bbox: S must be less than N, got [0,50,10,40]"#),
        (#"{ "input": "pts.csv" }"#, "jobs.json: jobs[3]: missing key 'output'"),
        (#"{ "output": "3.png", "scale": "big" }"#, #"jobs.json: jobs[3].scale: expected a number in 0.1...8, got "big""#),
        (#"{ "output": "3.png", "scale": 0 }"#, "jobs.json: jobs[3].scale: expected a number in 0.1...8, got 0"),
        (#"{ "output": "3.png", "cluster": "yes" }"#, #"jobs.json: jobs[3].cluster: expected true or false, got "yes""#),
        (#"{ "output": "3.png", "min-points": 2.5 }"#, "jobs.json: jobs[3].min-points: expected a whole number in 2...1000000, got 2.5"),
        (#"{ "output": "3.png", "label": 7 }"#, "jobs.json: jobs[3].label: expected a non-empty string, got 7"),
        (#"{ "output": "3.png", "input": [1] }"#,
         "jobs.json: jobs[3].input: expected a string or a list of strings, got 1 in the list"),
        (#"{ "output": "3.png", "input": "nope.csv" }"#, "jobs.json: jobs[3].input: cannot read <dir>/nope.csv: no such file"),
        (#"{ "output": "3.png", "marker": "star" }"#, #"jobs.json: jobs[3].marker: expected pin, circle or square, got "star""#),
        (#"{ "output": "3.png", "background": "reddish" }"#,
         ##"jobs.json: jobs[3].background: expected a colour like "#rrggbb", "#rrggbbaa" or "rgba(r,g,b,a)", got "reddish""##),
        (#"{ "output": "3.png", "format": "gif" }"#, #"jobs.json: jobs[3].format: expected png, svg, pdf, jpeg, webp or jpg, got "gif""#),
        (#"{ "output": "3.gif" }"#,
         "jobs.json: jobs[3].output: cannot tell the format from '<dir>/3.gif': use .png, .svg, .pdf, .jpg, .jpeg or .webp, or 'format'"),
        (#"{ "output": "-" }"#, "jobs.json: jobs[3].output: a batch cannot write to standard output"),
        (#"{ "output": "3.png", "center": "100,20", "zoom": 3 }"#,
         #"jobs.json: jobs[3].center: expected LAT,LON with |lat| <= 90 and |lon| <= 180, got "100,20""#),
        (#"{ "output": "3.png", "bbox": "0,0,10,10", "zoom": 3 }"#,
         "jobs.json: jobs[3]: 'bbox' cannot be combined with 'center' or 'zoom'"),
        (#"{ "output": "3.png", "delimiter": ":" }"#, #"jobs.json: jobs[3].delimiter: expected ',', ';', '|' or 'tab', got ":""#),
        (#"{ "output": "3.png", "filter": ["==", ["gett", "country"], "FR"] }"#,
         #"jobs.json: jobs[3].filter[1][0]: unknown operator "gett"; did you mean "get"?"#),
        (#"{ "output": "3.png", "filter": "country is FR" }"#,
         #"jobs.json: jobs[3].filter: expected an expression like ["==", ["get", "country"], "FR"] or a comparison like country == "FR", got "country is FR""#),
        (#"{ "output": "3.png", "filter": [">", ["zoom"], 3] }"#,
         #"jobs.json: jobs[3].filter: a filter cannot use ["zoom"]: points are chosen before the view"#),
        (#"{ "output": "0.png" }"#, "jobs.json: jobs[3].output: same output as jobs[0]: <dir>/0.png"),
        (#"{ "output": "3.png", "size": "16384x16384", "scale": 2 }"#,
         "jobs.json: jobs[3]: the image would be more than 32767 pixels per side ('size' times 'scale')"),
        (#"["a.png"]"#, #"jobs.json: jobs[3]: expected an object with 'output' and render options, got ["a.png"]"#),
    ])
    func reportsTheJobAndKey(job: String, expected: String) throws {
        let dir = try BatchTempDir()
        defer { dir.remove() }
        try dir.write("pts.csv", "id,name,country,lat,lon\n1,Paris,FR,48.85,2.35\n")
        do {
            _ = try BatchManifest.parse(data: Data(oneBadJob(job).utf8), name: "jobs.json", baseDirectory: dir.path)
            Issue.record("expected the manifest to be rejected")
        } catch let e as BatchManifestError {
            let dirPath = URL(fileURLWithPath: dir.path).standardizedFileURL.path
            #expect(e.issues.map(\.message) == [expected.replacingOccurrences(of: "<dir>", with: dirPath)])
        }
    }

    @Test func collectsEveryProblemBeforeRendering() {
        let found = issues("""
        { "defaults": { "input": "pts.csv", "sise": "1x1", "output": "x.png" },
          "jobs": [ { "output": "a.png", "size": "80x" }, { "output": "b.png" }, { "zoom": "3" }, { "output": "d.png", "scale": -1 } ],
          "extra": true }
        """)
        #expect(found == [
            "jobs.json: extra: unknown key; expected one of: defaults, jobs",
            "jobs.json: defaults.sise: unknown key; did you mean 'size'?",
            "jobs.json: defaults.output: each job needs its own output: set it in the jobs",
            #"jobs.json: jobs[0].size: expected a size like "1024x768", got "80x""#,
            #"jobs.json: jobs[2].zoom: expected a number in 0...24, got "3""#,
            "jobs.json: jobs[2]: missing key 'output'",
            "jobs.json: jobs[3].scale: expected a number in 0.1...8, got -1",
        ])
    }

    @Test func reportsTopLevelProblems() {
        #expect(issues("[1, 2]") == ["jobs.json: (top level): expected an object with 'jobs' (and optional 'defaults'), got [1,2]"])
        #expect(issues(#"{ "defaults": {} }"#) == ["jobs.json: (top level): missing key 'jobs': the list of maps to render"])
        #expect(issues(#"{ "job": [] }"#) == [
            "jobs.json: job: unknown key; did you mean 'jobs'?",
            "jobs.json: (top level): missing key 'jobs': the list of maps to render",
        ])
        #expect(issues(#"{ "jobs": {} }"#) == ["jobs.json: jobs: expected a list of jobs, got an object"])
        #expect(issues(#"{ "jobs": [] }"#) == ["jobs.json: jobs: the list is empty"])
        #expect(issues(#"{ "defaults": 3, "jobs": [{ "output": "a.png", "input": "pts.csv" }] }"#)
            == ["jobs.json: defaults: expected an object, got 3"])
    }

    @Test func reportsSyntaxErrorsWithLineAndColumn() {
        #expect(issues("{\n  \"jobs\": [\n    { \"output\": \"a.png\", }\n  ]\n}") .count == 1)
        let json = issues("{\n  \"jobs\": [\n    { \"output\" \"a.png\" }\n  ]\n}")
        #expect(json.count == 1 && json[0].hasPrefix("jobs.json: not valid JSON: line 3"))
        // Foundation names a number out of range without its place: found in the text.
        #expect(issues("{\n  \"jobs\": [\n    { \"output\": \"a.png\", \"zoom\": 1e400 }\n  ]\n}")
                == ["jobs.json: not valid JSON: line 3, column 34: number 1e400 is not representable in swift."])
        let yaml = issues("jobs:\n  - output: a.png\n    input: [pts.csv\n", name: "jobs.yaml")
        #expect(yaml.count == 1 && yaml[0].hasPrefix("jobs.yaml: not valid YAML: line "))
        #expect(issues("jobs:\n  - output: a.png\n    output: b.png\n", name: "jobs.yaml")
            == ["jobs.yaml: not valid YAML: line 3: duplicate key 'output'"])
    }

    @Test func badStyleIsReportedOncePerKeyWithItsOwnPath() throws {
        let dir = try BatchTempDir()
        defer { dir.remove() }
        try dir.write("pts.csv", "lat,lon\n1,2\n")
        try dir.write("bad.json", ##"{ "marker": { "fil": "#ff0000" } }"##)
        let text = #"{ "defaults": { "input": "pts.csv", "style": "bad.json" }, "jobs": [ { "output": "a.png" }, { "output": "b.png" } ] }"#
        do {
            _ = try BatchManifest.parse(data: Data(text.utf8), name: "jobs.json", baseDirectory: dir.path)
            Issue.record("expected the manifest to be rejected")
        } catch let e as BatchManifestError {
            let bad = URL(fileURLWithPath: dir.file("bad.json")).standardizedFileURL.path
            #expect(e.issues.map(\.message) == ["jobs.json: defaults.style: \(bad): marker.fil: unknown key; did you mean 'fill'?"])
            #expect(e.exitCode == 78)
        }
    }

    @Test func exitCodes() throws {
        let dir = try BatchTempDir()
        defer { dir.remove() }
        func code(_ text: String) -> Int32? {
            do {
                _ = try BatchManifest.parse(data: Data(text.utf8), name: "jobs.json", baseDirectory: dir.path)
                return nil
            } catch let e as BatchManifestError {
                return e.exitCode
            } catch { return nil }
        }
        // Only missing files: 66, as `render`. Mixed, or a bad key or structure: 78 (a bad configuration file).
        #expect(code(#"{ "jobs": [ { "output": "a.png", "input": "none.csv" } ] }"#) == 66)
        #expect(code(#"{ "jobs": [ { "output": "a.png", "input": "none.csv", "sise": 1 } ] }"#) == 78)
        #expect(code(#"{ "jobs": [ { "output": "a.png" } ] }"#) == 78)
        // Only bad option values: 64, as the same value on `render`'s command line.
        try Data("lat,lon\n1,2\n".utf8).write(to: URL(fileURLWithPath: dir.file("pts.csv")))
        #expect(code(#"{ "jobs": [ { "output": "a.png", "input": "pts.csv", "zoom": 30 } ] }"#) == 64)
        #expect(code(#"{ "jobs": [ { "output": "a.png", "input": "pts.csv", "center": "100,2" } ] }"#) == 64)
        do {
            _ = try BatchManifest.load(path: dir.file("absent.json"))
        } catch let e as BatchManifestError {
            #expect(e.exitCode == 66)
            #expect(e.issues[0].message == "cannot read manifest \(dir.file("absent.json")): no such file or not readable")
        }
    }
}
