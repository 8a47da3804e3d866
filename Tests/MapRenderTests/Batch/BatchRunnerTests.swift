import Foundation
import Testing
@testable import MapRender

/// Running manifests on real data: world_cities_15000.csv, one map per country.
@Suite struct BatchRunnerTests {
    static let countries = ["FR", "DE", "JP", "BR", "NO", "AU"]

    /// One job per country on the shared cities file, small maps with the Natural Earth basemap.
    func countryManifest(_ dir: BatchTempDir, extra: String = "", style: String? = nil) throws -> BatchManifest {
        let jobs = Self.countries.map { c in
            #"{ "output": "maps/\#(c).png", "filter": ["==", ["get", "country"], "\#(c)"] }"#
        }.joined(separator: ",\n")
        let styleKey = style.map { #", "style": "\#($0)""# } ?? ""
        let text = """
        { "defaults": { "input": "\(BatchFixtures.cities)", "basemap": "\(BatchFixtures.countries)",
                        "size": "200x150", "label": "name"\(styleKey) \(extra) },
          "jobs": [\(jobs)] }
        """
        return try BatchManifest.parse(data: Data(text.utf8), name: "jobs.json", baseDirectory: dir.path)
    }

    func counting(_ counter: BatchFixtures.ReadCounter) -> BatchOptions {
        var options = BatchOptions()
        options.workers = 2
        options.readPoints = { path, opts in
            counter.record(path)
            return try PointReader.read(path: path, options: opts)
        }
        return options
    }

    @Test func readsEachInputOnce() throws {
        let dir = try BatchTempDir()
        defer { dir.remove() }
        let small = try dir.write("small.csv", "name,country,lat,lon\nA,FR,48.85,2.35\nB,DE,52.52,13.40\n")
        // Six jobs on the cities file, two on a small file, one on both, one reading the small file
        // with other options (a different input).
        let text = """
        { "defaults": { "input": "\(BatchFixtures.cities)", "size": "120x90", "cluster": false },
          "jobs": [
            \(Self.countries.map { #"{ "output": "\#($0).png", "filter": "country == \"\#($0)\"" }"# }.joined(separator: ","))
            , { "output": "s1.png", "input": "small.csv" }
            , { "output": "s2.svg", "input": "small.csv", "filter": "country == \\"DE\\"" }
            , { "output": "both.png", "input": ["small.csv", "\(BatchFixtures.cities)"], "filter": "country == \\"FR\\"" }
            , { "output": "s3.png", "input": "small.csv", "lat": "lat" }
          ] }
        """
        let manifest = try BatchManifest.parse(data: Data(text.utf8), name: "jobs.json", baseDirectory: dir.path)
        let counter = BatchFixtures.ReadCounter()
        let report = BatchRunner.run(manifest, options: counting(counter))
        #expect(report.failed == 0, "\(report.jobs.compactMap(\.error))")
        #expect(report.ok == 10)
        #expect(counter.reads.sorted() == [BatchFixtures.cities, small, small].sorted())
        // FR from the cities file plus the one FR row of the small file.
        let fr = report.jobs.first { $0.output.hasSuffix("/FR.png") }!.points
        #expect(report.jobs.first { $0.output.hasSuffix("/both.png") }!.points == fr + 1)
        #expect(report.jobs.first { $0.output.hasSuffix("/s2.svg") }!.points == 1)
    }

    @Test func aFailingJobDoesNotStopTheOthers() throws {
        let dir = try BatchTempDir()
        defer { dir.remove() }
        // A file where job 2's output folder should be: its write fails.
        try dir.write("blocked", "not a folder")
        let text = """
        { "defaults": { "input": "\(BatchFixtures.cities)", "size": "120x90" },
          "jobs": [
            { "output": "ok/fr.png", "filter": ["==", ["get", "country"], "FR"] },
            { "output": "ok/de.png", "filter": ["==", ["get", "contry"], "DE"] },
            { "output": "blocked/jp.png", "filter": ["==", ["get", "country"], "JP"] },
            { "output": "ok/br.png", "filter": ["==", ["get", "country"], "BR"] }
          ] }
        """
        let manifest = try BatchManifest.parse(data: Data(text.utf8), name: "jobs.json", baseDirectory: dir.path)
        let events = BatchFixtures.Events()
        var options = BatchOptions()
        options.workers = 2
        let report = BatchRunner.run(manifest, options: options) { events.add($0) }
        #expect(!report.succeeded)
        #expect(report.jobs.map(\.status) == [.ok, .failed, .failed, .ok])
        #expect(report.ok == 2 && report.failed == 2 && report.total == 4)
        #expect(report.jobs[1].error == "filter reads 'contry', which \(BatchFixtures.cities) does not have; did you mean 'country'?")
        #expect(report.jobs[2].error == "cannot write \(dir.file("blocked/jp.png")): \(dir.file("blocked")) is not a folder")
        #expect(FileManager.default.fileExists(atPath: dir.file("ok/fr.png")))
        #expect(FileManager.default.fileExists(atPath: dir.file("ok/br.png")))
        #expect(!FileManager.default.fileExists(atPath: dir.file("ok/de.png")))
        // Progress: a start, then one event per job, counts growing to the total.
        let finished = events.all.compactMap { e -> BatchProgress? in if case .finished(_, let p) = e { return p } else { return nil } }
        #expect(finished.map(\.finished) == [1, 2, 3, 4])
        #expect(finished.last?.failed == 2)
        // The report as JSON has every key for every job.
        let json = try JSONSerialization.jsonObject(with: JSONEncoder().encode(report)) as! [String: Any]
        let first = (json["jobs"] as! [[String: Any]])[0]
        #expect(Set(first.keys) == ["index", "output", "status", "points", "pointsDrawn", "clusters", "labelsDropped",
                                    "milliseconds", "error", "warnings", "crc32"])
        #expect(first["error"] is NSNull)
        // The CRC-32 of the map written (zlib's value for these bytes, by another implementation: Python's).
        let fr = try Data(contentsOf: URL(fileURLWithPath: dir.file("ok/fr.png")))
        let py = try zlibCRC32(fr)
        #expect(report.jobs[0].crc32 == py)
        #expect((json["jobs"] as! [[String: Any]])[1]["crc32"] is NSNull)
    }

    @Test func anUnreadableInputFailsItsJobsOnly() throws {
        let dir = try BatchTempDir()
        defer { dir.remove() }
        let broken = try dir.write("broken.geojson", "{ \"type\": \"FeatureCollection\", \"features\": [ ")
        let good = try dir.write("good.csv", "lat,lon\n48.85,2.35\n")
        let text = """
        { "defaults": { "size": "60x40" },
          "jobs": [ { "output": "a.png", "input": "\(broken)" }, { "output": "b.png", "input": "\(good)" },
                    { "output": "c.png", "input": "\(broken)" } ] }
        """
        let manifest = try BatchManifest.parse(data: Data(text.utf8), name: "jobs.json", baseDirectory: dir.path)
        let counter = BatchFixtures.ReadCounter()
        let report = BatchRunner.run(manifest, options: counting(counter))
        #expect(report.jobs.map(\.status) == [.failed, .ok, .failed])
        #expect(report.jobs[0].error == report.jobs[2].error)
        #expect(report.jobs[0].error?.hasPrefix(broken) == true)
        #expect(counter.reads.filter { $0 == broken }.count == 1)
    }

    @Test func skipsUnchangedJobs() throws {
        let dir = try BatchTempDir()
        defer { dir.remove() }
        try dir.write("style.json", ##"{ "background": "#bcd6e6" }"##)
        let manifest = try countryManifest(dir, style: "style.json")
        var options = BatchOptions()
        options.skipUnchanged = true

        let first = BatchRunner.run(manifest, options: options)
        #expect(first.ok == Self.countries.count)
        let record = dir.file("maps/.FR.png.maprender-hash")
        #expect(FileManager.default.fileExists(atPath: record))
        #expect(try String(contentsOfFile: record, encoding: .utf8).count == 17)

        let second = BatchRunner.run(manifest, options: options)
        #expect(second.skipped == Self.countries.count && second.ok == 0)

        // Another style: every job renders again.
        try dir.write("style.json", ##"{ "background": "#223344" }"##)
        let third = BatchRunner.run(try countryManifest(dir, style: "style.json"), options: options)
        #expect(third.ok == Self.countries.count && third.skipped == 0)

        // A deleted output renders again; the others stay skipped.
        try FileManager.default.removeItem(atPath: dir.file("maps/DE.png"))
        let fourth = BatchRunner.run(try countryManifest(dir, style: "style.json"), options: options)
        #expect(fourth.jobs.filter { $0.status == .ok }.map(\.output) == [dir.file("maps/DE.png")].map {
            URL(fileURLWithPath: $0).standardizedFileURL.path
        })

        // Other options for one job: it renders again.
        let fifth = BatchRunner.run(try countryManifest(dir, extra: #", "padding": 30"#, style: "style.json"), options: options)
        #expect(fifth.ok == Self.countries.count)
    }

    /// `--skip-unchanged` renders again when a job's tileset changes (it ignored their
    /// contents): an MBTiles file replaced, a tile changed in a tile folder.
    @Test func skipUnchangedSeesTilesetChanges() throws {
        let dir = try BatchTempDir()
        defer { dir.remove() }
        let fixtures = TestPaths.repo.appendingPathComponent("Tests/MapRenderTilesTests/Fixtures")
        let fm = FileManager.default
        try fm.copyItem(atPath: fixtures.appendingPathComponent("ne.mbtiles").path, toPath: dir.file("t.mbtiles"))
        try fm.copyItem(atPath: fixtures.appendingPathComponent("folder").path, toPath: dir.file("folder"))
        let text = """
        { "defaults": { "input": "\(BatchFixtures.cities)", "size": "120x90", "zoom": 1, "center": "20,0" },
          "jobs": [ { "output": "a.png", "tiles": "t.mbtiles" }, { "output": "b.png", "tiles": "folder" } ] }
        """
        let manifest = try BatchManifest.parse(data: Data(text.utf8), name: "jobs.json", baseDirectory: dir.path)
        var options = BatchOptions()
        options.skipUnchanged = true
        #expect(BatchRunner.run(manifest, options: options).ok == 2)
        #expect(BatchRunner.run(manifest, options: options).skipped == 2)
        // The MBTiles file replaced by a copy of itself with another time of change.
        let later = Date(timeIntervalSinceNow: 60)
        try fm.setAttributes([.modificationDate: later], ofItemAtPath: dir.file("t.mbtiles"))
        let third = BatchRunner.run(manifest, options: options)
        #expect(third.jobs.map(\.status) == [.ok, .skipped])
        // One tile in the folder rewritten.
        let tile = try #require(fm.enumerator(atPath: dir.file("folder"))?.compactMap { $0 as? String }.sorted().first { $0.hasSuffix(".png") })
        try fm.setAttributes([.modificationDate: later], ofItemAtPath: dir.file("folder/" + tile))
        let fourth = BatchRunner.run(manifest, options: options)
        #expect(fourth.jobs.map(\.status) == [.skipped, .ok])

        // Tile folders and caches are confined to the manifest's folder as other paths are.
        try fm.copyItem(atPath: BatchFixtures.cities, toPath: dir.file("cities.csv"))
        let outside = """
        { "jobs": [ { "output": "c.png", "input": "cities.csv", "tiles": "/usr", "tile-cache": "../cache" } ] }
        """
        let error = #expect(throws: BatchManifestError.self) {
            try BatchManifest.parse(data: Data(outside.utf8), name: "jobs.json", baseDirectory: dir.path, allowOutsideRoot: false)
        }
        let messages = error?.issues.map(\.message) ?? []
        #expect(messages.count == 2, "\(messages)")
        #expect(messages.contains { $0.hasPrefix("jobs.json: jobs[0].tiles: /usr is outside ") }, "\(messages)")
        #expect(messages.contains { $0.hasPrefix("jobs.json: jobs[0].tile-cache: ") && $0.contains("/cache is outside ") }, "\(messages)")
    }

    /// The batch's output equals `render` of the same map with the country's rows as its own input.
    @Test func outputMatchesSingleRenders() throws {
        let dir = try BatchTempDir()
        defer { dir.remove() }
        let manifest = try countryManifest(dir)
        let report = BatchRunner.run(manifest)
        #expect(report.ok == Self.countries.count)
        for (job, code) in zip(manifest.jobs, Self.countries) {
            var request = RenderRequest()
            request.inputs = [try dir.write("\(code).csv", try BatchFixtures.countryCSV(code))]
            request.basemaps = [BatchFixtures.countries]
            request.width = 200; request.height = 150
            request.layout.labelField = "name"
            let single = try MapRenderer.render(request)
            let batch = try Data(contentsOf: URL(fileURLWithPath: job.output))
            #expect(batch == single.data, "\(code)")
            #expect(report.jobs[job.index].pointsDrawn == single.summary.pointsDrawn)
            #expect(report.jobs[job.index].clusters == single.summary.clusters.drawn)
            #expect(report.jobs[job.index].labelsDropped == single.summary.labelsDropped)
            #expect(report.jobs[job.index].points == single.summary.input.pointsRead)
        }
    }

    @Test func unfilteredJobMatchesRenderOfTheFile() throws {
        let dir = try BatchTempDir()
        defer { dir.remove() }
        let text = """
        { "jobs": [ { "output": "all.svg", "input": "\(BatchFixtures.cities)", "size": "200x150", "cluster-radius": 60 } ] }
        """
        let manifest = try BatchManifest.parse(data: Data(text.utf8), name: "jobs.json", baseDirectory: dir.path)
        #expect(BatchRunner.run(manifest).ok == 1)
        var request = RenderRequest()
        request.inputs = [BatchFixtures.cities]
        request.width = 200; request.height = 150
        request.clustering = ClusterOptions(radius: 60)
        request.format = .svg
        #expect(try Data(contentsOf: URL(fileURLWithPath: dir.file("all.svg"))) == MapRenderer.render(request).data)
    }

    /// `MapRenderer.render` is the library call: many threads at once give the bytes of one thread.
    @Test func renderIsSafeFromManyThreads() throws {
        let loaded = try PointReader.read(path: BatchFixtures.cities, options: InputOptions())
        let requests: [RenderRequest] = ["FR", "DE", "JP", "BR"].enumerated().map { n, code in
            var r = RenderRequest()
            let col = loaded.points.properties.columnIndex("country")!
            r.points = loaded.points.selecting((0..<loaded.points.count).filter {
                loaded.points.properties.value(column: col, row: $0) == .string(code)
            })
            r.inputs = ["\(code).csv"]
            r.basemaps = [BatchFixtures.countries]
            r.width = 200; r.height = 150
            r.layout.labelField = "name"
            r.format = [OutputFormat.png, .svg, .pdf, .png][n]
            return r
        }
        let expected = try requests.map { try MapRenderer.render($0).data }
        final class Results: @unchecked Sendable {
            let lock = NSLock()
            var data: [Int: [Data]] = [:]
            func add(_ i: Int, _ d: Data) { lock.lock(); data[i, default: []].append(d); lock.unlock() }
        }
        let results = Results()
        DispatchQueue.concurrentPerform(iterations: 16) { i in
            if let d = try? MapRenderer.render(requests[i % requests.count]).data { results.add(i % requests.count, d) }
        }
        for (i, e) in expected.enumerated() {
            #expect(results.data[i]?.count == 4)
            #expect(results.data[i]?.allSatisfy { $0 == e } == true)
        }
    }

    @Test func inputWarningsArePrintedOncePerFile() throws {
        let dir = try BatchTempDir()
        defer { dir.remove() }
        try dir.write("pts.csv", "lat,lon\n48.85,2.35\n999,2\n")
        let text = #"{ "defaults": { "input": "pts.csv", "size": "60x40" }, "jobs": [ { "output": "a.png" }, { "output": "b.png" } ] }"#
        let manifest = try BatchManifest.parse(data: Data(text.utf8), name: "jobs.json", baseDirectory: dir.path)
        let events = BatchFixtures.Events()
        _ = BatchRunner.run(manifest) { events.add($0) }
        let warnings = events.all.compactMap { e -> String? in if case .warning(let w) = e { return w } else { return nil } }
        #expect(warnings.count == 1)
        #expect(warnings.first?.contains("skipped 1 row") == true)
    }

    @Test func progressLinesWithoutATerminal() throws {
        final class Text: @unchecked Sendable { var s = "" }
        let out = Text()
        let printer = BatchProgressPrinter(mode: .lines) { out.s += $0 }
        var p = BatchProgress(total: 2, finished: 1, ok: 1, failed: 0, skipped: 0, elapsed: 0.5)
        printer.handle(.started(p))
        printer.handle(.finished(BatchJobReport(index: 0, output: "a.png", status: .ok, milliseconds: 12.4), p))
        p.finished = 2; p.failed = 1
        printer.handle(.finished(BatchJobReport(index: 1, output: "b.png", status: .failed, error: "boom"), p))
        printer.finish(BatchReport(manifest: "m.json", shard: nil, manifestJobs: 2, total: 2, ok: 1, failed: 1, skipped: 0,
                                   workers: 2, milliseconds: 1234, jobs: []))
        #expect(out.s == """
        [1/2] ok jobs[0] a.png (12 ms)
        maprender: error: jobs[1] b.png: boom
        2 jobs: 1 ok, 1 failed, 0 skipped in 1.2 s

        """)
        let bar = Text()
        let barPrinter = BatchProgressPrinter(mode: .bar) { bar.s += $0 }
        barPrinter.handle(.finished(BatchJobReport(index: 0, output: "a.png", status: .ok), p))
        #expect(bar.s.contains("[##############################] 2/2  failed 1  skipped 0  done"))
    }
}

/// zlib's CRC-32 of `data` as lowercase hex, computed by Python (an implementation independent of ours).
func zlibCRC32(_ data: Data) throws -> String {
    let file = FileManager.default.temporaryDirectory.appendingPathComponent("crc-\(UUID()).bin")
    try data.write(to: file); defer { try? FileManager.default.removeItem(at: file) }
    let p = Process()
    p.executableURL = URL(fileURLWithPath: "/usr/bin/env")
    p.arguments = ["python3", "-c", "import sys, zlib; print('%08x' % zlib.crc32(open(sys.argv[1], 'rb').read()))", file.path]
    let out = Pipe()
    p.standardOutput = out
    try p.run()
    let d = out.fileHandleForReading.readDataToEndOfFile()
    p.waitUntilExit()
    return String(decoding: d, as: UTF8.self).trimmingCharacters(in: .whitespacesAndNewlines)
}
