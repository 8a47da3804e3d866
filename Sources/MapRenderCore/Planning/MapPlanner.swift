import Foundation

/// Points + options → a `MapPlan`: project and style, choose the view, cluster for it, plan the
/// marks, and when spread rings or bubbles leave the padded image, fit again with room for them.
///
/// ```swift
/// var options = PlanOptions()
/// options.width = 800; options.height = 600
/// let plan = MapPlanner.plan(points: loaded.points, style: .default, options: options)
/// print(plan.viewport.zoom, plan.marks.bubbles.count)
/// ```
public enum MapPlanner {
    /// - Parameters:
    ///   - opacity, scale: per-point factors in 0...1 (animation fading and growing in).
    ///   - lap: called after each step ("project", "fit", "cluster"), for timings.
    public static func plan(points: PointSet, style: Style, options: PlanOptions,
                            opacity: [Double]? = nil, scale: [Double]? = nil,
                            lap: (String) -> Void = { _ in }) -> MapPlan {
        let data = ProjectedPoints(points: points, style: style, opacity: opacity, scale: scale)
        lap("project")
        var viewport = ViewChoice.viewport(options, data: data)
        lap("fit")
        let first = marksAndClusters(data: data, viewport: viewport, options: options, style: style)
        var marks = first.marks
        var refitted = false
        if options.view.fitsZoom, points.count > 0 {
            // Spread rings and bubbles reach further than a marker: when they leave the padded
            // image, fit again with that much more room on those sides (once).
            let over = overflow(of: marks, data: data, viewport: viewport, padding: options.padding,
                                bubbleStroke: style.cluster.strokeWidth)
            if over != .zero {
                viewport = ViewChoice.viewport(options, data: data, extraPadding: over)
                marks = marksAndClusters(data: data, viewport: viewport, options: options, style: style,
                                         reusing: first.clusters?.index).marks
                refitted = true
            }
        }
        settle(&marks, data: data, viewport: viewport, options: options, style: style)
        lap("cluster")
        return MapPlan(viewport: viewport, data: data, marks: marks, refitted: refitted)
    }

    /// The last step on a final view (after any refit), for every map and every animation frame:
    /// a spread group with no room for its ring or spiral takes a compact layout, or is drawn as a
    /// bubble with its count (`SpreadFallback`).
    public static func settle(_ marks: inout MarkPlan, data: ProjectedPoints, viewport: Viewport,
                              options: PlanOptions, style: Style) {
        SpreadFallback.apply(to: &marks, data: data, viewport: viewport, bubbles: style.cluster,
                             naming: options.labelField != nil,
                             rank: BubbleNaming.rankColumn(options.labelPriority, properties: data.points.properties))
    }

    /// Clusters at the view's zoom (supercluster semantics) and where every point goes.
    public static func marks(data: ProjectedPoints, viewport: Viewport, options: PlanOptions, style: Style) -> MarkPlan {
        marksAndClusters(data: data, viewport: viewport, options: options, style: style).marks
    }

    /// `marks`, and the clusters they come from (an animation frame needs each bubble's members).
    /// - Parameter reusing: an index built for these points and options on an earlier view, used
    ///   again when it was built down to this view's zoom.
    public static func marksAndClusters(data: ProjectedPoints, viewport: Viewport, options: PlanOptions,
                                        style: Style, reusing: ClusterIndex? = nil) -> (marks: MarkPlan, clusters: ViewClusters?) {
        let clustered = ViewClusters.make(points: data.points, projected: (data.x, data.y), clustering: options.clustering,
                                          aggregates: options.aggregates, viewport: viewport, reusing: reusing)
        let index = clustered?.index
        // With ranked labels, each bubble is named after its most important point.
        let naming = options.labelField == nil ? nil
            : (rank: BubbleNaming.rankColumn(options.labelPriority, properties: data.points.properties), ())
        let marks = MarkPlanner.plan(viewport: viewport, data: data, clusters: clustered?.items,
                                     leaves: { id in index?.members(of: id) }, spread: options.spread,
                                     bubbles: style.cluster, naming: naming)
        return (marks, clustered)
    }

    /// How far the plan's marks (markers with their extent, bubbles with half their stroke) reach
    /// beyond the padded image, per side; sides within half a pixel count as zero.
    public static func overflow(of plan: MarkPlan, data: ProjectedPoints, viewport v: Viewport, padding: Double,
                                bubbleStroke: Double) -> EdgeInsets {
        var minX = Double.infinity, minY = Double.infinity, maxX = -Double.infinity, maxY = -Double.infinity
        for k in plan.markerPoint.indices {
            let e = data.styles.symbols[Int(data.styles.index[plan.markerPoint[k]])].extent
            minX = min(minX, plan.markerX[k] - e.left); maxX = max(maxX, plan.markerX[k] + e.right)
            minY = min(minY, plan.markerY[k] - e.top); maxY = max(maxY, plan.markerY[k] + e.bottom)
        }
        for b in plan.bubbles {
            let r = b.radius + bubbleStroke / 2
            minX = min(minX, b.x - r); maxX = max(maxX, b.x + r)
            minY = min(minY, b.y - r); maxY = max(maxY, b.y + r)
        }
        guard minX.isFinite else { return .zero }
        let tolerance = 0.5
        func over(_ d: Double) -> Double { d > tolerance ? d : 0 }
        return EdgeInsets(top: over(padding - minY), right: over(maxX - (v.width - padding)),
                          bottom: over(maxY - (v.height - padding)), left: over(padding - minX))
    }
}
