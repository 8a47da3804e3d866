import Foundation
import MapRenderCore

/// What one frame draws once continuity is applied: where each point is shown, how large and
/// how opaque, and the bubbles with the radius they have in this frame.
struct FramePlan: Sendable {
    struct Bubble: Sendable, Equatable {
        /// World units (x unwrapped near the view's centre).
        var x: Double, y: Double
        /// Drawn radius, CSS px.
        var radius: Double
        /// The radius its count has in the style (the size it grows or shrinks towards).
        var targetRadius: Double
        var count: Int
        var aggregates: [String: Double]
        /// A bubble that no longer exists, shrinking away (towards the bubble that took its points).
        var ghost: Bool
        /// The same number in every frame for one bubble's life (ghost frames included).
        var track: Int
    }

    var index: Int
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
    /// Final per-point factors for the marker (the source's fade × presence).
    var opacity: [Double]
    var scale: [Double]
    /// Points drawn as markers, in point order.
    var drawn: [Int]
    var bubbles: [Bubble]
    /// Labels placed with the previous frame's positions as hints (plain labels only); nil when
    /// the layout places labels itself.
    var labels: [LabelMark]?
    var labelsDropped = 0
}

/// Keeps markers and bubbles continuous from frame to frame while every frame is clustered anew.
///
/// Each frame's clusters come from its own positions; this pass, run over the frames in order,
/// decides what is *shown*:
/// - A point's target is its own position when it stands alone, its bubble's shown centre when it
///   is inside one. When that changes between two frames (it joins a bubble, leaves one, or its
///   bubble is replaced by another), the point starts from where it was shown and reaches the
///   target in `settleFrames` frames, the remaining offset shrinking linearly. Its presence
///   (marker size and opacity) goes the same way from 1 to 0 (travelling into a bubble) or from
///   0 to 1 (released from the bubble's centre).
/// - Bubbles are matched to the previous frame's by shared points: a bubble continues the one it
///   shares most points with (that one's best match wins when two claim it). A bubble whose
///   points changed starts from the previous bubble's shown centre and radius and settles the
///   same way; a bubble split off another starts at that one's centre with radius 0; a new bubble
///   grows from radius 0 (except in the first frame). A bubble left unmatched (merged into
///   another, or dissolved into points) stays as a ghost for `settleFrames` frames, shrinking to
///   nothing while it moves to the bubble that took most of its points.
///
/// So between two frames a shown position moves at most by its target's step plus
/// (its offset when the change began) / `settleFrames`, and presence and radius change by at
/// most 1 / `settleFrames` of their range.
///
/// - Complexity: O(points + bubbles) per frame, memory O(ids).
struct ClusterContinuity {
    let settleFrames: Int
    let cluster: Style.Cluster

    private struct PointState {
        var frame = -1
        var x = 0.0, y = 0.0, presence = 0.0
        var group = -1
        var offX = 0.0, offY = 0.0, offPresence = 0.0
        var step = 0
    }

    private struct BubbleState {
        var x: Double, y: Double, radius: Double
        var count: Int
        var hash: UInt64
        var offX: Double, offY: Double, offR: Double
        var step: Int
    }

    private struct Ghost {
        var track: Int
        var x0: Double, y0: Double, r0: Double
        var x: Double, y: Double
        var heir: Int?
        var count: Int
        var aggregates: [String: Double]
        var step: Int
    }

    private var points: [PointState]
    private var bubbles: [Int: BubbleState] = [:]
    private var ghosts: [Ghost] = []
    private var nextTrack = 0
    private var lastFrame = -1

    init(keyCount: Int, settleFrames: Int, cluster: Style.Cluster) {
        self.settleFrames = max(1, settleFrames)
        self.cluster = cluster
        points = Array(repeating: PointState(), count: keyCount)
    }

    /// The remaining share of an offset `step` frames after it began.
    private func remaining(_ step: Int) -> Double {
        step >= settleFrames ? 0 : 1 - Double(step) / Double(settleFrames)
    }

    /// Plans frame `f`, which must follow the previously planned one.
    mutating func plan(_ f: ClusteredFrame) -> FramePlan {
        precondition(f.index == lastFrame + 1, "frames must be planned in order")
        let k = f.index
        let first = k == 0
        lastFrame = k
        let n = f.count
        let keys = f.source.keys

        // Members of each bubble, and which previous bubbles they come from.
        var members = [[Int]](repeating: [], count: f.bubbles.count)
        for i in 0..<n where f.membership[i] >= 0 { members[Int(f.membership[i])].append(i) }
        var predecessor = [Int?](repeating: nil, count: f.bubbles.count)
        var claim: [Int: (bubble: Int, overlap: Int)] = [:]
        var heirOf: [Int: (bubble: Int, overlap: Int)] = [:]
        for b in f.bubbles.indices {
            var shared: [Int: Int] = [:]
            for i in members[b] {
                let p = points[keys[i]]
                if p.frame == k - 1 && p.group >= 0 { shared[p.group, default: 0] += 1 }
            }
            var best: (track: Int, overlap: Int)?
            for (t, c) in shared {
                if best == nil || c > best!.overlap || (c == best!.overlap && t < best!.track) { best = (t, c) }
                if let h = heirOf[t] {
                    if c > h.overlap { heirOf[t] = (b, c) }
                } else {
                    heirOf[t] = (b, c)
                }
            }
            guard let best else { continue }
            predecessor[b] = best.track
            if let c = claim[best.track] {
                if best.overlap > c.overlap { claim[best.track] = (b, best.overlap) }
            } else {
                claim[best.track] = (b, best.overlap)
            }
        }

        // Bubbles: continue, restart from the predecessor, split off, or grow in.
        var track = [Int](repeating: -1, count: f.bubbles.count)
        var shownBubble = [(x: Double, y: Double, r: Double)](repeating: (0, 0, 0), count: f.bubbles.count)
        var newStates: [Int: BubbleState] = [:]
        var planned: [FramePlan.Bubble] = []
        for (b, bubble) in f.bubbles.enumerated() {
            let target = cluster.step(for: bubble.count).radius
            var hash: UInt64 = 0
            for i in members[b] { hash = hash &+ AnimationMath.mix(keys[i]) }
            var s = BubbleState(x: bubble.x, y: bubble.y, radius: target, count: bubble.count, hash: hash,
                                offX: 0, offY: 0, offR: 0, step: settleFrames)
            if let t = predecessor[b], let prev = bubbles[t] {
                if claim[t]?.bubble == b {
                    track[b] = t
                    if prev.hash == hash && prev.count == bubble.count {
                        s.offX = prev.offX; s.offY = prev.offY; s.offR = prev.offR
                        s.step = min(prev.step + 1, settleFrames)
                    } else {
                        s.offX = prev.x - bubble.x; s.offY = prev.y - bubble.y; s.offR = prev.radius - target
                        s.step = 1
                    }
                } else {
                    // Split off `t`: leaves its centre, growing.
                    s.offX = prev.x - bubble.x; s.offY = prev.y - bubble.y; s.offR = -target
                    s.step = 1
                }
            } else if !first {
                s.offR = -target
                s.step = 1
            }
            if track[b] < 0 {
                track[b] = nextTrack
                nextTrack += 1
            }
            let w = remaining(s.step)
            let shown = (x: bubble.x + s.offX * w, y: bubble.y + s.offY * w, r: max(0, target + s.offR * w))
            shownBubble[b] = shown
            let state = BubbleState(x: shown.x, y: shown.y, radius: shown.r, count: s.count, hash: s.hash,
                                    offX: s.offX, offY: s.offY, offR: s.offR, step: s.step)
            newStates[track[b]] = state
            planned.append(.init(x: shown.x, y: shown.y, radius: shown.r, targetRadius: target, count: bubble.count,
                                 aggregates: bubble.aggregates, ghost: false, track: track[b]))
        }

        // Ghosts: previous bubbles nobody continued shrink away towards their heir.
        var trackIndex: [Int: Int] = [:]
        for b in track.indices { trackIndex[track[b]] = b }
        var nextGhosts: [Ghost] = []
        for var g in ghosts {
            g.step += 1
            if g.step < settleFrames { nextGhosts.append(g) }
        }
        for t in bubbles.keys.sorted() where claim[t] == nil {
            let prev = bubbles[t]!
            let heir = heirOf[t].map { track[$0.bubble] }
            nextGhosts.append(Ghost(track: t, x0: prev.x, y0: prev.y, r0: prev.radius, x: prev.x, y: prev.y,
                                    heir: heir, count: prev.count, aggregates: [:], step: 1))
        }
        var ghostPlans: [FramePlan.Bubble] = []
        for i in nextGhosts.indices {
            var g = nextGhosts[i]
            let done = 1 - remaining(g.step)
            if let h = g.heir, let b = trackIndex[h] {
                g.x = g.x0 + (shownBubble[b].x - g.x0) * done
                g.y = g.y0 + (shownBubble[b].y - g.y0) * done
            }
            nextGhosts[i] = g
            let r = g.r0 * (1 - done)
            if r > 0 {
                ghostPlans.append(.init(x: g.x, y: g.y, radius: r, targetRadius: cluster.step(for: g.count).radius,
                                        count: g.count, aggregates: g.aggregates, ghost: true, track: g.track))
            }
        }
        ghosts = nextGhosts
        bubbles = newStates

        // Points.
        var shownX = [Double](repeating: 0, count: n), shownY = [Double](repeating: 0, count: n)
        var presence = [Double](repeating: 0, count: n)
        var groups = [Int](repeating: -1, count: n)
        var opacity = [Double](repeating: 0, count: n), scale = [Double](repeating: 0, count: n)
        var drawn: [Int] = []
        drawn.reserveCapacity(n)
        for i in 0..<n {
            let key = keys[i]
            var p = points[key]
            let b = Int(f.membership[i])
            let tx: Double, ty: Double, tp: Double, group: Int
            if b >= 0 {
                (tx, ty, tp, group) = (shownBubble[b].x, shownBubble[b].y, 0, track[b])
            } else {
                (tx, ty, tp, group) = (f.ux[i], f.source.y[i], 1, -1)
            }
            if p.frame == k - 1 && !first {
                if group != p.group {
                    p.offX = p.x - tx; p.offY = p.y - ty; p.offPresence = p.presence - tp
                    p.step = 1
                } else {
                    p.step = min(p.step + 1, settleFrames)
                }
            } else {
                p.offX = 0; p.offY = 0; p.offPresence = 0
                p.step = settleFrames
            }
            let w = remaining(p.step)
            p.x = tx + p.offX * w
            p.y = ty + p.offY * w
            p.presence = min(1, max(0, tp + p.offPresence * w))
            p.group = group
            p.frame = k
            points[key] = p
            shownX[i] = p.x; shownY[i] = p.y; presence[i] = p.presence; groups[i] = group
            opacity[i] = f.source.opacity[i] * p.presence
            scale[i] = f.source.scale[i] * p.presence
            // Quantised to 1/16 when drawn: below half a step nothing would show.
            if opacity[i] >= 1.0 / 32 && scale[i] > 0 { drawn.append(i) }
        }

        return FramePlan(index: k, viewport: f.viewport, points: f.source.points, keys: keys,
                         shownX: shownX, shownY: shownY, presence: presence, group: groups, opacity: opacity, scale: scale,
                         drawn: drawn, bubbles: ghostPlans + planned, labels: nil)
    }
}
