import Foundation
import MapRenderCore

/// What one frame draws once continuity is applied: the still map's plan of the frame's points
/// (`RestFrame`) with the effects in progress added — points travelling into or out of bubbles,
/// bubbles growing, shrinking or moving, bubbles that are gone shrinking away.
struct FramePlan: Sendable {
    struct Bubble: Sendable, Equatable {
        /// World units (x unwrapped near the view's centre).
        var x: Double, y: Double
        /// Drawn radius, CSS px.
        var radius: Double
        /// The radius its count has in the style (the size it grows or shrinks towards).
        var targetRadius: Double
        var count: Int
        /// The number it shows: its count, or in transition a number between its ends (`shownNumber`).
        var number: Int
        /// A bubble that no longer exists, shrinking away (towards the bubble that took its points).
        var ghost: Bool
        /// The same number in every frame for one bubble's life (ghost frames included).
        var track: Int
    }

    var index: Int
    /// Whether this frame is at a rest time (then `marks` is the still map's plan, unchanged).
    var atRest: Bool
    var viewport: Viewport
    var points: PointSet
    var keys: [Int]
    /// Displayed position per point (world units, x unwrapped): its own position when it stands
    /// alone and has settled, its bubble's centre when it is inside one, in between while it travels.
    var shownX: [Double]
    var shownY: [Double]
    /// 1: drawn at full size; 0: inside a bubble (not drawn); in between while joining or leaving one.
    var presence: [Double]
    /// The track of the bubble each point is in (`Bubble.track`), or -1 when it stands alone.
    var group: [Int]
    /// Final per-point factors for the marker and its label (the source's fade × presence).
    var opacity: [Double]
    var scale: [Double]
    /// The same bubbles as `marks.bubbles`, in the same order, with their tracks.
    var bubbles: [FramePlan.Bubble]
    /// What layout draws: markers at their shown positions, bubbles at their shown size.
    var marks: MarkPlan
    /// `--trail`: the segments behind its markers, through where earlier frames showed each
    /// point (`AnimationTrails.segments`), filled in frame order by `AnimationRenderer`.
    var trail: [AnimationTrails.Segment] = []

    /// Points drawn as markers, in plan order.
    var drawn: [Int] { marks.markerPoint }
}

/// Keeps markers and bubbles continuous from frame to frame while every frame is planned anew.
///
/// Each frame's plan comes from its own positions (`RestFrame`); this pass, run over the frames in
/// order, decides what is *shown*:
/// - A point's target is where the plan draws it, or its bubble's shown centre when it is inside
///   one. When that changes between two frames (it joins a bubble, leaves one, or its bubble is
///   replaced by another), the point starts from where it was shown and reaches the target as
///   the effect runs, the remaining offset shrinking linearly. Its presence (marker size and
///   opacity) goes the same way from 1 to 0 (travelling into a bubble) or from 0 to 1.
/// - Bubbles are matched to the previous frame's by shared points: a bubble continues the one it
///   shares most points with (that one's best match wins when two claim it). A bubble whose
///   points changed starts from the previous bubble's shown centre and radius and settles the
///   same way; a bubble split off another starts at that one's centre with radius 0; a new bubble
///   grows from radius 0 (except in the first frame). A bubble left unmatched (merged into
///   another, or dissolved into points) stays as a ghost, shrinking to nothing while it moves to
///   the bubble that took most of its points.
/// - A bubble's number runs with its radius, between its ends (issue 47): from the number it
///   showed when its points changed (none for a new or split-off bubble) to its count, and a
///   ghost's from its last number to none, rounded and at least 1 (`shownNumber`), as points
///   travel in and out. A count is shown so; an aggregate (`text-field`) is its value at the end.
///
/// Effects are timed in map time (`FrameTimeline`): one that begins between two frames runs from
/// the earlier frame's time for `timeline.transition`, and is cut to end at the next rest time.
/// So a frame at a rest time shows its plan exactly, whatever the frame count or rate.
///
/// - Complexity: O(points + bubbles) per frame; memory O(ids), plus a clock per frame and the
///   per-point arrays of the frames of a chunk (`recycle`).
struct ClusterContinuity {
    let timeline: FrameTimeline

    /// Per key, the frame it was last shown in (-1: never), the track of its bubble then (-1:
    /// alone), and the frame whose `clocks` entry times its effect (or one of the two states
    /// without an effect). What every frame reads for every point.
    private struct PointLink {
        var frame = -1
        var group = -1
        var clock = PointLink.settled

        /// No effect runs: its offset is never read.
        static let settled = -1
        /// No effect runs and it was shown at its bubble's centre (`shownBubbles`), not at
        /// `shown`: a point that stays in its bubble writes nothing but this link.
        static let atBubble = -2
    }

    /// Shown position (world units) and presence, or the offset from the target still to run.
    private struct PointPlace {
        var x = 0.0, y = 0.0, presence = 0.0
    }

    private struct BubbleState {
        var x: Double, y: Double, radius: Double
        var count: Int
        /// The number shown (a count between the effect's ends), and its offset from `count` still to run.
        var number: Double
        var hash: UInt64
        var offX: Double, offY: Double, offR: Double, offN: Double
        var clock: EffectClock
    }

    private struct Ghost {
        var track: Int
        var x0: Double, y0: Double, r0: Double
        var x: Double, y: Double
        var heir: Int?
        var count: Int
        /// The number it showed when it was left (it counts down to none as it shrinks).
        var n0: Double
        var clock: EffectClock
    }

    /// How this frame's bubbles relate to the previous frame's.
    private struct Matching {
        /// Per bubble: the sum of its points' mixed keys (tells whether its points changed).
        var hash: [UInt64]
        /// The previous bubble (track) each bubble shares most points with.
        var predecessor: [Int?]
        /// Per previous track: the bubble that continues it.
        var claim: [Int: (bubble: Int, overlap: Int)] = [:]
        /// Per previous track: the bubble that took most of its points.
        var heirOf: [Int: (bubble: Int, overlap: Int)] = [:]
    }

    /// This frame's live bubbles: track and shown state (world units), plus their plans.
    private struct LiveBubbles {
        var track: [Int]
        var shown: [(x: Double, y: Double, r: Double, number: Double, settled: Bool)]
    }

    // Per key, in three flat arrays rather than one struct of 80 bytes: a frame reads and writes
    // the 24 bytes of the link of a point that stays in its bubble, and writes 24 more for one
    // that is alone; only a point on its way reads its offset. The struct was read and written
    // whole (at a million points the pass is bound by memory).
    private var states: KeyStates
    /// Per frame index: the clock of an effect that begins in that frame.
    private var clocks: [EffectClock] = []
    /// Per track: where its bubble was shown in the previous frame (world units).
    private var shownBubbles: [Int: (x: Double, y: Double)] = [:]
    /// Per-point arrays of drawn frames, to be filled again (`recycle`).
    private var spareDoubles: [[Double]] = []
    private var spareInts: [[Int]] = []
    /// `match`'s array of previous groups, kept for the next frame (one at most).
    private var matchScratch: [[Int]] = []
    private var bubbles: [Int: BubbleState] = [:]
    private var ghosts: [Ghost] = []
    private var nextTrack = 0
    private var previous: (index: Int, time: Double)?

    init(keyCount: Int, timeline: FrameTimeline) {
        self.timeline = timeline
        states = KeyStates(count: keyCount)
    }

    /// Plans frame `f`, which must follow the previously planned one.
    mutating func plan(_ f: RestFrame) -> FramePlan {
        precondition(f.index == (previous?.index ?? -1) + 1, "frames must be planned in order")
        // An effect that begins now began when the previous frame was shown.
        let clock = previous.map { EffectClock(start: $0.time, end: timeline.end(ofTransitionFrom: $0.time)) } ?? .settled
        clocks.append(clock)
        let matching = match(f)
        let live = continueBubbles(f, matching, clock: clock)
        let ghostPlans = advanceGhosts(f, matching, live, clock: clock)
        previous = (f.index, f.time)
        let plan = movePoints(f, live, ghosts: ghostPlans)
        shownBubbles = [:]
        for (b, t) in live.track.enumerated() { shownBubbles[t] = (live.shown[b].x, live.shown[b].y) }
        return plan
    }

    /// The plan `plan` makes of frame `f` at a rest time, made without the frames before it:
    /// at rest every effect is over, so each point is shown where the still map's plan has it
    /// (a marker, inside its bubble, or faint at its own position) and every bubble at its
    /// planned size. Bubble tracks are not known here (-1). For a transition to look ahead to
    /// the keyframe it ends at (`LabelSchedule`).
    static func atRest(_ f: RestFrame) -> FramePlan {
        precondition(f.atRest, "frame \(f.index) is not at rest")
        let n = f.count, s = f.source
        var shownX = [Double](repeating: 0, count: n), shownY = shownX, presence = shownX, opacity = shownX, scale = shownX
        var group = [Int](repeating: -1, count: n)
        for i in 0..<n {
            let p: (x: Double, y: Double), tp: Double
            if f.marker[i] >= 0 {
                let m = Int(f.marker[i])
                p = f.world(px: f.marks.markerX[m], py: f.marks.markerY[m]); tp = 1
            } else if f.bubble[i] >= 0 {
                let b = f.marks.bubbles[Int(f.bubble[i])]
                p = f.world(px: b.x, py: b.y); tp = 0
                group[i] = Int(f.bubble[i])
            } else if f.faint[i] {
                p = (f.centerX + AnimationMath.shortDelta(from: f.centerX, to: s.x[i]), s.y[i]); tp = 1
            } else {
                continue
            }
            shownX[i] = p.x; shownY[i] = p.y; presence[i] = tp
            opacity[i] = s.opacity[i] * tp; scale[i] = s.scale[i] * tp
        }
        var plan = FramePlan(index: f.index, atRest: true, viewport: f.viewport, points: s.points, keys: s.keys,
                             shownX: shownX, shownY: shownY, presence: presence, group: group,
                             opacity: opacity, scale: scale, bubbles: [], marks: f.marks)
        for i in 0..<n where f.marker[i] < 0 && f.faint[i] && opacity[i] >= 1.0 / 32 && scale[i] > 0 {
            let p = f.pixel(x: shownX[i], y: shownY[i])
            plan.marks.markerPoint.append(i); plan.marks.markerX.append(p.x); plan.marks.markerY.append(p.y)
        }
        for i in plan.marks.markerPoint where opacity[i] < 1 { plan.marks.labelOpacity[i] = opacity[i] }
        plan.bubbles = f.marks.bubbles.map {
            let at = f.world(px: $0.x, py: $0.y)
            return .init(x: at.x, y: at.y, radius: $0.radius, targetRadius: $0.radius, count: $0.count, number: $0.count, ghost: false, track: -1)
        }
        return plan
    }

    /// The share of an effect still to run in frame `f` (none at a rest time).
    private func remaining(_ c: EffectClock, _ f: RestFrame) -> Double {
        f.atRest ? 0 : c.remaining(at: f.time)
    }

    private func radius(_ f: RestFrame, _ b: Int) -> Double { f.marks.bubbles[b].radius }

    // MARK: Bubbles

    private mutating func match(_ f: RestFrame) -> Matching {
        let k = f.index
        let keys = f.source.keys
        let nb = f.marks.bubbles.count
        // Per bubble, the previous bubble of each of its points, in point order: counted, then
        // placed in one flat array while the points are read in their order. (Read bubble by
        // bubble, a million points' states were read in no order: a cache miss each.)
        var start = [Int](repeating: 0, count: nb + 1)
        for b in f.bubble where b >= 0 { start[Int(b) + 1] += 1 }
        for b in 0..<nb { start[b + 1] += start[b] }
        // Kept from frame to frame: a new array of 16 MB a frame is 4,000 page faults.
        var previousGroup = Self.take(&matchScratch, start[nb])
        var hash = [UInt64](repeating: 0, count: nb)
        var next = start
        previousGroup.withUnsafeMutableBufferPointer { previousGroup in
            for i in 0..<f.count where f.bubble[i] >= 0 {
                let b = Int(f.bubble[i])
                let key = keys[i]
                let link = states.links[key]
                previousGroup[next[b]] = link.frame == k - 1 ? link.group : -1
                next[b] += 1
                hash[b] = hash[b] &+ AnimationMath.mix(key)
            }
        }
        defer { matchScratch = [previousGroup] }
        var m = Matching(hash: hash, predecessor: [Int?](repeating: nil, count: nb))
        for b in 0..<nb {
            // Points of a bubble mostly came from one bubble: counted in runs of the same
            // previous bubble, so the dictionary is touched once a run, not once a point.
            var shared: [Int: Int] = [:]
            var run = (group: -1, count: 0)
            for group in previousGroup[start[b]..<start[b + 1]] {
                if group == run.group { run.count += 1; continue }
                if run.group >= 0 { shared[run.group, default: 0] += run.count }
                run = (group, 1)
            }
            if run.group >= 0 { shared[run.group, default: 0] += run.count }
            var best: (track: Int, overlap: Int)?
            for (t, c) in shared {
                if best == nil || c > best!.overlap || (c == best!.overlap && t < best!.track) { best = (t, c) }
                if let h = m.heirOf[t] {
                    if c > h.overlap || (c == h.overlap && b < h.bubble) { m.heirOf[t] = (b, c) }
                } else {
                    m.heirOf[t] = (b, c)
                }
            }
            guard let best else { continue }
            m.predecessor[b] = best.track
            if let c = m.claim[best.track] {
                if best.overlap > c.overlap { m.claim[best.track] = (b, best.overlap) }
            } else {
                m.claim[best.track] = (b, best.overlap)
            }
        }
        return m
    }

    /// Continue, restart from the predecessor, split off, or grow in.
    private mutating func continueBubbles(_ f: RestFrame, _ m: Matching, clock: EffectClock) -> LiveBubbles {
        var live = LiveBubbles(track: [Int](repeating: -1, count: m.hash.count), shown: [])
        var newStates: [Int: BubbleState] = [:]
        for (b, bubble) in f.marks.bubbles.enumerated() {
            let target = bubble.radius
            let at = f.world(px: bubble.x, py: bubble.y)
            let hash = m.hash[b]
            let count = Double(bubble.count)
            var s = BubbleState(x: at.x, y: at.y, radius: target, count: bubble.count, number: count, hash: hash,
                                offX: 0, offY: 0, offR: 0, offN: 0, clock: .settled)
            if let t = m.predecessor[b], let prev = bubbles[t] {
                if m.claim[t]?.bubble == b {
                    live.track[b] = t
                    if prev.hash == hash && prev.count == bubble.count {
                        s.offX = prev.offX; s.offY = prev.offY; s.offR = prev.offR; s.offN = prev.offN
                        s.clock = prev.clock
                    } else {
                        s.offX = prev.x - at.x; s.offY = prev.y - at.y; s.offR = prev.radius - target
                        s.offN = prev.number - count
                        s.clock = clock
                    }
                } else {
                    // Split off `t`: leaves its centre, growing, its points arriving.
                    s.offX = prev.x - at.x; s.offY = prev.y - at.y; s.offR = -target; s.offN = -count
                    s.clock = clock
                }
            } else if previous != nil {
                s.offR = -target; s.offN = -count
                s.clock = clock
            }
            if live.track[b] < 0 {
                live.track[b] = nextTrack
                nextTrack += 1
            }
            let w = remaining(s.clock, f)
            let shown = (x: at.x + s.offX * w, y: at.y + s.offY * w, r: max(0, target + s.offR * w),
                         number: max(0, count + s.offN * w), settled: w == 0)
            live.shown.append(shown)
            newStates[live.track[b]] = BubbleState(x: shown.x, y: shown.y, radius: shown.r, count: s.count, number: shown.number,
                                                   hash: s.hash, offX: s.offX, offY: s.offY, offR: s.offR, offN: s.offN, clock: s.clock)
        }
        bubbles.merge(newStates) { _, new in new }
        return live
    }

    /// Previous bubbles nobody continued shrink away towards their heir; returns the ghosts shown.
    private mutating func advanceGhosts(_ f: RestFrame, _ m: Matching, _ live: LiveBubbles,
                                        clock: EffectClock) -> [FramePlan.Bubble] {
        var trackIndex: [Int: Int] = [:]
        for b in live.track.indices { trackIndex[live.track[b]] = b }
        var next = ghosts.filter { remaining($0.clock, f) > 0 }
        for t in bubbles.keys.sorted() where trackIndex[t] == nil {
            let prev = bubbles[t]!
            let heir = m.heirOf[t].map { live.track[$0.bubble] }
            next.append(Ghost(track: t, x0: prev.x, y0: prev.y, r0: prev.radius, x: prev.x, y: prev.y,
                              heir: heir, count: prev.count, n0: prev.number, clock: clock))
            bubbles[t] = nil
        }
        var shown: [FramePlan.Bubble] = []
        var kept: [Ghost] = []
        for var g in next {
            let w = remaining(g.clock, f)
            guard w > 0 else { continue }
            if let h = g.heir, let b = trackIndex[h] {
                g.x = live.shown[b].x + (g.x0 - live.shown[b].x) * w
                g.y = live.shown[b].y + (g.y0 - live.shown[b].y) * w
            }
            kept.append(g)
            let r = g.r0 * w
            if r > 0 {
                shown.append(.init(x: g.x, y: g.y, radius: r, targetRadius: g.r0, count: g.count,
                                   number: Self.shownNumber(g.n0 * w), ghost: true, track: g.track))
            }
        }
        ghosts = kept
        return shown
    }

    // MARK: Points

    /// Every point's shown position and presence; an effect that begins here is timed by this
    /// frame's entry of `clocks`.
    private mutating func movePoints(_ f: RestFrame, _ live: LiveBubbles, ghosts ghostPlans: [FramePlan.Bubble]) -> FramePlan {
        let k = f.index
        let n = f.count
        let s = f.source
        // Every element is written below, point by point.
        var columns = PointColumns(x: Self.take(&spareDoubles, n), y: Self.take(&spareDoubles, n),
                                   presence: Self.take(&spareDoubles, n), opacity: Self.take(&spareDoubles, n),
                                   scale: Self.take(&spareDoubles, n), group: Self.take(&spareInts, n))
        // Markers (indexes into `f.marks`) not yet at their place.
        var moving: [Int] = []
        let clocks = self.clocks, shownBubbles = self.shownBubbles
        var lastBubble = (track: -1, place: PointPlace())
        states.withBuffers { links, shownAt, offsets in
            columns.withBuffers { shownX, shownY, presence, opacity, scale, groups in
                for i in 0..<n {
                    let key = s.keys[i]
                    let tx: Double, ty: Double, tp: Double, group: Int
                    if f.marker[i] >= 0 {
                        let m = Int(f.marker[i])
                        (tx, ty) = f.world(px: f.marks.markerX[m], py: f.marks.markerY[m])
                        (tp, group) = (1, -1)
                    } else if f.bubble[i] >= 0 {
                        let b = Int(f.bubble[i])
                        (tx, ty, tp, group) = (live.shown[b].x, live.shown[b].y, 0, live.track[b])
                    } else if f.faint[i] {
                        (tx, ty, tp, group) = (f.centerX + AnimationMath.shortDelta(from: f.centerX, to: s.x[i]), s.y[i], 1, -1)
                    } else {
                        // Outside the view's clusters: not drawn, forgotten.
                        shownX[i] = 0; shownY[i] = 0; presence[i] = 0; groups[i] = -1; opacity[i] = 0; scale[i] = 0
                        continue
                    }
                    var link = links[key]
                    if link.frame == k - 1 && k > 0 {
                        if group != link.group {
                            let was: PointPlace
                            if link.clock == PointLink.atBubble {
                                // Points of one bubble come in runs: the dictionary is asked once a run.
                                if link.group != lastBubble.track {
                                    // A live track of the previous frame: `plan` kept its shown centre.
                                    let centre = shownBubbles[link.group]!
                                    lastBubble = (link.group, PointPlace(x: centre.x, y: centre.y, presence: 0))
                                }
                                was = lastBubble.place
                            } else {
                                was = shownAt[key]
                            }
                            offsets[key] = PointPlace(x: was.x - tx, y: was.y - ty, presence: was.presence - tp)
                            link.clock = k
                        }
                    } else {
                        link.clock = PointLink.settled
                    }
                    // What is left of its effect in map time, and in this frame (none at a rest time).
                    let left = link.clock < 0 ? 0 : clocks[link.clock].remaining(at: f.time)
                    let w = f.atRest ? 0 : left
                    var p = PointPlace(x: tx, y: ty, presence: tp)
                    if w != 0 {
                        let off = offsets[key]
                        p.x = tx + off.x * w
                        p.y = ty + off.y * w
                        p.presence = min(1, max(0, tp + off.presence * w))
                        if f.marker[i] >= 0 { moving.append(Int(f.marker[i])) }
                        shownAt[key] = p
                    } else {
                        if link.clock >= 0 && left == 0 {
                            link.clock = PointLink.settled   // over for good (frame times only grow)
                        }
                        // Settled in a bubble: shown at its centre, as `shownBubbles` will say.
                        if link.clock < 0 && group >= 0 { link.clock = PointLink.atBubble } else { shownAt[key] = p }
                    }
                    link.group = group
                    link.frame = k
                    links[key] = link
                    shownX[i] = p.x; shownY[i] = p.y; presence[i] = p.presence; groups[i] = group
                    opacity[i] = s.opacity[i] * p.presence
                    scale[i] = s.scale[i] * p.presence
                }
            }
        }

        var plan = FramePlan(index: k, atRest: f.atRest, viewport: f.viewport, points: s.points, keys: s.keys,
                             shownX: columns.x, shownY: columns.y, presence: columns.presence, group: columns.group,
                             opacity: columns.opacity, scale: columns.scale, bubbles: [], marks: f.marks)
        shownMarks(f, live, ghosts: ghostPlans, moving: moving, into: &plan)
        return plan
    }

    /// Per key: its link, where it was shown, and the offset of its effect.
    private struct KeyStates {
        var links: [PointLink]
        var shown: [PointPlace]
        var offsets: [PointPlace]

        init(count: Int) {
            links = Array(repeating: PointLink(), count: count)
            shown = Array(repeating: PointPlace(), count: count)
            offsets = Array(repeating: PointPlace(), count: count)
        }

        /// Runs `body` on the three arrays' storage.
        mutating func withBuffers(_ body: (UnsafeMutableBufferPointer<PointLink>, UnsafeMutableBufferPointer<PointPlace>,
                                           UnsafeMutableBufferPointer<PointPlace>) -> Void) {
            links.withUnsafeMutableBufferPointer { links in
                shown.withUnsafeMutableBufferPointer { shown in
                    offsets.withUnsafeMutableBufferPointer { offsets in body(links, shown, offsets) }
                }
            }
        }
    }

    /// A frame's per-point arrays (`FramePlan`'s), written in the pass over its points.
    private struct PointColumns {
        var x: [Double], y: [Double], presence: [Double], opacity: [Double], scale: [Double]
        var group: [Int]

        typealias Doubles = UnsafeMutableBufferPointer<Double>

        /// Runs `body` on the arrays' storage, each made unique once (written element by element
        /// through the arrays, each write checked it again once the arrays came from `spare`).
        mutating func withBuffers(_ body: (Doubles, Doubles, Doubles, Doubles, Doubles, UnsafeMutableBufferPointer<Int>) -> Void) {
            x.withUnsafeMutableBufferPointer { x in
                y.withUnsafeMutableBufferPointer { y in
                    presence.withUnsafeMutableBufferPointer { presence in
                        opacity.withUnsafeMutableBufferPointer { opacity in
                            scale.withUnsafeMutableBufferPointer { scale in
                                group.withUnsafeMutableBufferPointer { group in body(x, y, presence, opacity, scale, group) }
                            }
                        }
                    }
                }
            }
        }
    }

    /// An array of `n` numbers for the caller to overwrite, every one, before reading any: a spare
    /// one when there is one (its values are stale), else one left unfilled (a plain number has
    /// nothing to initialise or release).
    private static func take<T: Numeric & BitwiseCopyable>(_ spare: inout [[T]], _ n: Int) -> [T] {
        guard var a = spare.popLast() else { return [T](unsafeUninitializedCapacity: n) { _, count in count = n } }
        if a.count > n { a.removeLast(a.count - n) } else if a.count < n { a.append(contentsOf: repeatElement(0, count: n - a.count)) }
        return a
    }

    /// Takes back the per-point arrays of frames that have been drawn, to fill them again for
    /// the next frames. Each frame of a million points wrote six new arrays of 8 MB: every page
    /// of them a fault the kernel answers with a zeroed page, and at two million points the
    /// pass took 2.3 times as long as at one. (An array the caller still holds is copied on the
    /// first write instead, so nothing it holds changes.)
    mutating func recycle(_ plans: inout [FramePlan]) {
        for k in plans.indices {
            spareDoubles += [plans[k].shownX, plans[k].shownY, plans[k].presence, plans[k].opacity, plans[k].scale]
            spareInts.append(plans[k].group)
        }
        plans = []
    }

    /// The number a bubble in transition shows for a count between its ends: rounded, and at
    /// least 1 (a bubble drawn holds a point on its way in or out).
    static func shownNumber(_ n: Double) -> Int { max(1, Int(n.rounded())) }

    /// The still map's plan with what is in progress: shown positions and sizes, travelling and
    /// faint markers after the plan's own, ghosts after the live bubbles.
    private func shownMarks(_ f: RestFrame, _ live: LiveBubbles, ghosts ghostPlans: [FramePlan.Bubble],
                            moving: [Int], into plan: inout FramePlan) {
        let (shownX, shownY, opacity, scale) = (plan.shownX, plan.shownY, plan.opacity, plan.scale)
        var marks = f.marks
        for m in moving {
            let i = f.marks.markerPoint[m]
            let p = f.pixel(x: shownX[i], y: shownY[i])
            marks.markerX[m] = p.x; marks.markerY[m] = p.y
        }
        for i in 0..<f.count where f.marker[i] < 0 && (f.bubble[i] >= 0 || f.faint[i]) {
            // Quantised to 1/16 when drawn: below half a step nothing would show.
            guard opacity[i] >= 1.0 / 32 && scale[i] > 0 else { continue }
            let p = f.pixel(x: shownX[i], y: shownY[i])
            marks.markerPoint.append(i); marks.markerX.append(p.x); marks.markerY.append(p.y)
        }
        var planned: [FramePlan.Bubble] = []
        for (b, bubble) in f.marks.bubbles.enumerated() {
            let shown = live.shown[b]
            let number = shown.settled ? bubble.count : Self.shownNumber(shown.number)
            planned.append(.init(x: shown.x, y: shown.y, radius: shown.r, targetRadius: bubble.radius,
                                 count: bubble.count, number: number, ghost: false, track: live.track[b]))
            guard !shown.settled else { continue }
            let p = f.pixel(x: shown.x, y: shown.y)
            marks.bubbles[b].x = p.x; marks.bubbles[b].y = p.y
            marks.bubbles[b].radius = shown.r
            // A count (not an aggregate: `text-field`) runs between its ends with the points
            // travelling in or out: the number shown.
            if number != bubble.count { marks.bubbles[b].shownCount = number }
            if marks.bubbles[b].text == ClusterItem.abbreviate(bubble.count) { marks.bubbles[b].text = ClusterItem.abbreviate(number) }
            // The count shows whenever it fits the bubble as it is drawn (`BubbleTextFit`).
            marks.bubbles[b].showsText = bubble.showsText
            // It is named once it has grown to 60 % of its size.
            marks.bubbles[b].nameable = shown.r >= 0.6 * bubble.radius
        }
        for g in ghostPlans {
            let p = f.pixel(x: g.x, y: g.y)
            marks.bubbles.append(MarkPlan.Bubble(x: p.x, y: p.y, count: g.count, clusterID: nil, aggregates: [:],
                                                 representative: nil, radius: g.radius, text: ClusterItem.abbreviate(g.number),
                                                 showsText: g.count > 0))
            marks.bubbles[marks.bubbles.count - 1].nameable = false
            if g.number != g.count { marks.bubbles[marks.bubbles.count - 1].shownCount = g.number }
        }
        marks.bubbles.removeAll { $0.radius <= 0 }
        // A fading point's label fades with its marker.
        for i in marks.markerPoint where opacity[i] < 1 { marks.labelOpacity[i] = opacity[i] }
        plan.marks = marks
        plan.bubbles = (planned + ghostPlans).filter { $0.radius > 0 }
    }
}
