import Foundation
import Testing
import TestSupport
@testable import MapRender

/// Icon files in a batch: their bytes count in `--skip-unchanged`'s hash, and they are confined to
/// the manifest's folder as the other files are.
@Suite struct BatchIconTests {
    @Test func skipUnchangedSeesIconChangesAndIconsAreConfined() throws {
        let dir = try BatchTempDir()
        defer { dir.remove() }
        let fm = FileManager.default
        try fm.copyItem(atPath: TestPaths.repoFile("samples/icons/pin.svg"), toPath: dir.file("pin.svg"))
        try fm.copyItem(atPath: TestPaths.repoFile("samples/icons/cafe.svg"), toPath: dir.file("cafe.svg"))
        try dir.write("style.json", #"{ "marker": { "icon": "cafe.svg" } }"#)
        let text = """
        { "defaults": { "input": "\(BatchFixtures.cities)", "size": "120x90", "zoom": 1, "center": "20,0", "cluster": false },
          "jobs": [ { "output": "a.png", "marker-icon": "pin.svg" }, { "output": "b.png", "style": "style.json" } ] }
        """
        let manifest = try BatchManifest.parse(data: Data(text.utf8), name: "jobs.json", baseDirectory: dir.path)
        var options = BatchOptions()
        options.skipUnchanged = true
        #expect(BatchRunner.run(manifest, options: options).ok == 2)
        #expect(BatchRunner.run(manifest, options: options).skipped == 2)
        // The icon of job a redrawn (same size, another colour): a renders again, b is skipped.
        let pin = try String(contentsOfFile: dir.file("pin.svg"), encoding: .utf8).replacingOccurrences(of: "#7b2cbf", with: "#2c7bbf")
        try dir.write("pin.svg", pin)
        #expect(BatchRunner.run(try BatchManifest.parse(data: Data(text.utf8), name: "jobs.json", baseDirectory: dir.path),
                                options: options).jobs.map(\.status) == [.ok, .skipped])
        // The style's icon changed: b renders again.
        try dir.write("cafe.svg", try String(contentsOfFile: dir.file("cafe.svg"), encoding: .utf8).replacingOccurrences(of: "#8d5524", with: "#55248d"))
        #expect(BatchRunner.run(try BatchManifest.parse(data: Data(text.utf8), name: "jobs.json", baseDirectory: dir.path),
                                options: options).jobs.map(\.status) == [.skipped, .ok])
        // An icon outside the manifest's folder is refused without --allow-outside-root.
        let outside = """
        { "jobs": [ { "output": "c.png", "input": "\(BatchFixtures.cities)", "marker-icon": "\(TestPaths.repoFile("samples/icons/pin.svg"))" } ] }
        """
        let error = #expect(throws: BatchManifestError.self) {
            try BatchManifest.parse(data: Data(outside.utf8), name: "jobs.json", baseDirectory: dir.path, allowOutsideRoot: false)
        }
        #expect(error?.issues.map(\.message).contains { $0.contains("jobs[0].marker-icon: ") && $0.contains("pin.svg is outside ") } == true,
                "\(error?.issues.map(\.message) ?? [])")
    }
}
