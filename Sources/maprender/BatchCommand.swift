import ArgumentParser
import Foundation
import MapRender

struct Batch: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "batch",
        abstract: "Render many maps from one JSON or YAML manifest, in parallel.",
        discussion: """
        The manifest has shared `defaults` and a list of `jobs`; each job has an `output` and any \
        `render` option by its long name (input, style, size, bbox, label, cluster-radius, ...), \
        `cluster: false` for --no-cluster, and a `filter` that selects points of a shared input:
          defaults: { input: cities.csv, basemap: countries.geojson, size: 800x600 }
          jobs:
            - { output: out/fr.png, filter: ["==", ["get", "country"], "FR"] }
            - { output: out/de.png, filter: 'country == "DE"', label: name }
        Paths are relative to the manifest. Every key and value is checked before anything renders. \
        Each input file is read once for all jobs.

        Shards (0-based): --shard I/N renders the jobs k with k % N == I. Without --shard, the index \
        comes from JOB_COMPLETION_INDEX (Kubernetes Indexed Job; give --shard-count = completions) or \
        from (SLURM_ARRAY_TASK_ID - SLURM_ARRAY_TASK_MIN) / SLURM_ARRAY_TASK_STEP with the count \
        SLURM_ARRAY_TASK_COUNT (Slurm job array).

        Exit codes: 0 every job rendered or skipped; 1 some jobs failed (the others were written); \
        64 bad option or option value; 66 manifest or a file it names not readable; 73 --report not writable; 78 bad manifest or style.
        """
    )

    @Argument(help: ArgumentHelp("The manifest: JSON or YAML.", valueName: "manifest"))
    var manifest: String

    @Option(name: [.customShort("j"), .customLong("jobs")], help: ArgumentHelp("Maps rendered at once (default: the number of cores).", valueName: "n"))
    var workers: Int?

    @Option(help: ArgumentHelp("Write a JSON report of every job (status, output, points drawn, clusters, time, error) to a file or '-'.", valueName: "file"))
    var report: String?

    @Flag(name: .customLong("skip-unchanged"), help: "Skip jobs whose options, inputs, basemaps and style are unchanged since their output was written (hash kept in .<output>.maprender-hash).")
    var skipUnchanged = false

    @Option(help: ArgumentHelp("Render only shard I of N (I counts from 0): the jobs k with k % N == I.", valueName: "I/N"))
    var shard: String?

    @Option(name: .customLong("shard-count"), help: ArgumentHelp("Number of shards when the index comes from JOB_COMPLETION_INDEX or SLURM_ARRAY_TASK_ID.", valueName: "n"))
    var shardCount: Int?

    @Option(help: ArgumentHelp("Folder every path of the manifest must lie in (default: the manifest's folder).", valueName: "dir"))
    var root: String?

    @Flag(name: .customLong("allow-outside-root"), help: "Allow manifest paths outside the root folder (absolute paths, '..', links leading out).")
    var allowOutsideRoot = false

    @Flag(name: .customLong("allow-empty"), help: "Write a job's map even when its filter leaves no point (default: the job fails, its old output stays).")
    var allowEmpty = false

    @Flag(name: .shortAndLong, help: "Print only failures and warnings, no progress.")
    var quiet = false

    func validate() throws {
        if let n = workers, n < 1 { throw ValidationError("--jobs must be at least 1, got \(n)") }
        if let s = shard {
            do { _ = try BatchShard.parse(s) } catch let e as MapRenderError { throw ValidationError(e.message) }
        }
        if let n = shardCount, n < 1 { throw ValidationError("--shard-count must be at least 1, got \(n)") }
    }

    func run() throws {
        try runReportingErrors {
            // An unwritable report is found before any job runs, not after all of them.
            if let r = report { try OutputDestination.check(r) }
            var options = BatchOptions()
            if let n = workers { options.workers = n }
            options.skipUnchanged = skipUnchanged
            options.shard = try BatchShard.resolve(argument: shard, count: shardCount,
                                                   environment: ProcessInfo.processInfo.environment)
            let jobs: BatchManifest
            do {
                jobs = try BatchManifest.load(path: manifest, root: root, allowOutsideRoot: allowOutsideRoot)
            } catch let e as BatchManifestError {
                e.issues.forEach { printError("maprender: error: \($0.message)") }
                throw ExitCode(e.exitCode)
            }
            options.allowEmpty = allowEmpty
            var outputs: [OutputSafety.Named] = jobs.jobs.map { ("jobs[\($0.index)].output", $0.output) }
            if let r = report { outputs.append(("--report", r)) }
            var inputs: [OutputSafety.Named] = [("manifest", manifest)]
            for job in jobs.jobs {
                let of = " of jobs[\(job.index)]"
                inputs += job.request.inputs.map { ("input" + of, $0) }
                inputs += job.request.basemaps.map { ("basemap" + of, $0) }
                if let s = job.styleFile { inputs.append(("style" + of, s)) }
            }
            try OutputSafety.check(outputs: outputs, inputs: inputs)
            // The report names a whole set: an earlier run's is removed before the first map is
            // replaced, and this run's is written once every job has ended.
            if let r = report, r != "-" { AtomicFile.removeRegularFile(r) }
            let printer = BatchProgressPrinter(mode: quiet ? .quiet : .automatic)
            let result = BatchRunner.run(jobs, options: options, progress: { printer.handle($0) })
            printer.finish(result)
            if let r = report { try AtomicFile.write(try jsonText(result), to: r) }
            if !result.succeeded { throw ExitCode(1) }
        }
    }
}
