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
        let points: PointSet
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
        let basemaps = try request.basemaps.map { try ShapeReader.read(path: $0) }
        lap("read")

        // Projection
        let projected = ProjectedPoints(points: points, style: request.style)
        lap("project")

        // View
        let viewport = view(for: request, projected: projected)
        if points.count == 0, case .fit = request.view {
            warnings.append("no points to draw; showing the whole world")
        }
        lap("fit")

        // Layout
        let text = PangoText()
        let measurer = CachingTextMeasurer(text)
        let scene = MapLayout.scene(viewport: viewport, scale: request.scale, style: request.style,
                                    data: projected, basemaps: basemaps, options: request.layout, measurer: measurer)
        lap("layout")

        // Drawing and encoding
        let data = try CairoRenderer(text: text).render(scene, format: request.format)
        lap("render")

        let b = viewport.bounds
        let summary = RenderSummary(
            input: RenderSummary.input(files: request.inputs, report: report),
            pointsDrawn: scene.markers.reduce(0) { $0 + $1.count },
            view: .init(center: [viewport.centerLongitude, viewport.centerLatitude], zoom: viewport.zoom,
                        bounds: [b.west, b.south, b.east, b.north], size: [viewport.width, viewport.height],
                        scale: request.scale),
            marks: scene.markCounts, timings: timings, output: nil, format: request.format.rawValue, bytes: data.count)
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
