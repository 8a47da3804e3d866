import Foundation
import MapRender
import Testing
import TestSupport

/// The README's pictures come from the README's own commands (scripts/readme-images).
///
/// The test runs every picture command of README.md exactly as printed, with the binary under test,
/// through the script (the same extraction that regenerates docs/images/), and checks that
/// - each command runs (exit 0) and so names only files that exist (a missing input exits 66);
/// - every picture the README shows has a command;
/// - each committed picture is what its command makes now (the project's image comparison,
///   anti-aliased pixels forgiven, at most 0.1% of pixels differing). After a change that alters
///   the pictures, run `scripts/readme-images` and look at them.
/// Archived pictures (an earlier version's "before", listed in `<!-- archived pictures ... -->`)
/// must exist and are not compared.
@Suite struct ReadmeCommandsTests {
    struct Run { var status: Int32; var output: String }

    func script(_ args: [String]) throws -> Run {
        let p = Process()
        p.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        p.arguments = ["bash", TestPaths.repoFile("scripts/readme-images"), "--binary", CLITests.binary.path] + args
        let out = Pipe()
        p.standardOutput = out; p.standardError = out
        try p.run()
        let data = out.fileHandleForReading.readDataToEndOfFile()
        p.waitUntilExit()
        return Run(status: p.terminationStatus, output: String(decoding: data, as: UTF8.self))
    }

    func tempDir() throws -> URL {
        let d = FileManager.default.temporaryDirectory.appendingPathComponent("readme-\(UUID())")
        try FileManager.default.createDirectory(at: d, withIntermediateDirectories: true)
        return d
    }

    @Test func everyPictureIsWhatItsCommandMakes() throws {
        let out = try tempDir(); defer { try? FileManager.default.removeItem(at: out) }
        let r = try script(["--out", out.path])
        try #require(r.status == 0, Comment(rawValue: r.output))
        let readme = try String(contentsOfFile: TestPaths.repoFile("README.md"), encoding: .utf8)
        let pattern = try NSRegularExpression(pattern: #"\]\(docs/images/([^)]+)\)"#)
        let ns = readme as NSString
        let archivedRun = try script(["--list-archived"])
        try #require(archivedRun.status == 0, Comment(rawValue: archivedRun.output))
        let archived = Set(archivedRun.output.split(separator: "\n").map(String.init))
        for name in archived {
            #expect(FileManager.default.fileExists(atPath: TestPaths.repoFile("docs/images/\(name)")), "archived \(name) missing")
        }
        let shown = Set(pattern.matches(in: readme, range: NSRange(location: 0, length: ns.length))
            .map { ns.substring(with: $0.range(at: 1)) }).subtracting(archived)
        #expect(shown.count >= 10)
        for name in shown.sorted() {
            let made = out.appendingPathComponent(name).path
            #expect(FileManager.default.fileExists(atPath: made), "no command made \(name)")
            let committed = TestPaths.repoFile("docs/images/\(name)")
            let total = try PNGSize.pixels(committed)
            let c = try ImageComparison.compare(expected: committed, actual: made, maxDifferent: total / 1000)
            #expect(c.equal, Comment(rawValue: "docs/images/\(name) is not what its README command makes (\(c.message)): run scripts/readme-images"))
        }
    }

    /// Runs scripts/readme-images on a README of `text` in a fresh folder, expects it to fail
    /// and returns what it printed.
    func outputOfFailingRun(readme text: String) throws -> String {
        let dir = try tempDir(); defer { try? FileManager.default.removeItem(at: dir) }
        let md = dir.appendingPathComponent("README.md")
        try Data(text.utf8).write(to: md)
        let r = try script(["--readme", md.path, "--out", dir.path])
        #expect(r.status != 0, Comment(rawValue: r.output))
        return r.output
    }

    @Test func aCommandNamingAMissingFileFails() throws {
        let output = try outputOfFailingRun(readme: """
        ```sh
        maprender samples/no-such-file.csv --label name -o quickstart.png
        ```
        ![Broken](docs/images/quickstart.png)

        """)
        #expect(output.contains("samples/no-such-file.csv"), Comment(rawValue: output))
        #expect(output.contains("this README command failed"), Comment(rawValue: output))
    }

    /// A README whose one command makes spread.png, with `pictures` after it: a picture no command
    /// makes, or an archived picture that does not exist, fails the script with `expected`.
    @Test(arguments: [
        ("![Spread](docs/images/spread.png) and ![Old](docs/images/no-such-before.png)\n<!-- archived pictures (an earlier version): no-such-before.png -->",
         "archived picture docs/images/no-such-before.png does not exist"),
        ("![Spread](docs/images/spread.png) and ![Orphan](docs/images/orphan.png)", "orphan.png"),
    ])
    func aPictureWithoutItsFileOrCommandFails(pictures: String, expected: String) throws {
        let output = try outputOfFailingRun(readme: """
        ```sh
        maprender samples/mall.csv --size 200x100 -o spread.png
        ```
        \(pictures)

        """)
        #expect(output.contains(expected), Comment(rawValue: output))
    }
}

/// Width × height from a PNG's IHDR chunk.
enum PNGSize {
    static func pixels(_ path: String) throws -> Int {
        let d = try Data(contentsOf: URL(fileURLWithPath: path))
        guard d.count >= 24 else { return 0 }
        let be = { (o: Int) in d[o..<(o + 4)].reduce(0) { $0 << 8 | Int($1) } }
        return be(16) * be(20)
    }
}
