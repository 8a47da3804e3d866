import Foundation
import MapRenderCore

/// Shows a batch's progress on standard error: a bar redrawn in place on a terminal
/// (done, failed, skipped, ETA; failures and warnings are printed above it), one line per job
/// otherwise (logs, CI).
///
/// ```swift
/// let printer = BatchProgressPrinter()
/// let report = BatchRunner.run(manifest, progress: printer.handle)
/// printer.finish(report)
/// ```
public final class BatchProgressPrinter: @unchecked Sendable {
    public typealias Mode = ProgressMode

    private let mode: Mode
    private let write: (String) -> Void
    private let lock = NSLock()
    private var barShown = false

    /// `write` receives text to print as is (default: standard error).
    public init(mode: Mode = .automatic, write: @escaping (String) -> Void = { StandardStreams.writeError($0) }) {
        self.mode = mode.resolved
        self.write = write
    }

    public func handle(_ event: BatchEvent) {
        lock.lock(); defer { lock.unlock() }
        switch event {
        case .started(let p):
            if mode == .bar { drawBar(p) }
        case .warning(let message):
            above("maprender: warning: \(MessageText.escaped(message))")
        case .finished(let job, let p):
            let name = "jobs[\(job.index)] \(display(job.output))"
            switch (mode, job.status) {
            case (_, .failed):
                above("maprender: error: \(name): \(MessageText.escaped(job.error ?? "failed"))")
            case (.lines, _):
                let what = job.status == .ok ? "ok" : "skipped"
                write("[\(p.finished)/\(p.total)] \(what) \(name) (\(Int(job.milliseconds.rounded())) ms)\n")
            default:
                break
            }
            if mode == .lines {
                for w in job.warnings { write("maprender: warning: \(name): \(MessageText.escaped(w))\n") }
            }
            if mode == .bar { drawBar(p) }
        }
    }

    /// Ends the bar and prints one summary line.
    public func finish(_ report: BatchReport) {
        lock.lock(); defer { lock.unlock() }
        if barShown { write("\n"); barShown = false }
        guard mode != .quiet || report.failed > 0 else { return }
        let shard = report.shard.map { " (shard \($0) of \(report.manifestJobs) jobs)" } ?? ""
        write("\(report.total) jobs\(shard): \(report.ok) ok, \(report.failed) failed, \(report.skipped) skipped "
              + "in \(ProgressText.duration(report.milliseconds / 1000))\n")
    }

    private let folder = FileManager.default.currentDirectoryPath + "/"

    /// A path under the current folder is shown relative to it, its control characters escaped
    /// (a name holding a newline or ESC must not forge a line or drive the terminal).
    private func display(_ path: String) -> String {
        MessageText.escaped(path.hasPrefix(folder) ? String(path.dropFirst(folder.count)) : path)
    }

    /// Prints a line, above the bar when there is one.
    private func above(_ line: String) {
        if barShown { write("\r\u{1B}[2K") }
        write(line + "\n")
        barShown = false
    }

    private func drawBar(_ p: BatchProgress) {
        let eta = p.finished == p.total ? "done" : p.estimatedRemaining.map { "ETA " + ProgressText.duration($0) } ?? "ETA --"
        write(ProgressText.bar(done: p.finished, total: p.total) + " \(p.finished)/\(p.total)  failed \(p.failed)  skipped \(p.skipped)  \(eta)")
        barShown = true
    }

}
