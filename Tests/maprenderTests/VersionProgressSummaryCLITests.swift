import Foundation
import MapRender
import Testing

/// Issue 46's small promises: `--version` names the commit, `animate`'s progress counts from 1,
/// `--summary` names the center's keys.
@Suite struct VersionProgressSummaryCLITests {
    let cli = CLITests()

    @Test func versionNamesTheCommitItWasBuiltFrom() throws {
        let r = try cli.run(["--version"])
        #expect(r.status == 0)
        let line = r.stdout.trimmingCharacters(in: .newlines)
        #expect(line.wholeMatch(of: #/0\.1\.0 \((commit [0-9a-f]{7,40}(\+dirty)?|unknown commit)\)/#) != nil, "\(line)")
        #expect(line.hasPrefix(MapRenderVersion.current + " ("))
        // The stamp scripts/stamp-commit wrote before this build is what the binary says.
        let stamp = CLITests.repo.appendingPathComponent("Sources/CBuildInfo/generated/mr_build_commit.h")
        if let text = try? String(contentsOf: stamp, encoding: .utf8),
           let commit = text.firstMatch(of: #/MR_BUILD_COMMIT "([^"]*)"/#)?.1, !commit.isEmpty {
            #expect(line == "\(MapRenderVersion.current) (commit \(commit))")
        } else {
            #expect(line == "\(MapRenderVersion.current) (unknown commit)")
        }
    }

    @Test func animateProgressCountsFromOne() throws {
        let d = try cli.tempDir(); defer { try? FileManager.default.removeItem(at: d) }
        // Standard error is a pipe: one line per progress step, not the terminal's bar.
        let r = try cli.run(["animate", "samples/tracks.csv", "--frames", "11", "--size", "120x80",
                             "-o", d.appendingPathComponent("frames").path])
        #expect(r.status == 0, "\(r.stderr)")
        let steps = r.stderr.split(separator: "\n").filter { $0.contains("/11 frames") }
        #expect(steps.first?.hasPrefix("maprender: 1/11 frames") == true, "\(r.stderr)")
        #expect(steps.last?.hasPrefix("maprender: 11/11 frames") == true, "\(r.stderr)")
    }

    @Test func summaryCenterNamesLatAndLon() throws {
        let d = try cli.tempDir(); defer { try? FileManager.default.removeItem(at: d) }
        let r = try cli.run(["samples/pacific.csv", "--center", "-18,178", "--zoom", "4", "--size", "200x150",
                             "-o", d.appendingPathComponent("m.png").path, "--summary", "-"])
        #expect(r.status == 0, "\(r.stderr)")
        let json = try JSONSerialization.jsonObject(with: r.stdoutData) as! [String: Any]
        let center = try #require((json["view"] as? [String: Any])?["center"] as? [String: Double])
        #expect(Set(center.keys) == ["lat", "lon"])
        #expect(abs(center["lat"]! - -18) < 1e-6 && abs(center["lon"]! - 178) < 1e-6, "\(center)")
    }
}
