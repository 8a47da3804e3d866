import Foundation

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
    public enum Mode: Sendable {
        /// A bar when standard error is a terminal, else lines.
        case automatic
        case bar
        case lines
        /// Only failures and warnings.
        case quiet
    }

    private let mode: Mode
    private let write: (String) -> Void
    private let lock = NSLock()
    private var barShown = false

    /// `write` receives text to print as is (default: standard error).
    public init(mode: Mode = .automatic, write: @escaping (String) -> Void = { FileHandle.standardError.write(Data($0.utf8)) }) {
        self.mode = mode == .automatic ? (isatty(2) == 1 ? .bar : .lines) : mode
        self.write = write
    }

    public func handle(_ event: BatchEvent) {
        lock.lock(); defer { lock.unlock() }
        switch event {
        case .started(let p):
            if mode == .bar { drawBar(p) }
        case .warning(let message):
            above("maprender: warning: \(message)")
        case .finished(let job, let p):
            let name = "jobs[\(job.index)] \(display(job.output))"
            switch (mode, job.status) {
            case (_, .failed):
                above("maprender: error: \(name): \(job.error ?? "failed")")
            case (.lines, _):
                let what = job.status == .ok ? "ok" : "skipped"
                write("[\(p.finished)/\(p.total)] \(what) \(name) (\(Int(job.milliseconds.rounded())) ms)\n")
            default:
                break
            }
            if mode == .lines {
                for w in job.warnings { write("maprender: warning: \(name): \(w)\n") }
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
              + "in \(Self.duration(report.milliseconds / 1000))\n")
    }

    private let folder = FileManager.default.currentDirectoryPath + "/"

    /// A path under the current folder is shown relative to it.
    private func display(_ path: String) -> String {
        path.hasPrefix(folder) ? String(path.dropFirst(folder.count)) : path
    }

    /// Prints a line, above the bar when there is one.
    private func above(_ line: String) {
        if barShown { write("\r\u{1B}[2K") }
        write(line + "\n")
        barShown = false
    }

    private func drawBar(_ p: BatchProgress) {
        let width = 30
        let filled = p.total == 0 ? width : width * p.finished / p.total
        let bar = String(repeating: "#", count: filled) + String(repeating: "-", count: width - filled)
        let eta = p.finished == p.total ? "done" : p.estimatedRemaining.map { "ETA " + Self.duration($0) } ?? "ETA --"
        write("\r\u{1B}[2K[\(bar)] \(p.finished)/\(p.total)  failed \(p.failed)  skipped \(p.skipped)  \(eta)")
        barShown = true
    }

    /// `0.4 s`, `12 s`, `3:05`, `1:02:09`.
    static func duration(_ seconds: Double) -> String {
        if seconds < 10 { return String(format: "%.1f s", seconds) }
        let s = Int(seconds.rounded())
        if s < 60 { return "\(s) s" }
        if s < 3600 { return String(format: "%d:%02d", s / 60, s % 60) }
        return String(format: "%d:%02d:%02d", s / 3600, s / 60 % 60, s % 60)
    }
}
