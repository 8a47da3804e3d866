import Foundation
import Testing
import MapRender

/// `maprender batch` run as a process: a failing job among good ones, the report, exit codes.
@Suite struct BatchCLITests {
    let cli = CLITests()

    @Test func failingJobAmongGoodOnes() throws {
        let d = try cli.tempDir(); defer { try? FileManager.default.removeItem(at: d) }
        let manifest = d.appendingPathComponent("jobs.yaml")
        // Exists (so validation passes) but has no coordinate columns: this job fails when it runs.
        try Data("name,height\nA,1\n".utf8).write(to: d.appendingPathComponent("nocoords.csv"))
        try Data("""
        defaults:
          input: \(cli.shared("world_cities_15000.csv"))
          size: 200x150
        jobs:
          - output: fr.png
            filter: ["==", ["get", "country"], "FR"]
          - output: bad.png
            input: nocoords.csv
          - output: jp.svg
            filter: ["==", ["get", "country"], "JP"]
        """.utf8).write(to: manifest)
        let report = d.appendingPathComponent("report.json").path
        let r = try cli.run(["batch", manifest.path, "--report", report, "--jobs", "2"])
        #expect(r.status != 0, "\(r.stderr)")
        #expect(FileManager.default.fileExists(atPath: d.appendingPathComponent("fr.png").path))
        #expect(FileManager.default.fileExists(atPath: d.appendingPathComponent("jp.svg").path))
        #expect(!FileManager.default.fileExists(atPath: d.appendingPathComponent("bad.png").path))
        let json = try JSONSerialization.jsonObject(with: Data(contentsOf: URL(fileURLWithPath: report)))
        let text = String(describing: json)
        #expect(text.contains("failed"))
        #expect(r.stderr.contains("nocoords.csv"))
    }

    // That a manifest takes every option `render` has: OptionsCLITests.cliOptionsMatchTheTable.

    @Test func badManifestIsRejectedBeforeRendering() throws {
        let d = try cli.tempDir(); defer { try? FileManager.default.removeItem(at: d) }
        let manifest = d.appendingPathComponent("jobs.json")
        try Data(#"{"jobs": [{"output": "a.png", "input": "x.csv", "sise": "10x10"}]}"#.utf8).write(to: manifest)
        let r = try cli.run(["batch", manifest.path])
        #expect(r.status == 78 || r.status == 66, "\(r.stderr)")
        #expect(r.stderr.contains("jobs[0].sise"))
        #expect(!FileManager.default.fileExists(atPath: d.appendingPathComponent("a.png").path))
    }
}
