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
    /// Map time a point takes to travel into or out of a bubble (keyframes: share of the time
    /// between keyframes; tracks: seconds of data time).
    public var clusterTransition: Double
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
/// 1. (parallel) each frame planned from its own positions as a still map would be (`RestFrame`);
/// 2. (in order) continuity: the effects in progress added to each plan (`ClusterContinuity`);
/// 3. (parallel) layout (`MapLayout`, as a still map), drawing and encoding;
/// 4. (in order) the frames handed to the output (`FrameSink`).
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
        try session.forEachChunk { plans, _ in out += plans }
        return out
    }

    /// Every frame's plan and scene, in order (tests: labels and marks, without drawing).
    static func scenes(_ request: AnimationRequest) throws -> [(plan: FramePlan, scene: Scene)] {
        var session = try Session(request)
        let drawing = session.drawing
        let measurer = CachingTextMeasurer(PangoText(systemFonts: request.base.systemFonts))
        var out: [(plan: FramePlan, scene: Scene)] = []
        try session.forEachChunk { plans, scenes in
            for (i, p) in plans.enumerated() {
                out.append((p, scenes?[i] ?? drawing.layout(p, measurer: measurer).scene))
            }
        }
        return out
    }

    /// Loading, views and the in-order state shared by the chunks.
    struct Session {
        let request: AnimationRequest
        let source: AnimationSource
        let views: AnimationView.Views
        let timeline: FrameTimeline
        let drawing: FrameDrawing
        let jobs: Int
        var continuity: ClusterContinuity
        /// Labels and callouts: the side each one took in the previous frame, by the key of its point
        /// (a bubble's: of the point it is named after) (nil: no labels).
        var labelSides: LabelSides?
        /// Keyframes: the sides labels took in the last frame at rest (a still map's), and in the
        /// next one (laid out ahead, `sidesAtRest`), by key (`LabelSchedule`).
        var restSides: (frame: Int, sides: LabelSides)?
        var nextRestSides: (frame: Int, sides: LabelSides)?
        /// `--trail`: where the last frames showed each point (nil: no trails).
        var trailHistory: AnimationTrails.History?
        let labelMeasurer: CachingTextMeasurer
        /// What `--basemap-style` warned of for the first view (unsupported properties, tiles).
        let styleWarnings: [String]
        var timings: [String: Double] = [:]
        private var clock = DispatchTime.now().uptimeNanoseconds

        init(_ request: AnimationRequest) throws {
            var request = request
            try IconLoader.load(style: &request.base.style)
            labelMeasurer = CachingTextMeasurer(PangoText(systemFonts: request.base.systemFonts))
            try MapRenderer.validate(Self.validationRequest(request.base))
            guard request.jobs >= 1 else { throw MapRenderError(.usage, "jobs must be at least 1, got \(request.jobs)") }
            if let f = request.fps, !(f > 0 && f.isFinite) { throw MapRenderError(.usage, "fps must be positive, got \(f)") }
            if let t = request.trail, !(t > 0 && t.isFinite) { throw MapRenderError(.usage, "trail must be a positive duration, got \(t)") }
            if let c = request.clusterTransition, !(c > 0 && c.isFinite) {
                throw MapRenderError(.usage, "cluster transition must be positive, got \(c)")
            }
            try AnimationBounds.check(request)
            self.request = request
            jobs = request.jobs
            let start = DispatchTime.now().uptimeNanoseconds
            source = try AnimationSource.load(request)
            // The built-in land only without raster tiles or a basemap style (it would cover them), as for a still map.
            let useDefault = request.base.defaultBasemap && request.base.tiles.sources.isEmpty && request.base.basemapStyle == nil
            let userBasemaps = try request.base.basemaps.map { try ShapeReader.read(path: $0) }
            let read = DispatchTime.now().uptimeNanoseconds
            views = try AnimationView.compute(request, source: source, jobs: jobs)
            // The built-in land's scale as a still map picks it, from the coarsest frame's zoom, so
            // that one scale is drawn through the whole animation (no coastline popping mid-way)
            // and a fixed view gives frames whose land is the still map's.
            let coarsest = views.viewports.map(\.zoom).min() ?? 0
            let basemaps = !request.base.basemaps.isEmpty ? userBasemaps
                : (useDefault ? DefaultBasemap.sets(zoom: coarsest, style: request.base.style) : [])
            // Tiles: bad sources, and missing tiles under --tiles-strict, stop the run here (first view).
            if let first = views.viewports.first { _ = try TileStage.run(request.base, viewport: first) }
            // --basemap-style: a bad style source stops the run here too; its warnings are the run's.
            var styleWarnings: [String] = []
            if let first = views.viewports.first, let s = try BasemapStyleStage.run(request.base, viewport: first) {
                styleWarnings = s.warnings
            }
            let viewed = DispatchTime.now().uptimeNanoseconds
            timings["read"] = Double(read - start) / 1e6
            timings["view"] = Double(viewed - read) / 1e6
            clock = viewed
            self.styleWarnings = styleWarnings
            var drawing = FrameDrawing(base: request.base, basemaps: basemaps, shapes: source.shapes,
                                       trails: AnimationTrails(seconds: request.trail, fps: request.effectiveFPS, style: request.base.style))
            if case .animatedSVG = request.output { drawing.keepsMarkerPoints = true }
            self.drawing = drawing
            trailHistory = drawing.trails.map { AnimationTrails.History(depth: $0.frames) }
            timeline = source.timeline(transition: request.clusterTransition)
            continuity = ClusterContinuity(keyCount: source.keyCount, timeline: timeline)
            if request.base.layout.labelField != nil { labelSides = LabelSides() }
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
        var chunkSize: Int { AnimationView.chunkSize(jobs: jobs, points: source.keyCount) }

        /// Plans the frames chunk by chunk, in order, handing each chunk's plans to `body`, with
        /// their scenes when labels keep their side (laid out in order: each frame's label sides
        /// are the next one's hints), else nil (laid out in parallel by the caller).
        mutating func forEachChunk(_ body: ([FramePlan], [Scene]?) throws -> Void) throws {
            var first = 0
            let total = source.frameCount
            while first < total {
                let range = first..<min(total, first + chunkSize)
                let src = source, vw = views, tl = timeline, base = request.base
                let rest = try FramePool.map(count: range.count, jobs: jobs) { i in
                    RestFrame.make(range.lowerBound + i, source: src, views: vw, timeline: tl, base: base)
                }
                lap("cluster")
                var plans: [FramePlan] = []
                plans.reserveCapacity(rest.count)
                for f in rest {
                    var plan = continuity.plan(f)
                    if let t = drawing.trails, trailHistory != nil {
                        // Where this frame shows each point, then its markers' trails through the
                        // frames before (in frame order: each frame's trail reads the ones before).
                        trailHistory!.add(plan)
                        plan.trail = t.segments(history: trailHistory!, drawn: plan.drawn.map { plan.keys[$0] })
                    }
                    plans.append(plan)
                }
                lap("plan")
                var scenes: [Scene]?
                if labelSides != nil {
                    scenes = []
                    for k in plans.indices {
                        // Between rest times a label keeps its side or fades out and in
                        // (`LabelSchedule`); at rest it is placed as on a still map.
                        if !plans[k].atRest { keepSides(&plans[k]) }
                        let (scene, sides) = drawing.layout(plans[k], measurer: labelMeasurer)
                        let keys = plans[k].keys
                        labelSides = sides.rekeyed { keys[$0] }
                        if plans[k].atRest { restSides = (plans[k].index, labelSides!) }
                        scenes!.append(scene)
                    }
                    lap("layout")
                }
                try body(plans, scenes)
                continuity.recycle(&plans)
                clock = DispatchTime.now().uptimeNanoseconds
                first = range.upperBound
            }
        }

        /// Gives a frame between rest times its labels' sides and fades (`LabelSchedule`): with
        /// keyframes, from the sides at the keyframes either side of it; with tracks (at rest only
        /// at their ends), the previous frame's sides, kept or the label left out.
        mutating func keepSides(_ plan: inout FramePlan) {
            let last = labelSides ?? LabelSides()
            var schedule: LabelSchedule?
            if case .keyframes = source.kind, let (r0, r1) = restFrames(around: plan.index), r1 - r0 >= 2 {
                schedule = LabelSchedule(frame: plan.index - r0, of: r1 - r0,
                                         start: restSides?.frame == r0 ? restSides!.sides : LabelSides(),
                                         end: sidesAtRest(r1))
            }
            var hints = LabelSides()
            hints.only = true
            // (By point: the frame has no index of its points by key.)
            for (point, key) in plan.keys.enumerated() {
                let p = schedule.map { $0.side(start: $0.start.points[key], end: $0.end.points[key], previous: last.points[key]) }
                    ?? last.points[key].map { ($0, 1) }
                if let (side, alpha) = p {
                    hints.points[point] = side
                    if alpha < 1 { plan.marks.labelOpacity[point] = (plan.marks.labelOpacity[point] ?? 1) * alpha }
                }
                let b = schedule.map { $0.side(start: $0.start.bubbles[key], end: $0.end.bubbles[key], previous: last.bubbles[key]) }
                    ?? last.bubbles[key].map { ($0, 1) }
                if let (side, alpha) = b {
                    hints.bubbles[point] = side
                    if alpha < 1 { plan.marks.bubbleLabelOpacity[point] = alpha }
                }
            }
            plan.marks.labelHints = hints
        }

        /// The frames at rest before (or at) and after frame `k`; nil past the last one.
        func restFrames(around k: Int) -> (Int, Int)? {
            var r0 = k, r1 = k + 1
            while r0 > 0 && !timeline.isRest(frame: r0) { r0 -= 1 }
            while r1 < source.frameCount && !timeline.isRest(frame: r1) { r1 += 1 }
            return r1 < source.frameCount ? (r0, r1) : nil
        }

        /// The sides labels take in frame `r` at rest, by key: the frame planned and laid out ahead
        /// (`ClusterContinuity.atRest`: a frame at rest is its still map, whatever came before).
        mutating func sidesAtRest(_ r: Int) -> LabelSides {
            if let n = nextRestSides, n.frame == r { return n.sides }
            let plan = ClusterContinuity.atRest(RestFrame.make(r, source: source, views: views, timeline: timeline, base: request.base))
            let keys = plan.keys
            let sides = drawing.layout(plan, measurer: labelMeasurer).labelSides.rekeyed { keys[$0] }
            nextRestSides = (r, sides)
            return sides
        }

        /// The output the request asks for.
        func makeSink() throws -> FrameSink {
            let total = source.frameCount
            switch request.output {
            case .frames(let folder, let format):
                return try FrameFolderSink(folder: folder, count: total, format: format, protected: request.filesRead)
            case .apng(let path):
                return APNGSink(path: path, base: request.base, loops: request.loops, fps: request.effectiveFPS)
            case .animatedSVG(let path):
                let drawing = self.drawing, view = views.viewports.first!
                return AnimatedSVGSink(path: path, base: request.base, fps: request.effectiveFPS, frameCount: total, trails: drawing.trails,
                                       background: { try drawing.render(background: view, text: PangoText(systemFonts: drawing.base.systemFonts)) })
            case .inMemory:
                return CallerSink()
            }
        }

        mutating func run(progress: (@Sendable (AnimationProgress) -> Void)?,
                          onFrame: ((Int, Data) throws -> Void)?) throws -> AnimationResult {
            let total = source.frameCount
            let format = request.frameFormat
            var sink = try makeSink()
            let counter = ProgressCounter(total: total, report: progress)
            let jobs = self.jobs
            // One text context per thread: never more threads than frames in a chunk (`--jobs` may be huge).
            let texts = (0..<min(jobs, chunkSize, total)).map { _ in PangoText(systemFonts: request.base.systemFonts) }
            let drawing = self.drawing
            let wantsBytes = sink.wantsBytes
            let store = sink
            var renderNanos: UInt64 = 0
            try forEachChunk { plans, scenes in
                let started = DispatchTime.now().uptimeNanoseconds
                defer { renderNanos += DispatchTime.now().uptimeNanoseconds - started }
                let frames = try FramePool.map(count: plans.count, jobs: jobs, worker: { texts[$0] }) { text, i -> (Scene, Data?) in
                    let plan = plans[i]
                    let scene = scenes?[i] ?? drawing.layout(plan, measurer: CachingTextMeasurer(text)).scene
                    var data: Data?
                    if wantsBytes {
                        let bytes = try drawing.render(scene, format: format, text: text)
                        try store.store(bytes, frame: plan.index)
                        data = bytes
                    }
                    counter.frameDone()
                    return (scene, data)
                }
                for (i, frame) in frames.enumerated() {
                    try sink.append(plans[i], scene: frame.0, data: frame.1)
                    if let data = frame.1 { try onFrame?(plans[i].index, data) }
                }
            }
            timings["render"] = Double(renderNanos) / 1e6
            clock = DispatchTime.now().uptimeNanoseconds
            let outputs = try sink.finish()
            lap("write")
            let v = views.viewports.first!
            return AnimationResult(
                mode: { if case .tracks = source.kind { return "tracks" } else { return "keyframes" } }(),
                frames: total, fps: request.effectiveFPS, clusterTransition: timeline.transition,
                outputs: outputs, center: [Self.lon(v.centerX), v.centerLatitude], zoom: v.zoom,
                follow: request.follow && { if case .fit = request.base.view { return true } else { return false } }(),
                size: [request.base.width, request.base.height],
                transitions: source.keyframeStats, tracks: source.trackStats, warnings: source.warnings + styleWarnings,
                timings: timings, peakMemoryMB: Self.peakMemoryMB())
        }

        static func peakMemoryMB() -> Double {
            var usage = rusage()
            getrusage(__rusage_who_t(RUSAGE_SELF.rawValue), &usage)
            return Double(usage.ru_maxrss) / 1024           // Linux: kilobytes
        }

        static func lon(_ x: Double) -> Double { Longitude.fold(WebMercator.lon(x: x)) }
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

    /// The list of frames the last run wrote into a folder, one name per line.
    static let listName = ".maprender-frames"
    /// Written last, once every frame is: the frames of the set and their CRC-32s (`FrameFolderSink`).
    static let manifestName = "maprender-frames.json"

    /// Creates the folder if needed, and removes the frames an earlier run wrote that this one
    /// will not (a longer run's tail, another format), so the folder's frames are exactly this
    /// animation. Only names listed in the folder's `.maprender-frames` (written by the earlier
    /// run) that match the frame pattern and are regular files are removed: never a folder, a
    /// link, a file maprender did not write, or one of `protected` (the inputs). A frame name
    /// that is one of `protected` is an error, since writing the frame would replace it.
    static func prepare(folder: String, count: Int, format: OutputFormat, protected: [String] = []) throws {
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
        // The set is incomplete from here until the manifest is written again.
        let manifest = (folder as NSString).appendingPathComponent(manifestName)
        var mst = stat()
        if lstat(manifest, &mst) == 0 {
            guard (mst.st_mode & S_IFMT) == S_IFREG, unlink(manifest) == 0 else {
                throw MapRenderError(.output, "cannot replace \(manifest): it is not a file maprender wrote, or cannot be removed")
            }
        }
        let home = OutputSafety.Identity.canonical(folder + "/x")
        let protectedNames = Set(protected.compactMap { p -> String? in
            let c = OutputSafety.Identity.canonical(AtomicFile.resolveSymlinks(p))
            return (c as NSString).deletingLastPathComponent == (home as NSString).deletingLastPathComponent
                ? (c as NSString).lastPathComponent : nil
        })
        if let clash = protectedNames.first(where: { frameNumber($0, format: format).map { (1...count).contains($0) } ?? false }) {
            throw MapRenderError(.usage, "refusing to write frames to \(folder): frame \(clash) is an input; choose another folder")
        }
        let list = (folder as NSString).appendingPathComponent(listName)
        let earlier = ((try? String(contentsOfFile: list, encoding: .utf8)) ?? "").split(separator: "\n").map(String.init)
        let mine = Set((0..<count).map { name(frame: $0, count: count, format: format) })
        for old in earlier where !mine.contains(old) && !protectedNames.contains(old) {
            guard OutputFormat.allCases.contains(where: { frameNumber(old, format: $0) != nil }) else { continue }
            let path = (folder as NSString).appendingPathComponent(old)
            var st = stat()
            guard lstat(path, &st) == 0, (st.st_mode & S_IFMT) == S_IFREG else { continue }
            unlink(path)
        }
        // Listed before any frame is written, so that frames of a run killed half-way are known too.
        let names = (0..<count).map { name(frame: $0, count: count, format: format) }
        try AtomicFile.write(Data((names.joined(separator: "\n") + "\n").utf8), to: list)
    }

    /// The number of a file named like a frame of this format (`frame-00012.png` → 12), else nil.
    static func frameNumber(_ name: String, format: OutputFormat) -> Int? {
        let suffix = "." + format.rawValue
        guard name.hasPrefix("frame-"), name.hasSuffix(suffix) else { return nil }
        let digits = name.dropFirst(6).dropLast(suffix.count)
        guard digits.count >= 5, digits.allSatisfy({ $0.isASCII && $0.isNumber }) else { return nil }
        return Int(digits)
    }
}
