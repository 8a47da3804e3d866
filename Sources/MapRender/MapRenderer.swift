import Foundation
import MapRenderCairo
import MapRenderCore

/// The result of one render: the image bytes, what was done, and warnings for the user.
public struct RenderResult: Sendable {
    public var data: Data
    public var scene: Scene
    public var viewport: Viewport
    public var summary: RenderSummary
    /// Skipped rows and similar, one line each, for stderr.
    public var warnings: [String]
}

/// The pipeline: input → model → projection → view → layout (scene) → Cairo → bytes.
///
/// `render` is safe to call from many threads at once: each call owns its Pango font map and surfaces.
public enum MapRenderer {
    /// Renders to bytes (PNG, SVG or PDF, as `request.format`), no file written.
    public static func render(_ request: RenderRequest) throws -> RenderResult {
        var timings: [String: Double] = [:]
        var clock = DispatchTime.now().uptimeNanoseconds
        func lap(_ stage: String) {
            let now = DispatchTime.now().uptimeNanoseconds
            timings[stage, default: 0] += Double(now - clock) / 1e6
            clock = now
        }
        try validate(request)

        // Input
        var report = InputReport(source: request.inputs.joined(separator: ", "))
        var warnings: [String] = []
        var points: PointSet
        if let given = request.points {
            points = given
            report.pointsRead = given.count
            report.recordsRead = given.count
        } else {
            var opts = request.inputOptions
            opts.keepProperties = (opts.keepProperties ?? []).union(request.neededProperties)
            var all: PointSet? = nil
            for (n, path) in request.inputs.enumerated() {
                let loaded = try PointReader.read(path: path, options: opts)
                warnings += loaded.report.warnings()
                if n == 0 { report = loaded.report; report.source = request.inputs.joined(separator: ", ") } else { report.merge(loaded.report) }
                if all == nil { all = loaded.points } else { all!.append(contentsOf: loaded.points) }
            }
            points = all ?? PointSet()
        }
        if let f = request.filter {
            let bound = f.bind(to: points.properties)
            let keep = (0..<points.count).filter { bound.evaluate(row: $0).truthy }
            report.filteredOut = points.count - keep.count
            if keep.count != points.count { points = points.selecting(keep) }
        }
        let basemaps = try request.basemaps.isEmpty ? (request.defaultBasemap ? [DefaultBasemap.shapes] : [])
            : request.basemaps.map { try BasemapCache.shapes(path: $0) }
        lap("read")

        // Projection
        let projected = ProjectedPoints(points: points, style: request.style,
                                        opacity: request.filter == nil ? request.pointOpacity : nil,
                                        scale: request.filter == nil ? request.pointScale : nil)
        lap("project")

        // View
        var viewport = view(for: request, projected: projected)
        if points.count == 0, case .fit = request.view {
            warnings.append("no points to draw; showing the whole world")
        }
        lap("fit")

        // Clustering and spreading: one consistent state per render, never mutated afterwards.
        var plan = planMarks(request, viewport: viewport, data: projected)
        if case .fit(nil) = request.view, points.count > 0 {
            // Spread rings and bubbles reach further than a marker: when they leave the padded
            // image, fit again with that much more room on those sides (once).
            let overflow = overflow(of: plan, data: projected, viewport: viewport, padding: request.padding,
                                    bubbles: request.style.cluster)
            if overflow != .zero {
                viewport = ViewFitter.fit(xs: projected.x, ys: projected.y, width: request.width, height: request.height,
                                          extent: projected.styles.extent,
                                          padding: EdgeInsets(all: request.padding) + overflow, maxZoom: request.maxZoom)
                plan = planMarks(request, viewport: viewport, data: projected)
            }
        }
        lap("cluster")

        // Layout
        let text = PangoText()
        let measurer = CachingTextMeasurer(text)
        let scene = MapLayout.scene(viewport: viewport, scale: request.scale, style: request.style,
                                    data: projected, plan: plan, basemaps: basemaps, options: request.layout,
                                    measurer: measurer)
        lap("layout")
        warnings += scene.warnings

        // Drawing and encoding
        let data = try CairoRenderer(text: text).render(scene, format: request.format)
        lap("render")

        let b = viewport.bounds
        let markersDrawn = scene.markers.reduce(0) { $0 + $1.count }
        let bubblesDrawn = scene.bubbles
        let spreadSizes = plan.spreadGroups.map(\.members.count)
        var summary = RenderSummary(
            input: RenderSummary.input(files: request.inputs, report: report),
            pointsDrawn: markersDrawn,
            clusters: .init(drawn: bubblesDrawn.count, pointsInside: bubblesDrawn.reduce(0) { $0 + $1.count },
                            spreadGroups: spreadSizes.count, spreadPoints: spreadSizes.reduce(0, +),
                            spreadGroupSizes: Dictionary(spreadSizes.map { (String($0), 1) }, uniquingKeysWith: +),
                            pointsOutsideView: points.count - markersDrawn - bubblesDrawn.reduce(0) { $0 + $1.count }),
            view: .init(center: [viewport.centerLongitude, viewport.centerLatitude], zoom: viewport.zoom,
                        bounds: [b.west, b.south, b.east, b.north], size: [viewport.width, viewport.height],
                        scale: request.scale),
            marks: scene.markCounts, timings: timings, output: nil, format: request.format.rawValue, bytes: data.count)
        summary.labelsDropped = scene.labelsDropped
        return RenderResult(data: data, scene: scene, viewport: viewport, summary: summary, warnings: warnings)
    }

    /// Renders and writes the file atomically; the summary's timings include the write.
    @discardableResult
    public static func render(_ request: RenderRequest, to path: String) throws -> RenderResult {
        var result = try render(request)
        let start = DispatchTime.now().uptimeNanoseconds
        try AtomicFile.write(result.data, to: path)
        result.summary.timings["write"] = Double(DispatchTime.now().uptimeNanoseconds - start) / 1e6
        result.summary.output = path
        return result
    }

    static func validate(_ r: RenderRequest) throws {
        guard r.width >= 1, r.height >= 1, r.width <= 16384, r.height <= 16384 else {
            throw MapRenderError(.usage, "size must be between 1x1 and 16384x16384, got \(Int(r.width))x\(Int(r.height))")
        }
        guard r.scale > 0, r.scale <= 8, r.width * r.scale <= 32767, r.height * r.scale <= 32767 else {
            throw MapRenderError(.usage, "scale must be in (0, 8] and the image at most 32767 pixels per side")
        }
        guard r.maxZoom >= 0, r.maxZoom <= 24 else {
            throw MapRenderError(.usage, "max zoom must be in 0...24, got \(r.maxZoom)")
        }
        if r.points == nil && r.inputs.isEmpty {
            throw MapRenderError(.usage, "no input file given")
        }
    }

    /// Clusters at the view's zoom (supercluster semantics) and where every point goes.
    static func planMarks(_ request: RenderRequest, viewport: Viewport, data: ProjectedPoints) -> MarkPlan {
        let clustered = clusters(of: data.points, request: request, viewport: viewport)
        let index = clustered?.index
        // With ranked labels, each bubble is named after its most important point.
        let naming = request.layout.labelField == nil ? nil
            : (rank: BubbleNaming.rankColumn(request.layout.labelPriority, properties: data.points.properties), ())
        return MarkPlanner.plan(viewport: viewport, data: data, clusters: clustered?.items,
                                leaves: { id in index?.members(of: id) }, spread: request.spread, naming: naming)
    }

    /// How far the plan's marks (markers with their extent, bubbles) reach beyond the padded image, per side.
    static func overflow(of plan: MarkPlan, data: ProjectedPoints, viewport v: Viewport, padding: Double,
                         bubbles: Style.Cluster) -> EdgeInsets {
        var minX = Double.infinity, minY = Double.infinity, maxX = -Double.infinity, maxY = -Double.infinity
        for k in plan.markerPoint.indices {
            let e = data.styles.symbols[Int(data.styles.index[plan.markerPoint[k]])].extent
            minX = min(minX, plan.markerX[k] - e.left); maxX = max(maxX, plan.markerX[k] + e.right)
            minY = min(minY, plan.markerY[k] - e.top); maxY = max(maxY, plan.markerY[k] + e.bottom)
        }
        for b in plan.bubbles {
            let r = bubbles.step(for: b.count).radius + bubbles.strokeWidth / 2
            minX = min(minX, b.x - r); maxX = max(maxX, b.x + r)
            minY = min(minY, b.y - r); maxY = max(maxY, b.y + r)
        }
        guard minX.isFinite else { return .zero }
        let tolerance = 0.5
        func over(_ d: Double) -> Double { d > tolerance ? d : 0 }
        return EdgeInsets(top: over(padding - minY), right: over(maxX - (v.width - padding)),
                          bottom: over(maxY - (v.height - padding)), left: over(padding - minX))
    }

    /// The clusters and single points one view shows (supercluster's getClusters at the view's
    /// floored zoom, in its bounds widened by a bubble), and the index for their members; nil when
    /// clustering is off, there are no points, or the view is above the cluster max zoom.
    /// Used by every render, single maps and animation frames alike.
    static func clusters(of points: PointSet, request: RenderRequest, viewport: Viewport)
        -> (items: [ClusterItem], index: ClusterIndex)? {
        guard let opts = request.clustering, points.count > 0 else { return nil }
        let zoom = Int(max(0, viewport.zoom).rounded(.down))
        guard zoom <= opts.maxZoom else { return nil }
        // One view needs only its own zoom and the links down to the points.
        let index = ClusterIndex(points: points, options: opts, aggregates: request.aggregates,
                                 downTo: max(opts.minZoom, zoom), retainAllZooms: false)
        return (index.clusters(in: queryBounds(viewport, margin: opts.radius + 40), zoom: viewport.zoom), index)
    }

    /// The view's bounds widened by `margin` pixels, so clusters whose bubble reaches into the view are kept.
    static func queryBounds(_ v: Viewport, margin: Double) -> GeoBounds {
        let tl = v.world(px: -margin, py: -margin), br = v.world(px: v.width + margin, py: v.height + margin)
        if br.x - tl.x >= 1 {
            return GeoBounds(west: -180, south: WebMercator.lat(y: min(max(br.y, 0), 1)),
                             east: 180, north: WebMercator.lat(y: min(max(tl.y, 0), 1)))
        }
        func lon(_ x: Double) -> Double {
            var l = WebMercator.lon(x: x)
            while l > 180 { l -= 360 }
            while l < -180 { l += 360 }
            return l
        }
        return GeoBounds(west: lon(tl.x), south: WebMercator.lat(y: min(max(br.y, 0), 1)),
                         east: lon(br.x), north: WebMercator.lat(y: min(max(tl.y, 0), 1)))
    }

    static func view(for r: RenderRequest, projected p: ProjectedPoints) -> Viewport {
        switch r.view {
        case .center(let lat, let lon, let zoom):
            return ViewFitter.center(lat: lat, lon: lon, zoom: zoom, width: r.width, height: r.height)
        case .bbox(let b):
            return ViewFitter.fit(bounds: b, width: r.width, height: r.height)
        case .fit(let zoom):
            var v = ViewFitter.fit(xs: p.x, ys: p.y, width: r.width, height: r.height,
                                   extent: p.styles.extent, padding: EdgeInsets(all: r.padding), maxZoom: r.maxZoom)
            if let z = zoom { v.zoom = z }
            return v
        }
    }
}
