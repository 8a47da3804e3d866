import Foundation
import MapRenderCore

/// Shows an animation's progress on standard error: a bar redrawn in place on a terminal
/// (frames done, frames per second, ETA), otherwise a plain line for the first frame and at every
/// tenth of the frames (logs, CI): "1/11", "2/11", ... "11/11", counting frames from 1.
///
/// ```swift
/// let printer = AnimationProgressPrinter()
/// let result = try AnimationRenderer.render(request, progress: printer.handle)
/// printer.finish(result)
/// ```
public final class AnimationProgressPrinter: @unchecked Sendable {
    public typealias Mode = ProgressMode

    private let mode: Mode
    private let write: (String) -> Void
    private let lock = NSLock()
    private var barShown = false
    private var lastTenth = 0

    /// `write` receives text to print as is (default: standard error).
    public init(mode: Mode = .automatic, write: @escaping (String) -> Void = { StandardStreams.writeError($0) }) {
        self.mode = mode.resolved
        self.write = write
    }

    public func handle(_ p: AnimationProgress) {
        lock.lock(); defer { lock.unlock() }
        switch mode {
        case .bar:
            let rate = p.elapsed > 0 ? Double(p.done) / p.elapsed : 0
            let eta = p.done == p.total ? "done" : rate > 0 ? "ETA " + ProgressText.duration(Double(p.total - p.done) / rate) : "ETA --"
            write(ProgressText.bar(done: p.done, total: p.total) + " \(p.done)/\(p.total) frames  \(String(format: "%.1f", rate)) fps  \(eta)")
            barShown = true
        case .lines:
            let tenth = p.total == 0 ? 10 : 10 * p.done / p.total
            if (p.done == 1 && lastTenth == 0) || tenth > lastTenth || p.done == p.total {
                lastTenth = tenth
                write("maprender: \(p.done)/\(p.total) frames (\(ProgressText.duration(p.elapsed)))\n")
                if p.done == p.total { lastTenth = 11 }
            }
        case .quiet, .automatic:
            break
        }
    }

    /// Ends the bar and prints one summary line.
    public func finish(_ result: AnimationResult) {
        lock.lock(); defer { lock.unlock() }
        if barShown { write("\n"); barShown = false }
        guard mode != .quiet else { return }
        let seconds = result.timings.values.reduce(0, +) / 1000
        let what = result.outputs.count == 1 ? MessageText.escaped(result.outputs[0]) : "\(result.outputs.count) files"
        write("maprender: \(result.frames) frames (\(result.mode)) in \(ProgressText.duration(seconds)): \(what)\n")
    }

}
