import Foundation
import MapRenderCore

/// Renders the jobs of a `BatchManifest` on a pool of threads.
///
/// ```swift
/// let manifest = try BatchManifest.load(path: "maps.yaml")
/// var options = BatchOptions()
/// options.workers = 4
/// let report = BatchRunner.run(manifest, options: options) { event in
///     if case .finished(let job, _) = event, job.status == .failed { print(job.output, job.error ?? "") }
/// }
/// exit(report.succeeded ? 0 : 1)
/// ```
///
/// - Each distinct input file (with its input options) is read once, keeping the union of the
///   properties its jobs need, shared read-only by those jobs, and dropped when the last is done.
///   Each job's filter selects its points, which go to `MapRenderer.render` as `request.points`.
/// - A job that fails is reported and the others go on. Outputs are written atomically; missing
///   output folders are created.
/// - Jobs start in manifest order; the report lists them in manifest order whatever the finishing order.
/// - Basemaps are read by each render (`MapRenderer` reads `request.basemaps` itself).
public enum BatchRunner {
    /// Runs the jobs of `options.shard` (all when nil) and returns what happened to each.
    /// `progress` is called from the worker threads, one call at a time.
    public static func run(_ manifest: BatchManifest, options: BatchOptions = BatchOptions(),
                           progress: @escaping @Sendable (BatchEvent) -> Void = { _ in }) -> BatchReport {
        let jobs = manifest.jobs.filter { options.shard?.contains(jobIndex: $0.index) ?? true }
        let workers = max(1, min(options.workers, jobs.count))
        let state = RunState(jobs: jobs, progress: progress)
        let inputs = SharedInputs(jobs: jobs, read: options.readPoints, warn: { state.warn($0) })
        let digests = FileDigests()

        state.begin()
        let group = DispatchGroup()
        for _ in 0..<(jobs.isEmpty ? 0 : workers) {
            group.enter()
            let thread = Thread {
                while let slot = state.next() {
                    let report = execute(jobs[slot], inputs: inputs, digests: digests, skipUnchanged: options.skipUnchanged,
                                         allowEmpty: options.allowEmpty, root: manifest.confinedRoot)
                    state.finish(slot, report)
                }
                group.leave()
            }
            thread.stackSize = 8 << 20
            thread.start()
        }
        group.wait()
        return state.report(manifest: manifest, shard: options.shard, workers: workers)
    }

    /// One job, start to end; never throws: a failure is the report's `error`.
    ///
    /// With a `root`, the map (and its `--skip-unchanged` record) is written through
    /// `ConfinedWrite`, so a folder swapped for a link during the run cannot lead it outside.
    static func execute(_ job: BatchJob, inputs: SharedInputs, digests: FileDigests, skipUnchanged: Bool,
                        allowEmpty: Bool = false, root: String? = nil) -> BatchJobReport {
        let start = DispatchTime.now().uptimeNanoseconds
        func elapsed() -> Double { Double(DispatchTime.now().uptimeNanoseconds - start) / 1e6 }
        var report = BatchJobReport(index: job.index, output: job.output, status: .failed)
        var released = false
        defer { if !released { inputs.release(job) } }
        do {
            var hash: String? = nil
            if skipUnchanged {
                let h = try digests.hash(of: job)
                if BatchHash.recorded(for: job.output) == h && FileManager.default.fileExists(atPath: job.output) {
                    report.status = .skipped
                    report.milliseconds = elapsed()
                    return report
                }
                hash = h
            }

            var points = try inputs.points(for: job)
            inputs.release(job)
            released = true
            if let f = job.filter {
                points = try select(points, f, job: job)
            }
            report.points = points.count
            if points.count == 0 && !allowEmpty && !job.request.allowEmpty {
                throw MapRenderError(.inputMalformed, "\(job.output): no points to draw"
                    + (job.filter.map { " (the filter \($0.source) kept none)" } ?? "") + "; nothing written (--allow-empty writes an empty map)")
            }

            var request = job.request
            request.points = points
            let result = try MapRenderer.render(request)
            if let root {
                try ConfinedWrite.write(result.data, to: job.output, root: root)
                if let h = hash { try ConfinedWrite.write(Data((h + "\n").utf8), to: BatchHash.recordPath(for: job.output), root: root) }
            } else {
                let folder = URL(fileURLWithPath: job.output).deletingLastPathComponent()
                var isFolder: ObjCBool = false
                if FileManager.default.fileExists(atPath: folder.path, isDirectory: &isFolder) {
                    guard isFolder.boolValue else {
                        throw MapRenderError(.output, "cannot write \(job.output): \(folder.path) is not a folder")
                    }
                } else {
                    do {
                        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
                    } catch {
                        throw MapRenderError(.output, "cannot create folder \(folder.path): \(error.localizedDescription)")
                    }
                }
                try AtomicFile.write(result.data, to: job.output)
                if let h = hash { try BatchHash.record(h, for: job.output) }
            }

            report.status = .ok
            report.pointsDrawn = result.summary.pointsDrawn
            report.clusters = result.summary.clusters.drawn
            report.labelsDropped = result.summary.labelsDropped
            report.warnings = result.warnings
            report.crc32 = String(format: "%08x", result.data.withUnsafeBytes { CRC32.checksum($0) })
        } catch let e as MapRenderError {
            report.error = e.message
        } catch {
            report.error = "\(error)"
        }
        report.milliseconds = elapsed()
        return report
    }

    /// The points for which the filter gives `true`. A filter (or label, ...) that reads a property
    /// the input does not have is an error, as in `render` (`InputFieldCheck`).
    static func select(_ points: PointSet, _ filter: FeatureFilter, job: BatchJob) throws -> PointSet {
        try InputFieldCheck.check(job.request, filter: filter.expression, points: points)
        let bound = filter.expression.bind(to: points.properties)
        var rows: [Int] = []
        for r in 0..<points.count where bound.evaluate(row: r).truthy { rows.append(r) }
        return rows.count == points.count ? points : points.selecting(rows)
    }
}

/// The run's shared counters and the order of jobs; calls the progress handler under its lock.
final class RunState: @unchecked Sendable {
    private let lock = NSLock()
    private let jobs: [BatchJob]
    private let progress: @Sendable (BatchEvent) -> Void
    private var nextSlot = 0
    private var reports: [BatchJobReport?]
    private var counts = BatchProgress(total: 0, finished: 0, ok: 0, failed: 0, skipped: 0, elapsed: 0)
    private let startTime = DispatchTime.now().uptimeNanoseconds

    init(jobs: [BatchJob], progress: @escaping @Sendable (BatchEvent) -> Void) {
        self.jobs = jobs
        self.progress = progress
        reports = Array(repeating: nil, count: jobs.count)
        counts.total = jobs.count
    }

    private var elapsed: Double { Double(DispatchTime.now().uptimeNanoseconds - startTime) / 1e9 }

    func begin() {
        lock.lock(); defer { lock.unlock() }
        progress(.started(counts))
    }

    func next() -> Int? {
        lock.lock(); defer { lock.unlock() }
        guard nextSlot < jobs.count else { return nil }
        nextSlot += 1
        return nextSlot - 1
    }

    func warn(_ message: String) {
        lock.lock(); defer { lock.unlock() }
        progress(.warning(message))
    }

    func finish(_ slot: Int, _ report: BatchJobReport) {
        lock.lock(); defer { lock.unlock() }
        reports[slot] = report
        counts.finished += 1
        switch report.status {
        case .ok: counts.ok += 1
        case .failed: counts.failed += 1
        case .skipped: counts.skipped += 1
        }
        counts.elapsed = elapsed
        progress(.finished(report, counts))
    }

    func report(manifest: BatchManifest, shard: BatchShard?, workers: Int) -> BatchReport {
        lock.lock(); defer { lock.unlock() }
        return BatchReport(manifest: manifest.name, shard: shard?.description, manifestJobs: manifest.jobs.count,
                           total: jobs.count, ok: counts.ok, failed: counts.failed, skipped: counts.skipped,
                           workers: workers, milliseconds: (elapsed * 1e4).rounded() / 10, jobs: reports.compactMap { $0 })
    }
}

/// Each input file of a run, read once on first use and shared by every job that uses it.
final class SharedInputs: @unchecked Sendable {
    final class Entry {
        let path: String
        var options: InputOptions
        /// Jobs that still need it; at zero the points are dropped.
        var users = 0
        var state = State.idle
        let condition = NSCondition()

        init(path: String, options: InputOptions) {
            self.path = path
            self.options = options
        }
    }

    enum State {
        case idle, loading, loaded(LoadedPoints), failed(Error), released
    }

    /// Never changed after `init`, so reading it needs no lock.
    private let entries: [String: Entry]
    private let read: @Sendable (String, InputOptions) throws -> LoadedPoints
    private let warn: (String) -> Void

    init(jobs: [BatchJob], read: @escaping @Sendable (String, InputOptions) throws -> LoadedPoints,
         warn: @escaping (String) -> Void) {
        var entries: [String: Entry] = [:]
        for job in jobs {
            var needed = job.request.inputOptions.keepProperties ?? []
            needed.formUnion(job.request.neededProperties)
            needed.formUnion(job.filter?.expression.propertyNames ?? [])
            for path in job.request.inputs {
                let key = Self.key(path, job.request.inputOptions)
                let entry = entries[key] ?? Entry(path: path, options: job.request.inputOptions)
                entry.options.keepProperties = (entry.options.keepProperties ?? []).union(needed)
                entry.options.keepIDs = false   // still maps draw no id
                entry.users += 1
                entries[key] = entry
            }
        }
        self.entries = entries
        self.read = read
        self.warn = warn
    }

    /// Files read with different options are different inputs.
    static func key(_ path: String, _ o: InputOptions) -> String {
        [path, o.format?.rawValue ?? "", o.delimiter.map { String($0) } ?? "", o.latField ?? "", o.lonField ?? "",
         o.idField ?? "", o.wrapLongitude ? "wrap" : ""].joined(separator: "\u{0}")
    }

    /// The job's points: its inputs, read (once) and joined in order.
    func points(for job: BatchJob) throws -> PointSet {
        var all: PointSet? = nil
        for path in job.request.inputs {
            let loaded = try self.loaded(entries[Self.key(path, job.request.inputOptions)]!)
            try MapRenderer.strictText(loaded.report, job.request.strict)
            if all == nil { all = loaded.points } else { all!.append(contentsOf: loaded.points) }
        }
        return all ?? PointSet()
    }

    private func loaded(_ e: Entry) throws -> LoadedPoints {
        e.condition.lock()
        defer { e.condition.unlock() }
        while true {
            switch e.state {
            case .loaded(let l): return l
            case .failed(let error): throw error
            case .loading: e.condition.wait()
            case .released: throw MapRenderError(.internal, "\(e.path) was used after its last job")
            case .idle:
                e.state = .loading
                e.condition.unlock()
                let result = Result { try read(e.path, e.options) }
                if case .success(let l) = result { l.report.warnings().forEach(warn) }
                e.condition.lock()
                switch result {
                case .success(let l): e.state = .loaded(l)
                case .failure(let error): e.state = .failed(error)
                }
                e.condition.broadcast()
            }
        }
    }

    /// The job no longer needs its inputs (call once per job).
    func release(_ job: BatchJob) {
        for path in job.request.inputs {
            let e = entries[Self.key(path, job.request.inputOptions)]!
            e.condition.lock()
            e.users -= 1
            if e.users == 0 {
                if case .loaded = e.state { e.state = .released }
            }
            e.condition.unlock()
        }
    }
}
