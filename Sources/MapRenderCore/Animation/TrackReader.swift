import Foundation

/// Reads moving points (rows of id, time, lat, lon, in any order) into what a fixed set of
/// frames needs, coalescing updates as it streams.
///
/// For every id and every frame time T it keeps only two samples: the latest at or before T
/// and the earliest at or after T. A new row replaces a kept sample only when it is closer to
/// T; everything else is dropped at once. Memory is therefore O(ids × frames) — at most
/// `2 × ids × frames` samples (``storedSamples``) — however many rows the file has, and a row
/// costs O(log frames) plus the slots it actually improves. The result does not depend on the
/// row order, except that of two rows of one id with the *same* time the later row wins.
///
/// ```swift
/// let scan = try TrackReader.scan(path: "tracks.csv")          // first pass, if no span given
/// guard let span = scan.span else { ... }
/// let times = TrackTimeline.frames(start: span.lowerBound, end: span.upperBound, fps: 30, duration: 10)
/// var reader = TrackReader(frameTimes: times)
/// let report = try reader.read(path: "tracks.csv")
/// let frame = reader.positions(frame: 0, hold: false)
/// ```
public struct TrackReader: Sendable {
    /// Frame times in seconds, non-decreasing (``TrackTime`` units).
    public let frameTimes: [Double]
    public let columns: TrackColumns

    /// Every track's id, in order of first appearance (the track index used by
    /// ``FrameState/item``).
    public var ids: [PropertyValue] { interner.ids }
    public var trackCount: Int { interner.count }
    /// Samples currently kept (a slot filled once counts once): at most 2 × ids × frames.
    public private(set) var storedSamples = 0
    /// Valid rows seen, before coalescing.
    public private(set) var samplesRead = 0
    /// Per track index: the time of its first and of its last sample (where it starts and ends).
    public private(set) var firstTime: [Double] = []
    public private(set) var lastTime: [Double] = []
    /// Samples that met another of the same id and time (see `add`), and the first such id.
    public private(set) var duplicateSamples = 0
    private var duplicateExample: PropertyValue?

    private var interner = TrackIDInterner()
    // Slots, track-major: track t, frame k at t * frameCount + k. An empty "before" slot has
    // time -infinity, an empty "after" slot +infinity.
    private var beforeT: [Double] = [], beforeX: [Double] = [], beforeY: [Double] = []
    private var afterT: [Double] = [], afterX: [Double] = [], afterY: [Double] = []
    /// Track indexes sorted by id (numbers ascending, then strings), so frames list the tracks
    /// in the same order whatever the row order was.
    private var order: [Int] = []

    /// - Precondition: `frameTimes` is non-decreasing and finite.
    public init(frameTimes: [Double], columns: TrackColumns = TrackColumns()) {
        precondition(frameTimes.allSatisfy(\.isFinite), "frame times must be finite")
        precondition(zip(frameTimes, frameTimes.dropFirst()).allSatisfy { $0 <= $1 },
                     "frame times must be non-decreasing")
        self.frameTimes = frameTimes
        self.columns = columns
    }

    public var frameCount: Int { frameTimes.count }

    // MARK: Reading

    /// Reads a file (`-` for standard input); may be called for several files.
    @discardableResult
    public mutating func read(path: String) throws -> TrackReport {
        try read(ByteSource(path: path))
    }

    /// Reads CSV bytes in memory; `name` is used in messages.
    @discardableResult
    public mutating func read(data: Data, name: String) throws -> TrackReport {
        try read(ByteSource(data: data, name: name))
    }

    mutating func read(_ source: ByteSource, chunkSize: Int = TrackCSVParser.chunkSize) throws -> TrackReport {
        let parser = TrackCSVParser(name: source.name, columns: columns)
        try parser.parse(source, chunkSize: chunkSize) { idP, idN, time, lat, lon in
            let (track, isNew) = interner.index(idP, idN)
            if isNew { addTrackSlots() }
            let pos = WrappedMercator.project(lon: lon, lat: lat)
            if add(track: track, time: time, x: pos.x, y: pos.y), duplicateExample == nil {
                duplicateExample = interner.ids[track]
            }
        }
        order = Array(0..<interner.count).sorted { Self.idLess(interner.ids[$0], interner.ids[$1]) }
        var report = parser.report
        report.duplicateSamples = duplicateSamples
        report.duplicateExample = duplicateExample?.displayText
        return report
    }

    /// What a first pass over a file finds: the time span of its valid rows, how many there are
    /// and of how many ids. Used to choose frame times when the caller gives none.
    public struct Scan: Sendable {
        /// Earliest...latest valid time; nil when no row is valid.
        public var span: ClosedRange<Double>?
        public var samples = 0
        public var ids = 0
        public var report: TrackReport
    }

    /// A first pass over a file: time span, sample and id counts (memory O(ids)).
    public static func scan(path: String, columns: TrackColumns = TrackColumns()) throws -> Scan {
        try scan(ByteSource(path: path), columns: columns)
    }

    public static func scan(data: Data, name: String, columns: TrackColumns = TrackColumns()) throws -> Scan {
        try scan(ByteSource(data: data, name: name), columns: columns)
    }

    static func scan(_ source: ByteSource, columns: TrackColumns) throws -> Scan {
        let parser = TrackCSVParser(name: source.name, columns: columns)
        var interner = TrackIDInterner()
        var lo = Double.infinity, hi = -Double.infinity, n = 0
        try parser.parse(source) { idP, idN, time, _, _ in
            _ = interner.index(idP, idN)
            lo = min(lo, time)
            hi = max(hi, time)
            n += 1
        }
        return Scan(span: n > 0 ? lo...hi : nil, samples: n, ids: interner.count, report: parser.report)
    }

    // MARK: Frames

    /// The tracks' positions at frame `frame`, ordered by id (numbers ascending, then strings).
    ///
    /// Between the samples bracketing the frame time a point is interpolated linearly in time
    /// (x the short way round the antimeridian, y linear in Mercator). Before a track's first
    /// sample and after its last it is absent, unless `hold` keeps it at that first / last
    /// position. Opacity and scale are 1; `rowA`/`rowB` are empty.
    /// - Complexity: O(ids).
    public func positions(frame k: Int, hold: Bool) -> FrameState {
        precondition(frameTimes.indices.contains(k), "frame \(k) out of 0..<\(frameCount)")
        let time = frameTimes[k]
        var f = FrameState()
        f.reserveCapacity(order.count)
        for track in order {
            let s = track * frameCount + k
            let tb = beforeT[s], ta = afterT[s]
            let hasBefore = tb > -.infinity, hasAfter = ta < .infinity
            let pos: (x: Double, y: Double)
            if hasBefore && hasAfter {
                let fraction = ta > tb ? (time - tb) / (ta - tb) : 0
                pos = WrappedMercator.interpolate(x0: beforeX[s], y0: beforeY[s], x1: afterX[s], y1: afterY[s], f: fraction)
            } else if hold && hasBefore {
                pos = (beforeX[s], beforeY[s])
            } else if hold && hasAfter {
                pos = (afterX[s], afterY[s])
            } else {
                continue
            }
            f.x.append(pos.x)
            f.y.append(pos.y)
            f.opacity.append(1)
            f.scale.append(1)
            f.ids.append(interner.ids[track])
            f.item.append(track)
        }
        return f
    }

    // MARK: Coalescing

    private mutating func addTrackSlots() {
        let n = frameCount
        firstTime.append(.infinity)
        lastTime.append(-.infinity)
        beforeT.append(contentsOf: repeatElement(-.infinity, count: n))
        beforeX.append(contentsOf: repeatElement(0, count: n))
        beforeY.append(contentsOf: repeatElement(0, count: n))
        afterT.append(contentsOf: repeatElement(.infinity, count: n))
        afterX.append(contentsOf: repeatElement(0, count: n))
        afterY.append(contentsOf: repeatElement(0, count: n))
    }

    /// Offers one sample to the slots of its track.
    ///
    /// "before" slots: frames with time ≥ t, from the first one on. Kept times only grow with
    /// the frame (a later frame sees every sample an earlier one sees), so the walk stops at the
    /// first slot already holding a later sample. "after" slots mirror this, walking down from
    /// the last frame with time ≤ t.
    /// Two samples of one id at one time: whichever comes later in the file would otherwise win,
    /// so row order would change the frames. The smaller position (x, then y) wins instead.
    /// Returns true when the sample met one of the same time (counted in `duplicateSamples`).
    @discardableResult
    private mutating func add(track: Int, time t: Double, x: Double, y: Double) -> Bool {
        samplesRead += 1
        firstTime[track] = min(firstTime[track], t)
        lastTime[track] = max(lastTime[track], t)
        var duplicate = false
        func wins(_ keptX: Double, _ keptY: Double) -> Bool { (x, y) < (keptX, keptY) }
        defer { if duplicate { duplicateSamples += 1 } }
        let n = frameCount
        let base = track * n
        let first = Self.firstIndex(in: frameTimes, notBelow: t)
        var k = first
        while k < n {
            let s = base + k
            let kept = beforeT[s]
            if kept > t { break }
            if kept == t {
                duplicate = true
                if !wins(beforeX[s], beforeY[s]) { k += 1; continue }
            }
            if kept == -.infinity { storedSamples += 1 }
            beforeT[s] = t; beforeX[s] = x; beforeY[s] = y
            k += 1
        }
        // Frames with time ≤ t: those before `first`, plus any at exactly t.
        var j = first
        while j < n && frameTimes[j] == t { j += 1 }
        j -= 1
        while j >= 0 {
            let s = base + j
            let kept = afterT[s]
            if kept < t { break }
            if kept == t {
                duplicate = true
                if !wins(afterX[s], afterY[s]) { j -= 1; continue }
            }
            if kept == .infinity { storedSamples += 1 }
            afterT[s] = t; afterX[s] = x; afterY[s] = y
            j -= 1
        }
        return duplicate
    }

    /// The first index whose time is ≥ t (`times.count` when none).
    static func firstIndex(in times: [Double], notBelow t: Double) -> Int {
        var lo = 0, hi = times.count
        while lo < hi {
            let mid = (lo + hi) / 2
            if times[mid] < t { lo = mid + 1 } else { hi = mid }
        }
        return lo
    }

    /// Numbers (ascending) before strings (by Unicode order) before anything else (by text).
    static func idLess(_ a: PropertyValue, _ b: PropertyValue) -> Bool {
        func rank(_ v: PropertyValue) -> Int {
            switch v {
            case .number: return 0
            case .string: return 1
            default: return 2
            }
        }
        switch (a, b) {
        case (.number(let x), .number(let y)): return x < y
        case (.string(let x), .string(let y)): return x < y
        default:
            let ra = rank(a), rb = rank(b)
            return ra != rb ? ra < rb : (a.displayText ?? "") < (b.displayText ?? "")
        }
    }
}
