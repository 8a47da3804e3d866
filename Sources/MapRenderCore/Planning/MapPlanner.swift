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
        // The points' box, made once: a refit below reuses it.
        let box = options.view.fitsData ? ViewChoice.dataBox(data, options) : nil
        var viewport = ViewChoice.viewport(options, data: data, box: box)
        lap("fit")
        var firstMarks: MarkPlan?
        var duplicates: [[Int]]?
        var refitted = false
        var index: ClusterIndex?
        if options.view.fitsZoom, points.count > 0 {
            // Spread rings and bubbles reach further than a marker: when they leave the padded
            // image, fit again with that much more room on those sides (once).
            let probe: MarkPlan
            // (Icons that hide one another group by the view, as a tolerance does: `MarkPlanner.iconStacks`.)
            if options.clustering == nil && options.spread.tolerance <= 0 && !data.styles.symbols.contains(where: { $0.icon != nil }) {
                // Without clusters, only marks near the edges can leave the image, and the groups
                // of points sharing a coordinate do not depend on the view: planning all points
                // for this view and again for the refitted one cost 2x this stage whenever a
                // spread group touched the edge (1M pins: 95 of 330 ms).
                let groups = MarkPlanner.duplicateGroups(data)
                duplicates = groups
                probe = MarkPlanner.plan(viewport: viewport, data: data, clusters: nil, leaves: { _ in nil },
                                         spread: options.spread, bubbles: style.cluster,
                                         only: nearEdges(data: data, viewport: viewport, padding: options.padding,
                                                         spread: options.spread, bubbles: style.cluster, groups: groups))
            } else {
                let first = marksAndClusters(data: data, viewport: viewport, options: options, style: style)
                probe = first.marks
                firstMarks = first.marks
                index = first.clusters?.index
            }
            let over = overflow(of: probe, data: data, viewport: viewport, padding: options.padding,
                                bubbleStroke: style.cluster.strokeWidth)
            if over != .zero {
                viewport = ViewChoice.viewport(options, data: data, box: box, extraPadding: over)
                firstMarks = nil
                refitted = true
            }
        }
        var marks = firstMarks ?? marksAndClusters(data: data, viewport: viewport, options: options, style: style,
                                                   reusing: index, duplicates: duplicates).marks
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
                             rank: BubbleNaming.rankColumn(options.labelPriority, properties: data.points.properties),
                             label: options.labelField.flatMap(data.points.properties.columnIndex))
    }

    /// Clusters at the view's zoom (supercluster semantics) and where every point goes.
    public static func marks(data: ProjectedPoints, viewport: Viewport, options: PlanOptions, style: Style) -> MarkPlan {
        marksAndClusters(data: data, viewport: viewport, options: options, style: style).marks
    }

    /// `marks`, and the clusters they come from (an animation frame needs each bubble's members).
    /// - Parameter reusing: an index built for these points and options on an earlier view, used
    ///   again when it was built down to this view's zoom.
    public static func marksAndClusters(data: ProjectedPoints, viewport: Viewport, options: PlanOptions,
                                        style: Style, reusing: ClusterIndex? = nil,
                                        duplicates: [[Int]]? = nil) -> (marks: MarkPlan, clusters: ViewClusters?) {
        let clustered = ViewClusters.make(points: data.points, projected: (data.x, data.y), clustering: options.clustering,
                                          aggregates: options.aggregates, viewport: viewport, reusing: reusing)
        let index = clustered?.index
        // With ranked labels, each bubble is named after its most important point.
        let naming = options.labelField == nil ? nil
            : (rank: BubbleNaming.rankColumn(options.labelPriority, properties: data.points.properties),
               label: options.labelField.flatMap(data.points.properties.columnIndex))
        let marks = MarkPlanner.plan(viewport: viewport, data: data, clusters: clustered?.items,
                                     leaves: { id in index?.members(of: id) },
                                     oneCoordinatePossible: { id in index?.mayHoldOneCoordinate(clusterID: id) ?? true },
                                     spread: options.spread,
                                     bubbles: style.cluster, naming: naming, duplicates: duplicates)
        return (marks, clustered)
    }

    /// With clustering off and exact duplicates only: the points whose marks may reach within a
    /// pixel of the padded image's edge or beyond it (`overflow` of their plan is that of all
    /// points). A lone point's marker lies within the largest symbol's box of it; a group's
    /// (`groups`: points sharing a coordinate) within its ring or spiral for its count and that
    /// box, or its bubble; a group is all in or all out. Ascending.
    static func nearEdges(data: ProjectedPoints, viewport v: Viewport, padding: Double,
                          spread: SpreadOptions, bubbles: Style.Cluster, groups: [[Int]]) -> [Int] {
        let largest = data.styles.extent
        // A pixel more for a group's mean position, and the half pixel `overflow` forgives.
        let boxReach = max(largest.top, largest.right, largest.bottom, largest.left) + 2
        let separation = ColocatedSpreader.separation(for: largest)
        let bubbleReach = (bubbles.steps.map(\.radius).max() ?? 0) + bubbles.strokeWidth / 2
        var reachByCount: [Int: Double] = [:]
        func reach(count n: Int) -> Double {
            if let r = reachByCount[n] { return r }
            var r = bubbleReach
            if n <= spread.maximum {
                r = 0
                for o in ColocatedSpreader.offsets(count: n, separation: separation) {
                    r = max(r, (o.dx * o.dx + o.dy * o.dy).squareRoot())
                }
            }
            reachByCount[n] = r + boxReach
            return r + boxReach
        }
        /// Whether marks within `r` of pixel (x, y) may come near an edge (NaN: yes).
        func near(_ x: Double, _ y: Double, _ r: Double) -> Bool {
            !(x > padding + r && x < v.width - padding - r && y > padding + r && y < v.height - padding - r)
        }
        var grouped = [Bool](repeating: false, count: data.x.count)
        var out: [Int] = []
        for g in groups {
            for i in g { grouped[i] = true }
            let p = v.pixel(x: data.x[g[0]], y: data.y[g[0]])
            if near(p.x, p.y, reach(count: g.count)) { out += g }
        }
        for i in data.x.indices where !grouped[i] {
            let p = v.pixel(x: data.x[i], y: data.y[i])
            if near(p.x, p.y, boxReach) { out.append(i) }
        }
        out.sort()
        return out
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
