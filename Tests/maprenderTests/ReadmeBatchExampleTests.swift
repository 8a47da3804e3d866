import Foundation
import Testing
import TestSupport

/// The README's batch example runs as printed: its manifest, saved where it says (the repository's
/// root, here a scratch folder holding a copy of samples/), and its command.
@Suite struct ReadmeBatchExampleTests {
    let cli = CLITests()

    /// The first fenced block of `language` after `heading` in README.md.
    func block(after heading: String, language: String) throws -> String {
        let readme = try String(contentsOfFile: TestPaths.repoFile("README.md"), encoding: .utf8)
        let start = try #require(readme.range(of: heading), "README has no \(heading)")
        let open = try #require(readme.range(of: "```\(language)\n", range: start.upperBound..<readme.endIndex))
        let close = try #require(readme.range(of: "\n```", range: open.upperBound..<readme.endIndex))
        return String(readme[open.upperBound..<close.lowerBound])
    }

    @Test func batchExampleRunsAsPrinted() throws {
        let heading = "### Many maps from one manifest"
        let manifest = try block(after: heading, language: "yaml")
        let command = try block(after: heading, language: "sh")
        let d = try cli.tempDir(); defer { try? FileManager.default.removeItem(at: d) }
        // A copy, not a link: batch refuses files outside the manifest's folder, links resolved.
        try FileManager.default.copyItem(at: CLITests.repo.appendingPathComponent("samples"), to: d.appendingPathComponent("samples"))
        try Data(manifest.utf8).write(to: d.appendingPathComponent("maps.yaml"))
        // `maprender batch maps.yaml --report report.json   # comment`
        let words = command.split(separator: "#")[0].split(separator: " ").map(String.init)
        try #require(words.first == "maprender" && words.contains("maps.yaml"), "\(command)")
        let p = Process()
        p.executableURL = CLITests.binary
        p.arguments = Array(words.dropFirst())
        p.currentDirectoryURL = d
        let err = Pipe()
        p.standardError = err
        p.standardOutput = FileHandle.nullDevice
        try p.run()
        let stderr = String(decoding: err.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        p.waitUntilExit()
        #expect(p.terminationStatus == 0, "\(stderr)")
        // Every output the manifest names is written.
        let outputs = manifest.split(separator: "\n").compactMap { line -> String? in
            guard let r = line.range(of: "- output: ") else { return nil }
            return String(line[r.upperBound...]).trimmingCharacters(in: .whitespaces)
        }
        #expect(outputs.count >= 3)
        for o in outputs {
            #expect(FileManager.default.fileExists(atPath: d.appendingPathComponent(o).path), "\(o) not written")
        }
        #expect(FileManager.default.fileExists(atPath: d.appendingPathComponent("report.json").path))
    }
}
