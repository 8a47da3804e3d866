import Foundation

/// What happened to one job, written by `--report` as JSON.
public struct BatchJobReport: Sendable, Codable, Equatable {
    public enum Status: String, Sendable, Codable { case ok, failed, skipped }

    /// The job's position in the manifest's `jobs` list, from 0.
    public var index: Int
    public var output: String
    public var status: Status
    /// Points left after the filter (0 when skipped or failed before reading).
    public var points: Int
    /// Markers drawn (points drawn alone, spread pins included).
    public var pointsDrawn: Int
    /// Cluster bubbles drawn.
    public var clusters: Int
    /// Labels left out for lack of room.
    public var labelsDropped: Int
    /// Wall time of the job, waiting for a shared input included.
    public var milliseconds: Double
    /// Why it failed; nil otherwise.
    public var error: String?
    /// Warnings such as "no points to draw".
    public var warnings: [String]
    /// The CRC-32 of the bytes written (lowercase hex), so a reader can tell this run's map from
    /// another run's; nil when nothing was written.
    public var crc32: String?

    public init(index: Int, output: String, status: Status, points: Int = 0, pointsDrawn: Int = 0, clusters: Int = 0,
                labelsDropped: Int = 0, milliseconds: Double = 0, error: String? = nil, warnings: [String] = []) {
        self.index = index; self.output = output; self.status = status; self.points = points
        self.pointsDrawn = pointsDrawn; self.clusters = clusters; self.labelsDropped = labelsDropped
        self.milliseconds = milliseconds; self.error = error; self.warnings = warnings
    }

    enum CodingKeys: String, CodingKey {
        case index, output, status, points, pointsDrawn, clusters, labelsDropped, milliseconds, error, warnings, crc32
    }

    /// `error` is always present (null when the job did not fail), so every entry has the same keys.
    public func encode(to encoder: Encoder) throws {
        var c = encoder.container(keyedBy: CodingKeys.self)
        try c.encode(index, forKey: .index)
        try c.encode(output, forKey: .output)
        try c.encode(status, forKey: .status)
        try c.encode(points, forKey: .points)
        try c.encode(pointsDrawn, forKey: .pointsDrawn)
        try c.encode(clusters, forKey: .clusters)
        try c.encode(labelsDropped, forKey: .labelsDropped)
        try c.encode((milliseconds * 10).rounded() / 10, forKey: .milliseconds)
        if let e = error { try c.encode(e, forKey: .error) } else { try c.encodeNil(forKey: .error) }
        try c.encode(warnings, forKey: .warnings)
        if let v = crc32 { try c.encode(v, forKey: .crc32) } else { try c.encodeNil(forKey: .crc32) }
    }
}

/// The outcome of a run: one entry per job of the shard, in manifest order.
public struct BatchReport: Sendable, Codable {
    public var manifest: String
    /// `I/N` when one shard ran.
    public var shard: String?
    /// Jobs in the manifest, and jobs of this run (the shard's).
    public var manifestJobs: Int
    public var total: Int
    public var ok: Int
    public var failed: Int
    public var skipped: Int
    public var workers: Int
    public var milliseconds: Double
    public var jobs: [BatchJobReport]

    /// True when no job failed.
    public var succeeded: Bool { failed == 0 }
}

/// Counts so far, given with each event.
public struct BatchProgress: Sendable {
    public var total: Int
    public var finished: Int
    public var ok: Int
    public var failed: Int
    public var skipped: Int
    /// Seconds since the run started.
    public var elapsed: Double

    /// Seconds left, guessed from the average time per finished job; nil before the first.
    public var estimatedRemaining: Double? {
        guard finished > 0 else { return nil }
        return elapsed / Double(finished) * Double(total - finished)
    }
}

/// What `BatchRunner.run` tells its progress handler, one event at a time.
public enum BatchEvent: Sendable {
    /// Before the first job.
    case started(BatchProgress)
    /// A warning about a shared input (skipped rows), once per input file.
    case warning(String)
    /// A job is done, skipped or failed.
    case finished(BatchJobReport, BatchProgress)
}
