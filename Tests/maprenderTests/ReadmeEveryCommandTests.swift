import Foundation
import Testing
import TestSupport

/// The README as executable documentation: every command of every ```sh block runs as printed.
///
/// README.md is read at test time and cut into sections at its headings. Each command (a line of
/// a ```sh block, continuation lines joined, `#` comment lines left out) is one of:
/// - **run here**, from a scratch folder holding copies of `samples/` and `styles/` (the files a
///   clone ships), with the tested binary first on `PATH` and `HOME` in the scratch folder. A
///   section runs from the top in one folder, so a command may use what an earlier command of
///   its section made, and a ```yaml block whose first line is `# NAME, ...` is saved there as
///   NAME when it comes (the batch manifest). A command fails the test when it exits non-zero;
///   maprender exits 66 when a file it names does not exist.
/// - **a picture command** (`scripts/readme-images --list`): `ReadmeCommandsTests` runs it and
///   compares its picture; it runs here too when its section has other commands to run.
/// - **skipped**, listed in `skipped` below with the reason (the network, the set-up itself, a
///   tool the set-up does not install). A skip entry that matches no command fails the test, so
///   the list cannot go stale.
/// - a **script** (a block starting with `#!`), checked by `ReadmeDeploymentTests`.
/// Any other command fails the test: a new README command is either runnable here or listed.
@Suite struct ReadmeEveryCommandTests {
    /// Commands not run here, by the start of their text, each with the reason.
    static let skipped: [(prefix: String, reason: String)] = [
        ("scripts/setup", "installs Debian packages (sudo) and builds the release binary: the set-up itself"),
        ("scripts/test", "runs the whole test suite, this test included"),
        ("scripts/readme-images", "rewrites docs/images/ with a release build; ReadmeCommandsTests runs it with the tested binary"),
        ("ffmpeg ", "ffmpeg is not installed by scripts/setup (the frames command before it runs here)"),
        ("docker ", "needs the Docker daemon and the network (base images, a registry); ReadmeDeploymentTests checks the Dockerfile"),
        ("maprender serve ", "runs until stopped; ServeReadmeTests starts it as printed (on a free port) and requests the section's URLs"),
        ("curl 'http://127.0.0.1:8080/", "asks the server the command before starts; ServeReadmeTests sends each of these requests"),
        ("python3 -m http.server ", "a web server of marker images that runs until stopped; ServeURLMarkerTests serves the same folder and requests the section's url- marker map"),
    ]

    struct Command: CustomStringConvertible {
        var text: String, line: Int, section: String
        var description: String { "README.md:\(line) (\(section)): \(text)" }
    }
    /// A section's contents in README order: commands, and files its yaml blocks name.
    enum Item { case command(Command), file(name: String, text: String), script(Command) }
    struct Section { var heading: String; var items: [Item] = [] }

    static let readme: String = (try? String(contentsOfFile: TestPaths.repoFile("README.md"), encoding: .utf8)) ?? ""

    /// README.md cut at its headings (outside fenced blocks), with the ```sh commands (continuation
    /// lines joined exactly as scripts/readme-images joins them), yaml files and scripts of each.
    static func sections(of text: String = readme) -> [Section] {
        var sections = [Section(heading: "(top)")]
        var fence: String?       // the language of the open fenced block
        var block: [String] = [], blockStart = 0
        var pending = "", pendingLine = 0
        for (i, line) in text.components(separatedBy: "\n").enumerated() {
            let n = i + 1
            if let language = fence {
                if line.hasPrefix("```") {
                    fence = nil
                    if language == "sh", block.first?.hasPrefix("#!") == true {
                        sections[sections.count - 1].items.append(.script(Command(text: block.joined(separator: "\n"), line: blockStart, section: sections.last!.heading)))
                    } else if language == "yaml", let first = block.first, first.hasPrefix("# ") {
                        let name = String(first.dropFirst(2).prefix { $0 != "," && $0 != " " })
                        sections[sections.count - 1].items.append(.file(name: name, text: block.joined(separator: "\n") + "\n"))
                    }
                    continue
                }
                block.append(line)
                guard language == "sh", block.first?.hasPrefix("#!") != true else { continue }
                if pending.isEmpty { pendingLine = n }
                if line.hasSuffix("\\") { pending += line.dropLast(); continue }
                let command = (pending + line).drop { $0 == " " || $0 == "\t" }
                pending = ""
                if command.isEmpty || command.hasPrefix("#") { continue }
                sections[sections.count - 1].items.append(.command(Command(text: String(command), line: pendingLine, section: sections.last!.heading)))
            } else if line.hasPrefix("```") {
                fence = line.dropFirst(3).trimmingCharacters(in: .whitespaces)
                block = []; blockStart = n + 1
            } else if line.hasPrefix("#") {
                sections.append(Section(heading: line))
            }
        }
        return sections
    }

    static func skipReason(_ command: String) -> String? {
        skipped.first { command.hasPrefix($0.prefix) }?.reason
    }

    struct Run { var status: Int32; var output: String }

    @discardableResult
    static func run(_ executable: String, _ args: [String], in dir: URL? = nil, environment: [String: String]? = nil) throws -> Run {
        let p = Process()
        p.executableURL = URL(fileURLWithPath: executable)
        p.arguments = args
        if let dir { p.currentDirectoryURL = dir }
        if let environment { p.environment = environment }
        let out = Pipe()
        p.standardOutput = out; p.standardError = out
        p.standardInput = FileHandle.nullDevice
        try p.run()
        let data = out.fileHandleForReading.readDataToEndOfFile()
        p.waitUntilExit()
        return Run(status: p.terminationStatus, output: String(decoding: data, as: UTF8.self))
    }

    /// The picture commands, as scripts/readme-images extracts them.
    static func pictureCommands() throws -> Set<String> {
        let r = try run("/usr/bin/env", ["bash", TestPaths.repoFile("scripts/readme-images"), "--list"])
        try #require(r.status == 0, Comment(rawValue: r.output))
        return Set(r.output.split(separator: "\n").map(String.init))
    }

    /// A scratch folder as a clone's root: copies of samples/ and styles/ (copies, not links:
    /// `batch` refuses links leading out of the manifest's folder), `bin/maprender` linking to the
    /// tested binary, and an empty home.
    static func scratch() throws -> (root: URL, work: URL, environment: [String: String]) {
        let fm = FileManager.default
        let root = fm.temporaryDirectory.appendingPathComponent("readme-all-\(UUID())")
        let work = root.appendingPathComponent("work"), bin = root.appendingPathComponent("bin")
        for d in [work, bin, root.appendingPathComponent("home")] { try fm.createDirectory(at: d, withIntermediateDirectories: true) }
        for name in ["samples", "styles"] {
            try fm.copyItem(at: TestPaths.repo.appendingPathComponent(name), to: work.appendingPathComponent(name))
        }
        try fm.createSymbolicLink(at: bin.appendingPathComponent("maprender"), withDestinationURL: CLITests.binary)
        var env = ProcessInfo.processInfo.environment
        env["PATH"] = bin.path + ":" + (env["PATH"] ?? "/usr/bin:/bin")
        env["HOME"] = root.appendingPathComponent("home").path
        return (root, work, env)
    }

    /// Runs one section's items in order in a fresh scratch folder; returns the failures.
    static func runSection(_ section: Section) throws -> [String] {
        let (root, work, env) = try scratch()
        defer { try? FileManager.default.removeItem(at: root) }
        var failures: [String] = []
        for item in section.items {
            switch item {
            case .file(let name, let text):
                try Data(text.utf8).write(to: work.appendingPathComponent(name))
            case .command(let c):
                guard skipReason(c.text) == nil else { continue }
                let r = try run("/bin/bash", ["-e", "-o", "pipefail", "-c", c.text], in: work, environment: env)
                if r.status != 0 {
                    failures.append("\(c) exited \(r.status) (fix the command, or list it in ReadmeEveryCommandTests.skipped with the reason it cannot run in a test):\n\(r.output)")
                }
            case .script:
                continue
            }
        }
        return failures
    }

    @Test func everyShellCommandRunsOrIsListed() throws {
        let sections = Self.sections()
        let pictures = try Self.pictureCommands()
        var commands: [Command] = []
        for s in sections { for case .command(let c) in s.items { commands.append(c) } }
        #expect(commands.count >= 25, "README.md has \(commands.count) commands: the extraction broke")
        // Every skip entry still skips something.
        for entry in Self.skipped {
            #expect(commands.contains { $0.text.hasPrefix(entry.prefix) }, "skip entry '\(entry.prefix)' matches no README command: remove it")
        }
        // A skipped command still names only what exists: a script of the repository is there,
        // executable, and parses (bash -n).
        for c in commands where Self.skipReason(c.text) != nil && c.text.hasPrefix("scripts/") {
            let script = String(c.text.prefix { $0 != " " })
            let path = TestPaths.repoFile(script)
            #expect(FileManager.default.isExecutableFile(atPath: path), "\(c): no executable \(script)")
            let syntax = try Self.run("/bin/bash", ["-n", path])
            #expect(syntax.status == 0, "\(c): \(syntax.output)")
        }
        // Every picture command is one of ours (the two extractions agree).
        #expect(pictures.isSubset(of: Set(commands.map(\.text))), "scripts/readme-images extracts \(pictures.subtracting(commands.map(\.text)))")
        // Sections with a command to run here; a section of picture commands only is
        // ReadmeCommandsTests' (it runs the same commands and compares the pictures).
        let toRun = sections.filter { s in
            s.items.contains { if case .command(let c) = $0 { return Self.skipReason(c.text) == nil && !pictures.contains(c.text) }; return false }
        }
        #expect(!toRun.isEmpty)
        var failures: [String] = []
        for s in toRun { failures += try Self.runSection(s) }
        for f in failures { Issue.record(Comment(rawValue: f)) }
        // What runs where, for the log.
        let ran = toRun.flatMap { s in s.items.compactMap { if case .command(let c) = $0, Self.skipReason(c.text) == nil { return c } else { return nil } } }
        print("README commands: \(commands.count); run here \(ran.count); pictures by ReadmeCommandsTests \(pictures.count); skipped \(commands.filter { Self.skipReason($0.text) != nil }.count)")
    }

    /// A README command that names a missing file fails, and so does one neither runnable nor listed.
    @Test func aCommandThatCannotRunFails() throws {
        let text = """
        # Broken

        ```sh
        maprender samples/no-such-file.csv -o map.png
        curl -sf https://example.invalid/x.csv -o x.csv
        ```

        """
        let sections = Self.sections(of: text)
        let failures = try Self.runSection(try #require(sections.last))
        #expect(failures.count == 2, Comment(rawValue: failures.joined(separator: "\n")))
        #expect(failures.first?.contains("samples/no-such-file.csv") == true)
    }

    @Test func extractionJoinsContinuationsAndSavesNamedYaml() {
        let text = """
        ## A

        ```yaml
        # m.yaml, saved here
        jobs: []
        ```

        ```sh
        # a comment line
        maprender x.csv \\
          -o y.png   # trailing comment
        ```

        """
        let items = Self.sections(of: text).last!.items
        guard items.count == 2, case .file(let name, _) = items[0], case .command(let c) = items[1] else {
            Issue.record("items: \(items)"); return
        }
        #expect(name == "m.yaml")
        #expect(c.text == "maprender x.csv   -o y.png   # trailing comment")
        #expect(c.line == 10)
    }
}
