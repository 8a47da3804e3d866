import Foundation
import MapRenderCore

/// One frame's points as the source gives them, before clustering and continuity.
struct SourceFrame: Sendable {
    /// Web Mercator world units, x in [0, 1).
    var x: [Double]
    var y: [Double]
    /// From the keyframe diff (inserted points fade and grow in, deleted ones fade out); 1 for tracks.
    var opacity: [Double]
    var scale: [Double]
    /// A number per point that is the same in every frame (its id, made dense).
    var keys: [Int]
    /// Longitude, latitude, ids and the properties the render reads, in the same order.
    var points: PointSet

    var count: Int { x.count }
}

/// Where the frames come from: keyframe transitions or coalesced tracks.
///
/// Every frame can be made on its own, from any thread (the source is immutable once loaded).
struct AnimationSource: Sendable {
    enum Kind: Sendable {
        case keyframes(Keyframes)
        case tracks(Tracks)
    }

    let kind: Kind
    let frameCount: Int
    /// Distinct point ids over the whole animation.
    let keyCount: Int
    /// How far the markers reach beyond their point (for fitting the view), CSS px.
    let markerExtent: EdgeInsets
    var warnings: [String] = []
    /// The data's lines and polygons, drawn still under the moving points: the first keyframe's
    /// (an animation moves points only; later keyframes' lines and polygons are not morphed).
    var shapes = ShapeSet()
    var keyframeStats: [AnimationResult.TransitionStats]?
    var trackStats: AnimationResult.TrackStats?

    /// The frame's positions only (for fitting the view).
    func positions(_ k: Int) -> FrameState {
        switch kind {
        case .keyframes(let s): return s.state(k)
        case .tracks(let s): return s.reader.positions(frame: k, hold: s.hold)
        }
    }

    /// `positions(k)`'s x and y in order; keyframes give them without making the frame.
    func forEachPosition(_ k: Int, _ body: (Double, Double) -> Void) {
        switch kind {
        case .keyframes(let s): s.forEachPosition(k, body)
        case .tracks:
            let s = positions(k)
            for (x, y) in zip(s.x, s.y) { body(x, y) }
        }
    }

    /// Map time of every frame, the rest times, and how long cluster effects last (`transition`,
    /// map time; nil: a third of the time between keyframes, or a thirtieth of the tracks' span).
    ///
    /// Keyframes rest at every keyframe; tracks at the first and last frame and wherever a track
    /// starts or ends (its first and last sample).
    func timeline(transition: Double?) -> FrameTimeline {
        switch kind {
        case .keyframes(let s):
            return .keyframes(frameCount: frameCount, framesPerTransition: s.framesPerTransition,
                              transition: transition ?? 1.0 / 3)
        case .tracks(let s):
            let times = s.reader.frameTimes
            guard let first = times.first, let last = times.last else {
                return FrameTimeline(times: times, rest: [], transition: 1)
            }
            var rest = [first, last]
            for t in s.reader.firstTime + s.reader.lastTime where t >= first && t <= last { rest.append(t) }
            let span = last - first
            return FrameTimeline(times: times, rest: rest, transition: transition ?? (span > 0 ? span / 30 : 1))
        }
    }

    /// The frame with its stable keys and a point set carrying the needed properties.
    func frame(_ k: Int) -> SourceFrame {
        switch kind {
        case .keyframes(let s): return s.frame(k)
        case .tracks(let s): return s.frame(k)
        }
    }

    // MARK: Keyframes

    struct Keyframes: Sendable {
        var sets: [PointSet]
        var transitions: [Transition]
        /// Per transition, the stable key of each entry.
        var keys: [[Int]]
        var framesPerTransition: Int
        var easing: Easing

        /// Transition and time of frame `k`: (K − 1) · N + 1 frames, the last one at t = 1.
        func timing(_ k: Int) -> (transition: Int, t: Double) {
            let n = framesPerTransition
            let j = min(k / n, transitions.count - 1)
            return (j, Double(k - j * n) / Double(n))
        }

        func state(_ k: Int) -> FrameState {
            let (j, t) = timing(k)
            return transitions[j].state(at: t, easing: easing)
        }

        func forEachPosition(_ k: Int, _ body: (Double, Double) -> Void) {
            let (j, t) = timing(k)
            transitions[j].forEachPosition(at: t, easing: easing, body)
        }

        func frame(_ k: Int) -> SourceFrame {
            let (j, t) = timing(k)
            // At a keyframe the frame is that keyframe's file as read: its rows in its order, its
            // coordinates unchanged, so it plans exactly as a still map of the file does.
            if t == 0 { return keyframe(j, atEnd: false) }
            if t == 1 { return keyframe(j, atEnd: true) }
            let s = state(k)
            let a = sets[j], b = sets[j + 1]
            // Transition order: entries with a B row first, then the deleted ones (A rows only).
            let withB = s.rowB.prefix { $0 >= 0 }.count
            var points = b.selecting(Array(s.rowB[0..<withB]))
            if withB < s.count {
                var deleted = a.selecting(Array(s.rowA[withB...]))
                if points.properties.names.isEmpty && deleted.properties.names.isEmpty {
                    // No properties kept: just the columns.
                    points.lon += deleted.lon
                    points.lat += deleted.lat
                    points.ids += deleted.ids
                    for _ in 0..<deleted.count { points.properties.appendEmptyRow() }
                    deleted = PointSet()
                } else {
                    points.append(contentsOf: deleted)
                }
            }
            for i in 0..<s.count {
                points.lon[i] = s.lon(i)
                points.lat[i] = s.lat(i)
            }
            let trKeys = keys[j]
            return SourceFrame(x: s.x, y: s.y, opacity: s.opacity, scale: s.scale,
                               keys: s.item.map { trKeys[$0] }, points: points)
        }

        /// Keyframe j (`atEnd`: keyframe j + 1) as transition j sees it.
        func keyframe(_ j: Int, atEnd: Bool) -> SourceFrame {
            let tr = transitions[j]
            let set = atEnd ? sets[j + 1] : sets[j]
            let rows = atEnd ? tr.rowB : tr.rowA
            // Every row of the keyframe is one entry of the transition, projected there.
            var key = [Int](repeating: -1, count: set.count)
            var x = [Double](repeating: 0, count: set.count), y = x
            for e in 0..<tr.count where rows[e] >= 0 {
                let i = rows[e]
                key[i] = keys[j][e]
                (x[i], y[i]) = atEnd ? (tr.toX[e], tr.toY[e]) : (tr.fromX[e], tr.fromY[e])
            }
            let ones = [Double](repeating: 1, count: set.count)
            return SourceFrame(x: x, y: y, opacity: ones, scale: ones, keys: key, points: set)
        }
    }

    // MARK: Tracks

    struct Tracks: Sendable {
        var reader: TrackReader
        var hold: Bool
        /// When the render reads the id column as a property (`--label id`), its name.
        var idProperty: String?

        func frame(_ k: Int) -> SourceFrame {
            let s = reader.positions(frame: k, hold: hold)
            var points = PointSet()
            points.reserveCapacity(s.count)
            for i in 0..<s.count {
                points.lon.append(s.lon(i))
                points.lat.append(s.lat(i))
            }
            points.ids = IDColumn(s.ids)
            if let name = idProperty {
                let c = points.properties.addColumn(name)
                for id in s.ids { points.properties.appendRow([(c, id)]) }
            } else {
                for _ in 0..<s.count { points.properties.appendEmptyRow() }
            }
            return SourceFrame(x: s.x, y: s.y, opacity: s.opacity, scale: s.scale, keys: s.item, points: points)
        }
    }

    // MARK: Loading

    static func load(_ request: AnimationRequest) throws -> AnimationSource {
        switch request.source {
        case .keyframes(let paths): return try loadKeyframes(paths, request)
        case .tracks(let path, let columns): return try loadTracks(path, columns, request)
        }
    }

    private static func loadKeyframes(_ paths: [String], _ request: AnimationRequest) throws -> AnimationSource {
        guard paths.count >= 2 else {
            throw MapRenderError(.usage, "keyframe animation needs at least two files, got \(paths.count)")
        }
        guard request.framesPerTransition >= 1 else {
            throw MapRenderError(.usage, "frames per transition must be at least 1, got \(request.framesPerTransition)")
        }
        if paths.filter({ $0 == "-" }).count > 1 {
            throw MapRenderError(.usage, "standard input ('-') can be read only once")
        }
        var options = request.base.inputOptions
        options.keepProperties = (options.keepProperties ?? []).union(request.base.neededProperties)
        options.keepShapes = true
        var warnings: [String] = []
        var sets: [PointSet] = []
        var shapes = ShapeSet()
        var extent = EdgeInsets.zero
        for (k, path) in paths.enumerated() {
            let loaded = try PointReader.read(path: path, options: options)
            try MapRenderer.strictText(loaded.report, request.base.strict)
            warnings += loaded.report.warnings()
            sets.append(loaded.points)
            if k == 0 {
                shapes = loaded.shapes
            } else if loaded.shapes.shapeCount != shapes.shapeCount || loaded.shapes.vertexCount != shapes.vertexCount {
                warnings.append("\(display(path)): its lines and polygons differ from the first keyframe's; an animation draws the first keyframe's still under the moving points")
            }
            extent = union(extent, MarkerStyler.resolve(points: loaded.points, style: request.base.style).extent)
        }
        var transitions: [Transition] = []
        var stats: [AnimationResult.TransitionStats] = []
        var dense = IDTable(expectedCount: sets.count == 2 ? 0 : sets.map(\.count).max() ?? 0)
        var keys: [[Int]] = []
        for j in 0..<(sets.count - 1) {
            let tr = try KeyframeDiff.diff(sets[j], sets[j + 1], fileA: display(paths[j]), fileB: display(paths[j + 1]))
            transitions.append(tr)
            if sets.count == 2 {
                // One transition: its ids are distinct, so their dense numbers are their places.
                keys.append(Array(0..<tr.count))
            } else {
                keys.append(tr.ids.map { dense.insert($0).index })
            }
            stats.append(.init(from: paths[j], to: paths[j + 1], moved: tr.count(of: .moved),
                               unchanged: tr.count(of: .unchanged), inserted: tr.count(of: .inserted),
                               deleted: tr.count(of: .deleted)))
        }
        let n = request.framesPerTransition
        let source = Keyframes(sets: sets, transitions: transitions, keys: keys, framesPerTransition: n,
                               easing: request.easing)
        var s = AnimationSource(kind: .keyframes(source), frameCount: transitions.count * n + 1,
                                keyCount: sets.count == 2 ? transitions[0].count : dense.count, markerExtent: extent)
        s.warnings = warnings
        s.shapes = shapes
        s.keyframeStats = stats
        return s
    }

    private static func loadTracks(_ path: String, _ columns: TrackColumns, _ request: AnimationRequest) throws -> AnimationSource {
        var start = request.start, end = request.end
        var warnings: [String] = []
        if start == nil || end == nil {
            guard path != "-" else {
                throw MapRenderError(.usage, "tracks from standard input need --start and --end (the file is read twice otherwise)")
            }
            let scan = try TrackReader.scan(path: path, columns: columns)
            guard let span = scan.span else {
                warnings += scan.report.warnings()
                throw MapRenderError(.inputMalformed, "\(display(path)): no valid track rows (id, time, latitude, longitude)")
            }
            start = start ?? span.lowerBound
            end = end ?? span.upperBound
        }
        guard let t0 = start, let t1 = end, t1 >= t0 else {
            throw MapRenderError(.usage, "the track time span is empty: the end is before the start")
        }
        let fps = request.effectiveFPS
        guard fps > 0, fps.isFinite else { throw MapRenderError(.usage, "fps must be positive, got \(fps)") }
        let count: Int
        if let n = request.frameCount {
            guard n >= 1 else { throw MapRenderError(.usage, "frame count must be at least 1, got \(n)") }
            count = n
        } else {
            let d = request.duration ?? 10
            guard d > 0, d.isFinite else { throw MapRenderError(.usage, "duration must be positive, got \(d)") }
            count = max(1, Int((d * fps).rounded()))
        }
        let times = TrackTimeline.frames(start: t0, end: t1, count: count)
        var reader = TrackReader(frameTimes: times, columns: columns)
        let report = try reader.read(path: path)
        warnings += report.warnings()
        let needed = request.base.neededProperties
        let idName = report.idColumn.flatMap { needed.contains($0) ? $0 : nil }
            ?? (needed.contains("id") ? "id" : nil)
        if !request.hold, let w = emptyFramesWarning(times: times, first: reader.firstTime, last: reader.lastTime,
                                                     windowGiven: request.start != nil && request.end != nil) {
            warnings.append(w)
        }
        let tracks = Tracks(reader: reader, hold: request.hold, idProperty: idName)
        let extent = MarkerStyler.resolve(points: PointSet(), style: request.base.style).extent
        var s = AnimationSource(kind: .tracks(tracks), frameCount: times.count, keyCount: reader.trackCount,
                                markerExtent: extent)
        s.warnings = warnings
        s.trackStats = .init(file: path, samplesRead: reader.samplesRead, ids: reader.trackCount,
                             samplesKept: reader.storedSamples, start: t0, end: t1)
        return s
    }

    /// A warning when frames fall outside every track's time span: without `--hold` a track is
    /// shown from its first sample to its last, so tracks far apart in time (storms of different
    /// years) leave most frames of their whole span empty. Says how much of the animation's time
    /// the tracks cover and what to do (`windowGiven`: `--start` and `--end` were, so only
    /// `--hold` is suggested). Nil when every frame is within a track's span, or without tracks.
    /// - Complexity: O(frames + tracks log tracks).
    static func emptyFramesWarning(times: [Double], first: [Double], last: [Double], windowGiven: Bool = false) -> String? {
        guard let t0 = times.first, let t1 = times.last else { return nil }
        // The tracks' spans merged, in time order.
        var spans: [(start: Double, end: Double)] = []
        for i in first.indices.sorted(by: { first[$0] < first[$1] }) where first[i] <= last[i] {
            if let l = spans.last, first[i] <= l.end { spans[spans.count - 1].end = max(l.end, last[i]) } else { spans.append((first[i], last[i])) }
        }
        guard !spans.isEmpty else { return nil }
        var j = 0, empty = 0
        for t in times {
            while j < spans.count && spans[j].end < t { j += 1 }
            if j == spans.count || spans[j].start > t { empty += 1 }
        }
        guard empty > 0 else { return nil }
        var covered = 0.0
        for s in spans { covered += max(0, min(s.end, t1) - max(s.start, t0)) }
        let share = Self.percent(t1 > t0 ? 100 * covered / (t1 - t0) : 0)
        return "\(empty) of \(times.count) frames fall outside every track's time span and show no point "
            + "(a track is shown from its first sample to its last; the tracks cover \(share) of the animation's time); "
            + (windowGiven ? "keep tracks in view with --hold" : "pick a time window with --start and --end, or keep tracks in view with --hold")
    }

    /// A share in per cent, readable at both ends: `under 0.01%`, `0.25%`, `12%`, `over 99%`, `100%`.
    static func percent(_ p: Double) -> String {
        switch p {
        case ..<0.01: return p > 0 ? "under 0.01%" : "0%"
        case ..<9.95: return String(format: "%.2g%%", p)
        case ..<99.5: return String(format: "%.0f%%", p)
        case ..<100: return "over 99%"
        default: return "100%"
        }
    }

    static func display(_ path: String) -> String { path == "-" ? "<stdin>" : path }

    static func union(_ a: EdgeInsets, _ b: EdgeInsets) -> EdgeInsets {
        EdgeInsets(top: max(a.top, b.top), right: max(a.right, b.right),
                   bottom: max(a.bottom, b.bottom), left: max(a.left, b.left))
    }
}
