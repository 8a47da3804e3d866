import Foundation
import MapRenderCore

/// One frame clustered from its own positions, at its view's zoom, exactly as a single render
/// would cluster those points (supercluster semantics, same query box).
struct ClusteredFrame: Sendable {
    struct Bubble: Sendable {
        /// World units; x unwrapped near the view's centre.
        var x: Double, y: Double
        var count: Int
        var aggregates: [String: Double]
    }

    var index: Int
    var viewport: Viewport
    var source: SourceFrame
    /// Each point's world x unwrapped near the view's centre (continuous from frame to frame).
    var ux: [Double]
    /// Per point: the bubble it is in, or -1 when it stands alone (or clustering is off).
    var membership: [Int32]
    var bubbles: [Bubble]

    var count: Int { source.count }

    /// Makes frame `k`: positions from the source, then clusters.
    static func make(_ k: Int, source: AnimationSource, views: AnimationView.Views, base: RenderRequest) -> ClusteredFrame {
        let s = source.frame(k)
        let v = views.viewports[k]
        let center = views.unwrappedCenter[k]
        func unwrap(_ x: Double) -> Double { center + AnimationMath.shortDelta(from: center, to: x) }
        var frame = ClusteredFrame(index: k, viewport: v, source: s, ux: s.x.map(unwrap),
                                   membership: [Int32](repeating: -1, count: s.count), bubbles: [])
        guard base.clustering != nil, s.count > 0 else { return frame }
        // Points fading in or out take part in clusters only while at least half visible, so a
        // keyframe's deletions and insertions change the clusters mid-transition, not all at its end.
        let inClusters = (0..<s.count).filter { s.opacity[$0] >= 0.5 }
        guard !inClusters.isEmpty else { return frame }
        let all = inClusters.count == s.count
        let points = all ? s.points : s.points.selecting(inClusters)
        guard let clustered = ViewClusters.make(points: points, clustering: base.clustering,
                                                aggregates: base.aggregates, viewport: v) else { return frame }
        for item in clustered.items where item.isCluster {
            guard let members = clustered.index.members(of: item.id), !members.isEmpty else { continue }
            let b = Int32(frame.bubbles.count)
            for i in members { frame.membership[all ? i : inClusters[i]] = b }
            frame.bubbles.append(Bubble(x: unwrap(item.x), y: item.y, count: item.count, aggregates: item.aggregates))
        }
        return frame
    }
}
