/// The clusters and single points one view shows, and the index that knows their members.
///
/// supercluster's `getClusters` at the view's floored zoom, in the view's bounds widened by a
/// bubble, so a cluster whose bubble reaches into the view is kept. Single maps and animation
/// frames cluster through this one function.
public struct ViewClusters: Sendable {
    /// In supercluster's result order.
    public var items: [ClusterItem]
    public var index: ClusterIndex

    /// Pixels the query box reaches beyond the view besides the cluster radius: a bubble's radius.
    public static let bubbleMargin = 40.0

    /// nil when clustering is off, there are no points, or the view is above the cluster max zoom.
    /// - Parameter projected: the points in world units when already projected (planning's `ProjectedPoints`).
    public static func make(points: PointSet, projected: (x: [Double], y: [Double])? = nil,
                            clustering: ClusterOptions?, aggregates: [ClusterAggregate],
                            viewport: Viewport, reusing built: ClusterIndex? = nil) -> ViewClusters? {
        guard let opts = clustering, points.count > 0 else { return nil }
        let zoom = Int(max(0, viewport.zoom).rounded(.down))
        guard zoom <= opts.maxZoom else { return nil }
        // One view needs only its own zoom and the links down to the points. A view planned again
        // at the same floored zoom (a refit with more padding) queries the index already built for
        // these points: building it is nearly all of the clustering stage.
        let downTo = max(opts.minZoom, zoom)
        let index = built.flatMap { $0.lowestBuiltZoom == downTo ? $0 : nil }
            ?? ClusterIndex(points: points, projected: projected, options: opts, aggregates: aggregates,
                            downTo: downTo, retainAllZooms: false)
        let items = index.clusters(in: viewport.bounds(margin: opts.radius + bubbleMargin), zoom: viewport.zoom)
        return ViewClusters(items: items, index: index)
    }
}
