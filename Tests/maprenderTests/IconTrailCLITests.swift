import Foundation
import Testing

/// `--marker-icon` and `animate --trail` through the real binary: the pictures they make, and
/// their bad input as exit codes with messages naming the file or the value.
@Suite struct IconTrailCLITests {
    let cli = CLITests()

    @Test func markerIconDrawsAndBadIconsExitNamingTheFile() throws {
        let d = try cli.tempDir(); defer { try? FileManager.default.removeItem(at: d) }
        let out = d.appendingPathComponent("icons.svg").path
        let ok = try cli.run(["samples/icons/places.csv", "--marker-icon", "samples/icons/cafe.svg", "--no-cluster", "-o", out])
        #expect(ok.status == 0, "\(ok.stderr)")
        let svg = try String(contentsOfFile: out, encoding: .utf8)
        #expect(svg.contains("<path"))
        let notes = d.appendingPathComponent("notes.png").path
        try "just text\n".write(toFile: notes, atomically: true, encoding: .utf8)
        let bad = try cli.run(["samples/icons/places.csv", "--marker-icon", notes, "-o", d.appendingPathComponent("x.png").path])
        #expect(bad.status == 65 && bad.stderr.contains("icon \(notes) is not an image"), "\(bad.status) \(bad.stderr)")
        let missing = d.appendingPathComponent("missing.svg").path
        let gone = try cli.run(["samples/icons/places.csv", "--marker-icon", missing, "-o", d.appendingPathComponent("x.png").path])
        #expect(gone.status == 66 && gone.stderr.contains(missing), "\(gone.status) \(gone.stderr)")
        #expect(!FileManager.default.fileExists(atPath: d.appendingPathComponent("x.png").path))
    }

    @Test func trailNeedsADuration() throws {
        let d = try cli.tempDir(); defer { try? FileManager.default.removeItem(at: d) }
        let r = try cli.run(["animate", "samples/tracks.csv", "--frames", "4", "--trail", "soon", "-q", "-o", d.appendingPathComponent("f").path])
        #expect(r.status == 64 && r.stderr.contains("--trail must look like 1.5s"), "\(r.status) \(r.stderr)")
        let ok = try cli.run(["animate", "samples/tracks.csv", "--frames", "4", "--size", "200x120", "--trail", "0.5s", "-q",
                              "-o", d.appendingPathComponent("f").path])
        #expect(ok.status == 0, "\(ok.stderr)")
        #expect(FileManager.default.fileExists(atPath: d.appendingPathComponent("f/frame-00004.png").path))
    }
}
