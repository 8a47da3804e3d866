import Foundation
import Testing
import TestSupport
import Yams

/// The README's deployment examples (section "On several machines") name only what exists or what
/// the README says how to build, and run as printed where they can.
@Suite struct ReadmeDeploymentTests {
    typealias Every = ReadmeEveryCommandTests

    /// The fenced blocks of `language` in the README section whose heading is `heading`.
    static func blocks(_ language: String, in heading: String) throws -> [String] {
        let readme = Every.readme
        let start = try #require(readme.range(of: "\n" + heading + "\n"), "README has no \(heading)")
        let rest = readme[start.upperBound...]
        // The section ends at the next heading (of any level) outside a fenced block.
        var section = String(rest)
        var searchFrom = rest.startIndex
        while let r = rest.range(of: "\n#", range: searchFrom..<rest.endIndex) {
            let lineEnd = rest[r.upperBound...].firstIndex(of: "\n") ?? rest.endIndex
            let line = rest[rest.index(after: r.lowerBound)..<lineEnd]
            if line.range(of: #"^#{1,6} "#, options: .regularExpression) != nil {
                // Outside a fence when an even number of fence lines come before it.
                let fences = rest[rest.startIndex..<r.lowerBound].components(separatedBy: "\n```").count - 1
                if fences % 2 == 0 { section = String(rest[rest.startIndex..<r.lowerBound]); break }
            }
            searchFrom = r.upperBound
        }
        var out: [String] = []
        var cursor = section.startIndex
        while let open = section.range(of: "```\(language)\n", range: cursor..<section.endIndex),
              let close = section.range(of: "\n```", range: open.upperBound..<section.endIndex) {
            out.append(String(section[open.upperBound..<close.lowerBound]))
            cursor = close.upperBound
        }
        return out
    }

    static let severalMachines = "#### On several machines"

    /// A scratch clone root holding the batch section's manifest (saved as the README says).
    static func batchFolder() throws -> (root: URL, work: URL, environment: [String: String]) {
        let s = try Every.scratch()
        let manifest = try #require(try blocks("yaml", in: "### Many maps from one manifest: `maprender batch`").first)
        #expect(manifest.hasPrefix("# maps.yaml"))
        try Data(manifest.utf8).write(to: s.work.appendingPathComponent("maps.yaml"))
        return s
    }

    // MARK: Slurm

    @Test func slurmScriptIsBashAndRunsAsAnArrayTask() throws {
        let script = try #require(try Self.blocks("sh", in: Self.severalMachines).first { $0.hasPrefix("#!") },
                                  "no Slurm script in \(Self.severalMachines)")
        #expect(script.contains("#SBATCH --array=0-7"))
        let (root, work, env) = try Self.batchFolder()
        defer { try? FileManager.default.removeItem(at: root) }
        let path = work.appendingPathComponent("maps.sh")   // the name the README gives it
        try Data(script.utf8).write(to: path)
        let syntax = try Every.run("/bin/bash", ["-n", path.path])
        #expect(syntax.status == 0, Comment(rawValue: syntax.output))
        // What Slurm sets for task 0 of --array=0-7 with --cpus-per-task=4.
        var slurm = env
        for (k, v) in ["SLURM_ARRAY_TASK_ID": "0", "SLURM_ARRAY_TASK_MIN": "0", "SLURM_ARRAY_TASK_MAX": "7",
                       "SLURM_ARRAY_TASK_STEP": "1", "SLURM_ARRAY_TASK_COUNT": "8", "SLURM_CPUS_PER_TASK": "4"] { slurm[k] = v }
        let r = try Every.run("/bin/bash", [path.path], in: work, environment: slurm)
        #expect(r.status == 0, Comment(rawValue: r.output))
        // Shard 0 of 8 renders the first job (out/fr.png) alone.
        let report = try Data(contentsOf: work.appendingPathComponent("report-0.json"))
        let text = String(decoding: report, as: UTF8.self)
        #expect(text.contains("out/fr.png") && !text.contains("out/de.svg"), Comment(rawValue: text))
        #expect(FileManager.default.fileExists(atPath: work.appendingPathComponent("out/fr.png").path))
    }

    // MARK: Kubernetes and the image

    /// The `docker build -t IMAGE .` tag the README gives.
    static func builtImage() throws -> String {
        let commands = try blocks("sh", in: severalMachines).flatMap { $0.split(separator: "\n") }
        let build = try #require(commands.first { $0.hasPrefix("docker build ") }, "the README does not say how to build the image")
        let words = build.split(separator: " ").map(String.init)
        let t = try #require(words.firstIndex(of: "-t"))
        #expect(words.last == ".", "the image is built from the repository's root (its Dockerfile)")
        return words[t + 1]
    }

    /// A YAML mapping as Yams constructs it ([AnyHashable: Any]) with its string keys.
    static func mapping(_ value: Any?) -> [String: Any]? {
        guard let m = value as? [AnyHashable: Any] else { return nil }
        var out: [String: Any] = [:]
        for (k, v) in m { if let k = k.base as? String { out[k] = v } }
        return out
    }

    @Test func kubernetesJobParsesNamesTheBuiltImageAndItsCommandRuns() throws {
        let yaml = try #require(try Self.blocks("yaml", in: Self.severalMachines).first, "no Kubernetes manifest")
        let job = try #require(Self.mapping(try Yams.load(yaml: yaml)), "the manifest is not a YAML mapping")
        #expect(job["apiVersion"] as? String == "batch/v1")
        #expect(job["kind"] as? String == "Job")
        let spec = try #require(Self.mapping(job["spec"]))
        #expect(spec["completionMode"] as? String == "Indexed")
        let completions = try #require(spec["completions"] as? Int)
        let pod = try #require(Self.mapping(Self.mapping(spec["template"])?["spec"]))
        let containers = try #require(pod["containers"] as? [Any]).compactMap(Self.mapping)
        try #require(containers.count == 1)
        let container = containers[0]
        #expect(container["image"] as? String == (try Self.builtImage()), "the Job's image is not the one the README builds")
        let command = try #require(container["command"] as? [String])
        #expect(command.first == "maprender")
        let shardCount = command.firstIndex(of: "--shard-count").map { command[$0 + 1] }
        #expect(shardCount == String(completions), "--shard-count must be the Job's completions")
        // The volume mounted at /data, and the command run as the pod of index 0 would run it:
        // /data is the scratch folder, $(JOB_COMPLETION_INDEX) expanded as Kubernetes does.
        let mounts = try #require(container["volumeMounts"] as? [Any]).compactMap(Self.mapping)
        #expect(mounts.contains { $0["mountPath"] as? String == "/data" })
        let (root, work, env) = try Self.batchFolder()
        defer { try? FileManager.default.removeItem(at: root) }
        var podEnv = env
        podEnv["JOB_COMPLETION_INDEX"] = "0"
        let args = command.dropFirst().map {
            $0.replacingOccurrences(of: "/data/", with: work.path + "/")
              .replacingOccurrences(of: "$(JOB_COMPLETION_INDEX)", with: "0")
        }
        let r = try Every.run(CLITests.binary.path, Array(args), in: work, environment: podEnv)
        #expect(r.status == 0, Comment(rawValue: r.output))
        #expect(FileManager.default.fileExists(atPath: work.appendingPathComponent("report-0.json").path))
    }

    @Test func dockerfileCopiesOnlyTrackedFilesAndBuildsThePortableBinary() throws {
        let text = try String(contentsOfFile: TestPaths.repoFile("Dockerfile"), encoding: .utf8)
        let lines = text.split(separator: "\n").map { $0.trimmingCharacters(in: .whitespaces) }.filter { !$0.hasPrefix("#") }
        #expect(lines.contains { $0.hasPrefix("FROM ") && $0.contains(" AS build") })
        #expect(text.contains("swift build -c release --static-swift-stdlib --product maprender"))
        // Every COPY from the build context names files that a clone has (tracked by git).
        let copies = lines.filter { $0.hasPrefix("COPY ") && !$0.contains("--from=") }
        #expect(copies.count >= 2)
        for copy in copies {
            let words = copy.split(separator: " ").dropFirst().map(String.init)
            for source in words.dropLast() {
                let tracked = try Every.run("/usr/bin/env", ["git", "-C", TestPaths.repo.path, "ls-files", "--", source])
                let exists = FileManager.default.fileExists(atPath: TestPaths.repoFile(source))
                #expect(exists && (tracked.status != 0 || !tracked.output.isEmpty), "Dockerfile: \(copy): \(source) is not in a clone")
            }
        }
        // The run stage puts the build stage's binary on the PATH, and nothing of the toolchain.
        let runStage = try #require(text.components(separatedBy: "\nFROM ").last)
        #expect(runStage.hasPrefix("debian:"))
        #expect(runStage.contains("COPY --from=build /maprender /usr/local/bin/maprender"))
        #expect(!runStage.contains("swift"))
        // The fonts maprender pins, as the set-up installs them.
        for font in ["fonts-dejavu-core", "fonts-droid-fallback", "fonts-wqy-zenhei", "fonts-lohit-deva"] {
            #expect(runStage.contains(font), "the image lacks \(font)")
        }
    }

    /// The packages the Dockerfile's run stage installs (its apt-get install line).
    static func runStagePackages() throws -> [String] {
        let text = try String(contentsOfFile: TestPaths.repoFile("Dockerfile"), encoding: .utf8)
        let runStage = try #require(text.components(separatedBy: "\nFROM ").last)
        let joined = runStage.replacingOccurrences(of: "\\\n", with: " ")
        let install = try #require(joined.range(of: "--no-install-recommends"))
        let rest = joined[install.upperBound...]
        let end = rest.range(of: "&&")?.lowerBound ?? rest.endIndex
        return rest[..<end].split(whereSeparator: { $0 == " " || $0 == "\n" }).map(String.init)
    }

    static var canAskDpkg: Bool {
        PortableBinaryTests.hasReleaseBinary && FileManager.default.isExecutableFile(atPath: "/usr/bin/dpkg")
            && FileManager.default.isExecutableFile(atPath: "/usr/bin/apt-cache")
    }

    /// Every library the release binary needs (readelf's NEEDED) comes, on this Debian machine, from
    /// a package that the image's run stage installs or that one of them depends on.
    @Test(.enabled(if: ReadmeDeploymentTests.canAskDpkg, "needs the release binary (scripts/setup) and dpkg"))
    func imageInstallsTheLibrariesTheBinaryLinks() throws {
        let packages = try Self.runStagePackages()
        #expect(packages.contains("libcairo2") && packages.contains("fonts-dejavu-core"), "\(packages)")
        let deps = try Every.run("/usr/bin/apt-cache", ["depends", "--recurse", "--no-recommends", "--no-suggests",
                                                       "--no-conflicts", "--no-breaks", "--no-replaces", "--no-enhances"] + packages)
        try #require(deps.status == 0, Comment(rawValue: deps.output))
        let installed = Set(deps.output.split(separator: "\n").filter { !$0.hasPrefix(" ") }.map { String($0.split(separator: ":")[0]) })
        let needed = try Every.run("/bin/bash", ["-c", "readelf -d \"$0\" | sed -n 's/.*(NEEDED).*\\[\\(.*\\)\\]/\\1/p'", PortableBinaryTests.releaseBinary])
        try #require(needed.status == 0, Comment(rawValue: needed.output))
        let libraries = needed.output.split(separator: "\n").map(String.init)
        #expect(libraries.contains("libcairo.so.2"), "\(libraries)")
        for library in libraries {
            let owner = try Every.run("/usr/bin/dpkg", ["-S", "*/" + library])
            guard owner.status == 0, let first = owner.output.split(separator: "\n").first else {
                Issue.record("no package holds \(library): \(owner.output)"); continue
            }
            let names = first.split(separator: ":")[0].split(separator: ",").map { $0.trimmingCharacters(in: .whitespaces) }
            #expect(names.contains { installed.contains($0) }, "the image does not install \(library) (\(names.joined(separator: ", "))): add it to the Dockerfile's run stage")
        }
    }
}
