import Foundation
import MapRenderCore

/// How `BatchRunner` runs a manifest.
public struct BatchOptions: Sendable {
    /// Jobs rendered at once, each on its own thread.
    public var workers = ProcessInfo.processInfo.activeProcessorCount
    /// Skip a job whose output exists and whose hash (options, input, basemap and style bytes)
    /// equals the one recorded beside the output, in `.<output name>.maprender-hash`.
    /// With this on, the hash file is written after each successful render.
    public var skipUnchanged = false
    /// Render only this shard's jobs; nil renders them all.
    public var shard: BatchShard?
    /// Write a job's map even when its filter leaves no point (`--allow-empty`); off, such a job
    /// fails and its previous output stays.
    public var allowEmpty = false
    /// Reads one point file. Every distinct (file, input options) is read once per run through it;
    /// tests replace it to count reads.
    public var readPoints: @Sendable (_ path: String, _ options: InputOptions) throws -> LoadedPoints = {
        try PointReader.read(path: $0, options: $1)
    }

    public init() {}
}

/// One of N deterministic parts of a manifest, for running a batch on several machines.
///
/// The shard index is **0-based**: shard `i` of `n` renders the jobs whose manifest index `k`
/// (from 0) has `k % n == i`. So `n` machines with `i = 0..<n` render every job exactly once.
public struct BatchShard: Sendable, Equatable, CustomStringConvertible {
    public let index: Int
    public let count: Int

    public init(index: Int, count: Int) throws {
        guard count >= 1 else { throw MapRenderError(.usage, "the shard count must be at least 1, got \(count)") }
        guard (0..<count).contains(index) else {
            throw MapRenderError(.usage, "the shard index must be in 0...\(count - 1) (it counts from 0), got \(index)")
        }
        self.index = index
        self.count = count
    }

    /// `I/N`, as `--shard` takes it.
    public var description: String { "\(index)/\(count)" }

    public func contains(jobIndex k: Int) -> Bool { k % count == index }

    /// Parses `I/N` (`--shard 0/4` … `--shard 3/4`).
    public static func parse(_ text: String) throws -> BatchShard {
        let parts = text.split(separator: "/", omittingEmptySubsequences: false)
        guard parts.count == 2, let i = Int(parts[0].trimmingCharacters(in: .whitespaces)),
              let n = Int(parts[1].trimmingCharacters(in: .whitespaces)) else {
            throw MapRenderError(.usage, "--shard must be I/N with 0 <= I < N (I counts from 0), got '\(text)'")
        }
        return try BatchShard(index: i, count: n)
    }

    /// The shard to run, by this rule (first match wins):
    ///
    /// 1. `--shard I/N` (`argument`), 0-based `I`.
    /// 2. Kubernetes Indexed Job: `JOB_COMPLETION_INDEX` (0-based) is the index; the count is
    ///    `--shard-count` (`count`), which should equal the Job's `completions`.
    /// 3. Slurm job array: the index is `(SLURM_ARRAY_TASK_ID - SLURM_ARRAY_TASK_MIN) / SLURM_ARRAY_TASK_STEP`
    ///    (MIN 0 and STEP 1 when unset), so `--array=0-3` and `--array=1-4` both give 0…3; the count
    ///    is `--shard-count`, else `SLURM_ARRAY_TASK_COUNT`.
    /// 4. Otherwise no shard: every job.
    ///
    /// `--shard-count` without an index is an error, and so is an index whose count is unknown.
    public static func resolve(argument: String?, count: Int?, environment: [String: String]) throws -> BatchShard? {
        if let a = argument {
            let s = try parse(a)
            if let c = count, c != s.count {
                throw MapRenderError(.usage, "--shard \(a) and --shard-count \(c) disagree")
            }
            return s
        }
        func int(_ name: String) throws -> Int? {
            guard let text = environment[name], !text.isEmpty else { return nil }
            guard let v = Int(text.trimmingCharacters(in: .whitespaces)) else {
                throw MapRenderError(.usage, "\(name) must be a whole number, got '\(text)'")
            }
            return v
        }
        if let i = try int("JOB_COMPLETION_INDEX") {
            guard let n = count else {
                throw MapRenderError(.usage, "JOB_COMPLETION_INDEX is \(i) but the number of shards is unknown: "
                                     + "pass --shard-count with the Job's completions")
            }
            return try BatchShard(index: i, count: n)
        }
        if let id = try int("SLURM_ARRAY_TASK_ID") {
            let min = try int("SLURM_ARRAY_TASK_MIN") ?? 0
            let step = max(try int("SLURM_ARRAY_TASK_STEP") ?? 1, 1)
            guard let n = try count ?? int("SLURM_ARRAY_TASK_COUNT") else {
                throw MapRenderError(.usage, "SLURM_ARRAY_TASK_ID is \(id) but the number of shards is unknown: "
                                     + "pass --shard-count or run in a job array")
            }
            guard id >= min, (id - min) % step == 0 else {
                throw MapRenderError(.usage, "SLURM_ARRAY_TASK_ID \(id) is not in an evenly spaced array from \(min) "
                                     + "by \(step): use --shard I/N")
            }
            return try BatchShard(index: (id - min) / step, count: n)
        }
        if let n = count {
            throw MapRenderError(.usage, "--shard-count \(n) needs a shard index: --shard I/N, JOB_COMPLETION_INDEX or SLURM_ARRAY_TASK_ID")
        }
        return nil
    }
}
