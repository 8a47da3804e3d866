import Foundation
import MapRenderCairo
import MapRenderCore

/// What an animation did, written by `maprender animate --summary` as JSON.
public struct AnimationResult: Sendable, Encodable {
    public struct TransitionStats: Sendable, Encodable, Equatable {
        public var from: String
        public var to: String
        public var moved: Int
        public var unchanged: Int
        public var inserted: Int
        public var deleted: Int
    }

    public struct TrackStats: Sendable, Encodable, Equatable {
        public var file: String
        /// Valid rows read (before coalescing).
        public var samplesRead: Int
        public var ids: Int
        /// Samples kept after coalescing (at most 2 × ids × frames).
        public var samplesKept: Int
        /// The time span shown, seconds since 1970.
        public var start: Double
        public var end: Double
    }

    /// "keyframes" or "tracks".
    public var mode: String
    public var frames: Int
    public var fps: Double
    /// Frames a point takes to travel into or out of a bubble.
    public var clusterTransitionFrames: Int
    /// Files written (the frames, or the one animation file).
    public var outputs: [String]
    /// The first frame's view: [longitude, latitude] centre and zoom (every frame's, unless following).
    public var center: [Double]
    public var zoom: Double
    public var follow: Bool
    public var size: [Double]
    public var transitions: [TransitionStats]?
    public var tracks: TrackStats?
    /// Skipped rows and similar, one line each.
    public var warnings: [String]
    /// Milliseconds per stage: read, view, cluster, plan, render, write.
    public var timings: [String: Double]
    /// The process's peak resident memory so far (getrusage), MB.
    public var peakMemoryMB: Double
}

/// Progress of an animation: frames finished of the total.
public struct AnimationProgress: Sendable {
    public var done: Int
    public var total: Int
    /// Seconds since rendering began.
    public var elapsed: Double
}

/// Renders an animation: every frame from one consistent state, in parallel, byte-identical for
/// any number of jobs.
///
/// The pipeline, per chunk of frames:
/// 1. (parallel) each frame's positions from the source, clustered on their own;
/// 2. (in order) continuity: where markers and bubbles are shown (`ClusterContinuity`), and plain
///    labels placed with the previous frame's positions as hints (`LabelContinuity`);
/// 3. (parallel) layout, drawing, encoding and writing each frame.
/// The view of every frame is fixed before that (`AnimationView`). Memory is bounded by the
/// chunk size, not by the number of frames (except for APNG and animated SVG, which hold their
/// result).
public enum AnimationRenderer {
    /// Renders and writes `request.output`. `onFrame` receives each frame's bytes in frame order,
    /// on the calling thread (not for animated SVG, which has no per-frame bytes); `progress` is
    /// called from the rendering threads, one call at a time.
    @discardableResult
    public static func render(_ request: AnimationRequest,
                              progress: (@Sendable (AnimationProgress) -> Void)? = nil,
                              onFrame: ((Int, Data) throws -> Void)? = nil) throws -> AnimationResult {
        var session = try Session(request)
        return try session.run(progress: progress, onFrame: onFrame)
    }

    /// The plans of every frame, in order (tests: continuity, without drawing).
    static func plans(_ request: AnimationRequest) throws -> [FramePlan] {
        var session = try Session(request)
        var out: [FramePlan] = []
        try session.forEachChunk { plans in out += plans }
        return out
    }

    /// Loading, views and the in-order state shared by the chunks.
    struct Session {
        let request: AnimationRequest
        let source: AnimationSource
        let views: AnimationView.Views
        let drawing: FrameDrawing
        let jobs: Int
        var continuity: ClusterContinuity
        var labels: LabelContinuity?
        var timings: [String: Double] = [:]
        private var clock = DispatchTime.now().uptimeNanoseconds
        let labelText = PangoText()

        init(_ request: AnimationRequest) throws {
            try MapRenderer.validate(Self.validationRequest(request.base))
            guard request.jobs >= 1 else { throw MapRenderError(.usage, "jobs must be at least 1, got \(request.jobs)") }
            if let f = request.fps, !(f > 0 && f.isFinite) { throw MapRenderError(.usage, "fps must be positive, got \(f)") }
            self.request = request
            jobs = request.jobs
            let start = DispatchTime.now().uptimeNanoseconds
            source = try AnimationSource.load(request)
            let basemaps = try request.base.basemaps.isEmpty ? (request.base.defaultBasemap ? [DefaultBasemap.shapes] : [])
                : request.base.basemaps.map { try ShapeReader.read(path: $0) }
            let read = DispatchTime.now().uptimeNanoseconds
            views = try AnimationView.compute(request, source: source, jobs: jobs)
            let viewed = DispatchTime.now().uptimeNanoseconds
            timings["read"] = Double(read - start) / 1e6
            timings["view"] = Double(viewed - read) / 1e6
            clock = viewed
            drawing = FrameDrawing(base: request.base, basemaps: basemaps)
            continuity = ClusterContinuity(keyCount: source.keyCount, settleFrames: request.settleFrames,
                                           cluster: request.base.style.cluster)
            if LabelContinuity.applies(to: request.base) {
                labels = LabelContinuity(base: request.base, measurer: CachingTextMeasurer(labelText))
            }
        }

        /// `validate` wants an input; the animation brings its own.
        static func validationRequest(_ base: RenderRequest) -> RenderRequest {
            var r = base
            r.points = PointSet()
            return r
        }

        mutating func lap(_ stage: String) {
            let now = DispatchTime.now().uptimeNanoseconds
            timings[stage, default: 0] += Double(now - clock) / 1e6
            clock = now
        }

        /// Frames per chunk: enough to keep every thread busy; memory grows with it.
        var chunkSize: Int { max(8, 4 * jobs) }

        /// Plans the frames chunk by chunk, in order, handing each chunk's plans to `body`.
        mutating func forEachChunk(_ body: ([FramePlan]) throws -> Void) throws {
            var first = 0
            let total = source.frameCount
            while first < total {
                let range = first..<min(total, first + chunkSize)
                let src = source, vw = views, base = request.base
                let clustered = try FramePool.map(count: range.count, jobs: jobs) { i in
                    ClusteredFrame.make(range.lowerBound + i, source: src, views: vw, base: base)
                }
                lap("cluster")
                var plans: [FramePlan] = []
                plans.reserveCapacity(clustered.count)
                for f in clustered {
                    var plan = continuity.plan(f)
                    labels?.place(&plan, drawing: drawing)
                    plans.append(plan)
                }
                lap("plan")
                try body(plans)
                clock = DispatchTime.now().uptimeNanoseconds
                first = range.upperBound
            }
        }

        mutating func run(progress: (@Sendable (AnimationProgress) -> Void)?,
                          onFrame: ((Int, Data) throws -> Void)?) throws -> AnimationResult {
            let total = source.frameCount
            let format = request.frameFormat
            var outputs: [String] = []
            var apng: APNGWriter?
            var svg: AnimatedSVG?
            var framePaths: ((Int) -> String)?
            switch request.output {
            case .frames(let folder, let f):
                try FrameFiles.prepare(folder: folder, count: total, format: f)
                framePaths = { FrameFiles.path(folder: folder, frame: $0, count: total, format: f) }
            case .apng:
                let px = Int((request.base.width * request.base.scale).rounded(.up))
                let py = Int((request.base.height * request.base.scale).rounded(.up))
                apng = APNGWriter(width: px, height: py, loops: request.loops)
            case .animatedSVG:
                svg = AnimatedSVG(base: request.base, fps: request.effectiveFPS, frameCount: total)
            case .inMemory:
                break
            }
            let counter = ProgressCounter(total: total, report: progress)
            let jobs = self.jobs
            let texts = (0..<jobs).map { _ in PangoText() }
            let drawing = self.drawing
            let delay = Self.delay(fps: request.effectiveFPS)
            var renderNanos: UInt64 = 0
            try forEachChunk { plans in
                let started = DispatchTime.now().uptimeNanoseconds
                defer { renderNanos += DispatchTime.now().uptimeNanoseconds - started }
                if svg != nil {
                    for p in plans {
                        svg!.add(p)
                        counter.frameDone()
                    }
                    return
                }
                let datas = try FramePool.map(count: plans.count, jobs: jobs, worker: { texts[$0] }) { text, i -> Data in
                    let plan = plans[i]
                    let data = try drawing.render(plan, format: format, text: text)
                    if let path = framePaths?(plan.index) { try AtomicFile.write(data, to: path) }
                    counter.frameDone()
                    return data
                }
                for (i, data) in datas.enumerated() {
                    if apng != nil { try apng!.add(framePNG: data, delayNumerator: delay.0, delayDenominator: delay.1) }
                    try onFrame?(plans[i].index, data)
                }
            }
            timings["render"] = Double(renderNanos) / 1e6
            clock = DispatchTime.now().uptimeNanoseconds
            switch request.output {
            case .frames:
                outputs = (0..<total).map { framePaths!($0) }
            case .apng(let path):
                try AtomicFile.write(apng!.finish(), to: path)
                outputs = [path]
            case .animatedSVG(let path):
                let background = try drawing.render(background: views.viewports.first!, text: texts[0])
                try AtomicFile.write(svg!.document(background: background), to: path)
                outputs = [path]
            case .inMemory:
                break
            }
            lap("write")
            let v = views.viewports.first!
            return AnimationResult(
                mode: { if case .tracks = source.kind { return "tracks" } else { return "keyframes" } }(),
                frames: total, fps: request.effectiveFPS, clusterTransitionFrames: request.settleFrames,
                outputs: outputs, center: [Self.lon(v.centerX), v.centerLatitude], zoom: v.zoom,
                follow: request.follow && { if case .fit = request.base.view { return true } else { return false } }(),
                size: [request.base.width, request.base.height],
                transitions: source.keyframeStats, tracks: source.trackStats, warnings: source.warnings,
                timings: timings, peakMemoryMB: Self.peakMemoryMB())
        }

        static func peakMemoryMB() -> Double {
            var usage = rusage()
            getrusage(__rusage_who_t(RUSAGE_SELF.rawValue), &usage)
            return Double(usage.ru_maxrss) / 1024           // Linux: kilobytes
        }

        static func lon(_ x: Double) -> Double { Longitude.fold(WebMercator.lon(x: x)) }

        /// An APNG frame delay of 1/fps s as a fraction that fits 16 bits.
        static func delay(fps: Double) -> (UInt16, UInt16) {
            if fps == fps.rounded(), fps >= 1, fps <= 65535 { return (1, UInt16(fps)) }
            let ms = min(max((1000 / fps).rounded(), 1), 65535)
            return (UInt16(ms), 1000)
        }
    }

    /// Counts finished frames for the progress callback.
    final class ProgressCounter: @unchecked Sendable {
        private let lock = NSLock()
        private var done = 0
        private let total: Int
        private let report: (@Sendable (AnimationProgress) -> Void)?
        private let start = DispatchTime.now().uptimeNanoseconds

        init(total: Int, report: (@Sendable (AnimationProgress) -> Void)?) {
            self.total = total
            self.report = report
        }

        func frameDone() {
            guard let report else { return }
            lock.lock(); defer { lock.unlock() }
            done += 1
            report(AnimationProgress(done: done, total: total,
                                     elapsed: Double(DispatchTime.now().uptimeNanoseconds - start) / 1e9))
        }
    }
}

/// Numbered frame files: `frame-00001.png`, ... (more digits past 99,999 frames).
enum FrameFiles {
    static func name(frame k: Int, count: Int, format: OutputFormat) -> String {
        let digits = max(5, String(count).count)
        let n = String(k + 1)
        return "frame-" + String(repeating: "0", count: max(0, digits - n.count)) + n + "." + format.rawValue
    }

    static func path(folder: String, frame k: Int, count: Int, format: OutputFormat) -> String {
        (folder as NSString).appendingPathComponent(name(frame: k, count: count, format: format))
    }

    /// Creates the folder if needed, and removes frames of this format numbered beyond `count`
    /// left by an earlier, longer run (so `frame-*.png` is exactly this animation).
    static func prepare(folder: String, count: Int, format: OutputFormat) throws {
        let fm = FileManager.default
        var isDir: ObjCBool = false
        if fm.fileExists(atPath: folder, isDirectory: &isDir) {
            guard isDir.boolValue else {
                throw MapRenderError(.output, "cannot write frames to \(folder): it is a file, not a folder")
            }
        } else {
            do {
                try fm.createDirectory(atPath: folder, withIntermediateDirectories: true)
            } catch {
                throw MapRenderError(.output, "cannot create the folder \(folder): \(error.localizedDescription)")
            }
        }
        let suffix = "." + format.rawValue
        for name in (try? fm.contentsOfDirectory(atPath: folder)) ?? [] where name.hasPrefix("frame-") && name.hasSuffix(suffix) {
            let digits = name.dropFirst(6).dropLast(suffix.count)
            guard digits.count >= 5, digits.allSatisfy({ $0.isASCII && $0.isNumber }), let n = Int(digits), n > count else { continue }
            try? fm.removeItem(atPath: (folder as NSString).appendingPathComponent(name))
        }
    }
}
