import Foundation
import MapRenderCore

/// One frame planned exactly as a still map of its points is planned (the same clusters for the
/// view, bubbles, spread groups and marker positions, through `MapPlanner`): what the frame shows
/// once every effect has settled, and what `ClusterContinuity` moves towards.
///
/// Points fading in or out take part in planning only while at least half visible (so a keyframe's
/// deletions and insertions change the clusters mid-transition, not all at its end); fainter ones
/// are drawn at their own position.
struct RestFrame: Sendable {
    var index: Int
    /// Map time (see `FrameTimeline`).
    var time: Double
    /// Whether every effect must be over in this frame (a keyframe, a track's start or end).
    var atRest: Bool
    var viewport: Viewport
    /// The view's centre x without the fold into [0, 1) (continuous from frame to frame).
    var centerX: Double
    var source: SourceFrame
    /// The still map's mark plan of the frame's points (point indexes are the frame's).
    var marks: MarkPlan
    /// Per point: its marker in `marks`, or -1.
    var marker: [Int32]
    /// Per point: the bubble of `marks` it is in, or -1.
    var bubble: [Int32]
    /// Per point: too faint to take part in planning (drawn at its own position).
    var faint: [Bool]

    var count: Int { source.count }

    /// World position (x unwrapped near `centerX`) of a pixel of this frame's view.
    func world(px: Double, py: Double) -> (x: Double, y: Double) {
        let ws = viewport.worldSize
        return (centerX + (px - viewport.width / 2) / ws, viewport.centerY + (py - viewport.height / 2) / ws)
    }

    /// Pixel of a world position (x unwrapped near `centerX`).
    func pixel(x: Double, y: Double) -> (x: Double, y: Double) {
        let ws = viewport.worldSize
        return ((x - centerX) * ws + viewport.width / 2, (y - viewport.centerY) * ws + viewport.height / 2)
    }

    /// Plans frame `k`.
    static func make(_ k: Int, source: AnimationSource, views: AnimationView.Views, timeline: FrameTimeline,
                     base: RenderRequest) -> RestFrame {
        let s = source.frame(k)
        let v = views.viewports[k]
        let n = s.count
        let planned = (0..<n).filter { s.opacity[$0] >= 0.5 }
        let all = planned.count == n
        let points = all ? s.points : s.points.selecting(planned)
        // Planning reads marker sizes (spread rings make room for them), not opacities.
        let scale = all ? s.scale : planned.map { s.scale[$0] }
        let data = ProjectedPoints(points: points, style: base.style,
                                   scale: scale.contains { $0 < 1 } ? scale : nil)
        let options = base.planOptions
        let (subMarks, clusters) = MapPlanner.marksAndClusters(data: data, viewport: v, options: options, style: base.style)
        var marks = subMarks
        // The same final step as a still map's plan, so a frame at rest is the still map.
        MapPlanner.settle(&marks, data: data, viewport: v, options: options, style: base.style)
        if !all { remap(&marks, to: planned) }

        var marker = [Int32](repeating: -1, count: n)
        for (m, i) in marks.markerPoint.enumerated() { marker[i] = Int32(m) }
        let bubble = membership(marks, clusters: clusters, marker: marker, data: data, viewport: v,
                                frameIndex: { all ? $0 : planned[$0] }, count: n)
        var faint = [Bool](repeating: false, count: n)
        if !all { for i in 0..<n where s.opacity[i] < 0.5 { faint[i] = true } }
        return RestFrame(index: k, time: timeline.times[k], atRest: timeline.isRest(frame: k), viewport: v,
                         centerX: views.unwrappedCenter[k], source: s, marks: marks, marker: marker,
                         bubble: bubble, faint: faint)
    }

    /// Per frame point: the bubble of `marks` it is in, or -1. A cluster's members come from the
    /// index; a colocated group too large to spread (no cluster id) takes the singles that are in
    /// no marker and no cluster, each to its nearest such bubble.
    static func membership(_ marks: MarkPlan, clusters: ViewClusters?, marker: [Int32], data: ProjectedPoints,
                           viewport v: Viewport, frameIndex: (Int) -> Int, count n: Int) -> [Int32] {
        var bubble = [Int32](repeating: -1, count: n)
        var groupBubbles: [Int] = []
        for (b, item) in marks.bubbles.enumerated() {
            guard let id = item.clusterID else { groupBubbles.append(b); continue }
            for j in clusters?.index.members(of: id) ?? [] { bubble[frameIndex(j)] = Int32(b) }
        }
        guard !groupBubbles.isEmpty else { return bubble }
        let singles: [Int] = clusters.map { $0.items.compactMap(\.pointIndex) } ?? Array(0..<data.points.count)
        for j in singles {
            let i = frameIndex(j)
            guard marker[i] < 0, bubble[i] < 0 else { continue }
            let p = v.pixel(x: data.x[j], y: data.y[j])
            let nearest = groupBubbles.min { a, b in
                let da = hypot(marks.bubbles[a].x - p.x, marks.bubbles[a].y - p.y)
                let db = hypot(marks.bubbles[b].x - p.x, marks.bubbles[b].y - p.y)
                return da != db ? da < db : a < b
            }!
            bubble[i] = Int32(nearest)
        }
        return bubble
    }

    /// Point indexes of a plan made for a subset (`planned[j]` is subset point j) → the frame's.
    static func remap(_ marks: inout MarkPlan, to planned: [Int]) {
        marks.markerPoint = marks.markerPoint.map { planned[$0] }
        for g in marks.spreadGroups.indices {
            marks.spreadGroups[g].members = marks.spreadGroups[g].members.map { planned[$0] }
        }
        for b in marks.bubbles.indices {
            marks.bubbles[b].representative = marks.bubbles[b].representative.map { planned[$0] }
        }
    }
}
