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
    /// What was chosen for the user, one line each, for stderr (`maprender: note: ...`): the
    /// column that ranks labels when `--label-priority` is not given.
    public var notes: [String] = []
}

/// The pipeline: read → plan (view, clusters, marks) → layout (scene) → Cairo → bytes.
///
/// `render` is safe to call from many threads at once: each thread has its own Pango font map
/// (`PangoText.forCurrentThread`), and each call its own surfaces.
public enum MapRenderer {
    /// Renders to bytes (PNG, SVG or PDF, as `request.format`), no file written.
    public static func render(_ request: RenderRequest) throws -> RenderResult {
        // A render with one thread keeps every loop of the pipeline on it (`Work.serial`).
        if request.threads == 1 && !Work.serial { return try Work.$serial.withValue(true) { try render(request) } }
        // The style's icon files, read and checked before anything else (kept when loaded with the style).
        var request = request
        try IconLoader.load(style: &request.style)
        var timings: [String: Double] = [:]
        var clock = DispatchTime.now().uptimeNanoseconds
        func lap(_ stage: String) {
            let now = DispatchTime.now().uptimeNanoseconds
            timings[stage, default: 0] += Double(now - clock) / 1e6
            clock = now
        }
        try validate(request)
        TileStage.warmUp(request)

        let input = try readPoints(request)
        if input.points.count == 0 && input.shapes.isEmpty && request.points == nil && !request.allowEmpty {
            throw emptyResult(request, report: input.report)
        }
        // The built-in land is the fallback when the map has no basemap of its own: no
        // --basemap file and no raster tiles (which it would cover).
        let useDefaultBasemap = request.defaultBasemap && request.tiles.sources.isEmpty && request.basemapStyle == nil
        var basemaps = try request.basemaps.isEmpty ? [] : request.basemaps.map { try BasemapCache.shapes(path: $0) }
        var warnings = input.warnings
        lap("read")

        var planOptions = request.planOptions
        planOptions.shapes = FitSamples(shapes: input.shapes)
        let plan = MapPlanner.plan(points: input.points, style: request.style, options: planOptions,
                                   opacity: request.filter == nil ? request.pointOpacity : nil,
                                   scale: request.filter == nil ? request.pointScale : nil, lap: lap)
        if let issue = plan.data.styles.strictIssues.first, request.strict {
            throw MapRenderError(.style, "\(issue) (--strict)")
        }
        warnings += plan.data.styles.issues
        switch request.view {
        case .fit, .fitAround:
            if input.points.count == 0 && input.shapes.isEmpty { warnings.append("no points to draw; showing the whole world") }
        default: break
        }

        // Raster tiles: they depend on the view; drawn first, under the basemap GeoJSON and data.
        // The built-in land's scale follows the view's zoom (1:110m for world views, 1:50m closer).
        if request.basemaps.isEmpty && useDefaultBasemap { basemaps = DefaultBasemap.sets(zoom: plan.viewport.zoom, style: request.style) }
        let tiles = try TileStage.run(request, viewport: plan.viewport)
        warnings += tiles?.warnings ?? []
        lap("tiles")

        // --basemap-style: its layers over the raster tiles, under the --basemap files and the data.
        let styled = try BasemapStyleStage.run(request, viewport: plan.viewport)
        var style = request.style
        if let s = styled {
            warnings += s.warnings
            lap("basemap")
        }

        // This thread's font map, kept warm between maps (serve's workers, batch jobs).
        let text = PangoText.forCurrentThread(systemFonts: request.systemFonts)
        var layers = MapLayer.standard(style: style, rasters: tiles?.marks ?? [], basemaps: basemaps,
                                       shapes: input.shapes, shapeLabels: input.labelled)
        var layoutOptions = TileStage.layout(request.layout, tiles: tiles)
        layoutOptions.markerSymbols = true
        if let s = styled {
            BasemapStyleStage.apply(s, request: request, overTiles: tiles?.marks.isEmpty == false, layers: &layers, style: &style,
                                    options: &layoutOptions)
        }
        let scene = MapLayout.scene(viewport: plan.viewport, scale: request.scale, style: style,
                                    data: plan.data, plan: plan.marks, layers: layers,
                                    options: layoutOptions, measurer: CachingTextMeasurer(text))
        lap("layout")
        warnings += scene.warnings + text.warnings
        if let w = Self.noPointInView(request.view, data: plan.data, scene: scene) { warnings.append(w) }
        if plan.marks.spreadFallbacks > 0 {
            warnings.append("\(plan.marks.spreadFallbacks) spread group\(plan.marks.spreadFallbacks == 1 ? "" : "s") found no room and \(plan.marks.spreadFallbacks == 1 ? "is" : "are") drawn as a bubble with its count")
        }

        let data = try CairoRenderer(text: text, threads: request.threads).render(scene, format: request.format, quality: request.quality)
        lap("render")

        var summary = RenderSummary(request: request, report: input.report, plan: plan, shapes: input.shapes, scene: scene,
                                    timings: timings, bytes: data.count)
        summary.tiles = tiles?.stats
        summary.basemapStyle = styled?.summary
        var result = RenderResult(data: data, scene: scene, viewport: plan.viewport, summary: summary, warnings: warnings)
        result.notes = Self.labelRankingNote(request.layout, properties: plan.data.points.properties).map { [$0] } ?? []
        return result
    }

    /// With labels and no `--label-priority`: which column ranks them (`BubbleNaming.rankColumn`),
    /// said once, so that a user knows why Delhi is named before a village; nil when none does.
    static func labelRankingNote(_ layout: LayoutOptions, properties: PropertyTable) -> String? {
        guard layout.labelField != nil, layout.labelPriority == nil,
              let r = BubbleNaming.rankColumn(nil, properties: properties) else { return nil }
        let name = properties.names[r.column]
        return "labels ranked by the '\(name)' column, \(r.smallerFirst ? "smaller" : "larger") values first (--label-priority chooses another)"
    }

    /// A warning when a view given by hand (`--center`, with or without `--zoom`, or `--bbox`)
    /// shows none of the points: an empty map is what latitude and longitude given the other way
    /// round make, so it says where the points are and the order the option takes. Longitudes go
    /// the short way round (`177.42 to -171.77 (across 180°)` for Fiji, Tonga and Samoa), as a `--bbox`
    /// of them would. Nil when the view is fitted to the data, when there are no points, or when
    /// anything of them is drawn (a marker or a bubble).
    static func noPointInView(_ view: ViewSpec, data: ProjectedPoints, scene: Scene) -> String? {
        if case .fit = view { return nil }
        let points = data.points
        guard points.count > 0, scene.markers.allSatisfy({ $0.count == 0 }), scene.bubbles.isEmpty,
              let b = GeoBounds.enclosing(x: data.x, latitudes: points.lat) else { return nil }
        func f(_ v: Double) -> String { String(format: "%.6g", v) }
        func range(_ a: Double, _ b: Double) -> String { f(a) == f(b) ? f(a) : "\(f(a)) to \(f(b))" }
        let order: String
        if case .bbox = view { order = "--bbox takes WEST,SOUTH,EAST,NORTH" } else { order = "--center takes LAT,LON" }
        let place = "latitude \(range(b.south, b.north)), longitude \(range(b.west, b.east))"
            + (b.crossesAntimeridian ? " (across 180°)" : "") + " (\(order))"
        let n = points.count
        return n == 1 ? "the only point is not in the view: it lies at " + place
            : "none of the \(n) points are in the view: they lie at " + place
    }

    /// The request's points (given, or read from its files) after its filter, with what reading saw.
    static func readPoints(_ request: RenderRequest) throws -> (points: PointSet, shapes: ShapeSet, report: InputReport, warnings: [String],
                                                                 labelled: [ShapeLabels]) {
        var report = InputReport(source: (request.inputs + request.inlineInputs.map(\.name)).joined(separator: ", "))
        var warnings: [String] = []
        var points: PointSet
        var shapes = ShapeSet()
        if let given = request.points {
            points = given
            report.pointsRead = given.count
            report.recordsRead = given.count
        } else {
            var opts = request.inputOptions
            opts.keepProperties = (opts.keepProperties ?? []).union(request.neededProperties)
            // A still map draws no id; lines may join points by it (`--line-by id`).
            opts.keepIDs = request.pointLines.map { [request.inputOptions.idField?.lowercased() ?? "id"].contains($0.field.lowercased()) } ?? false
            opts.keepShapes = true  // and every geometry
            var all: PointSet? = nil
            let sources = request.inputs.map { (name: $0, data: Data?.none) } + request.inlineInputs.map { (name: $0.name, data: Optional($0.data)) }
            for (n, (path, inline)) in sources.enumerated() {
                opts.memoryLimit = RenderBounds.readingLimit(request, pointsSoFar: all?.count ?? 0)
                let loaded = try inline.map { try PointReader.read(data: $0, name: path, options: opts) }
                    ?? PointReader.read(path: path, options: opts)
                try strictText(loaded.report, request.strict)
                warnings += loaded.report.warnings()
                if n == 0 { report = loaded.report; report.source = sources.map(\.name).joined(separator: ", ") } else { report.merge(loaded.report) }
                if all == nil { all = loaded.points } else { all!.append(contentsOf: loaded.points) }
                if shapes.isEmpty { shapes = loaded.shapes } else { shapes.append(contentsOf: loaded.shapes) }
            }
            points = all ?? PointSet()
        }
        try InputFieldCheck.check(request, filter: nil, points: points, shapes: shapes)
        if let w = InputFieldCheck.legendWarning(request) { warnings.append(w) }
        if let f = request.filter {
            let bound = f.bind(to: points.properties)
            var keep: [Int] = [], notBoolean = ValueIssue(key: "--filter")
            for row in 0..<points.count {
                let v = bound.evaluate(row: row)
                switch v {
                case .bool(true): keep.append(row)
                case .bool(false), .null: break
                default: notBoolean.note(row, "gave \(v), not true or false; the point is left out")
                }
            }
            if let issue = notBoolean.message {
                if request.strict || keep.isEmpty {
                    throw MapRenderError(.style, issue + (request.strict ? " (--strict)"
                        : #"; a filter must give a boolean, e.g. ["==", ["get", "type"], "city"]"#))
                }
                warnings.append(issue)
            }
            report.filteredOut = points.count - keep.count
            if keep.count != points.count { points = points.selecting(keep) }
            if !shapes.isEmpty {
                let bound = f.bind(to: shapes.properties)
                let kept = (0..<shapes.shapeCount).filter { bound.evaluate(row: shapes.propertyRow(of: $0)).truthy }
                report.filteredOut += shapes.shapeCount - kept.count
                if kept.count != shapes.shapeCount { shapes = shapes.selecting(kept) }
            }
        }
        if let field = request.layout.labelField, let c = points.properties.columnIndex(field),
           let row = points.properties.columns[c].firstIndex(where: {
               if case .string(let t) = $0 { return LabelText.hasNoncharacter(t) } else { return false } }) {
            // Cairo's PDF writer refuses them; every format draws U+FFFD instead (`LabelText`).
            warnings.append("label text of point \(row) (and maybe others) holds Unicode noncharacters (U+FFFE, U+FFFF, U+FDD0–U+FDEF...): drawn as U+FFFD")
        }
        // Labels on the lines and polygons read (not on the circles and arcs made from labelled
        // points below: their points carry the label).
        var labelled: [ShapeLabels] = []
        if let field = request.layout.labelField, !shapes.isEmpty { labelled.append(ShapeLabels(shapes: shapes, field: field)) }
        if request.numberMarkers {
            let field = request.pointLines?.field
            MarkerNumbers(orderBy: request.pointLines?.orderBy, groupBy: field?.isEmpty == false ? field : nil).apply(to: &points)
        }
        // Shapes made from the rows: geodesic circles around the points, great-circle arcs
        // from them, lines joining them; all drawn by the data's layers, under the points.
        if let circles = request.pointCircles {
            let made = circles.circles(from: points)
            if shapes.isEmpty { shapes = made.shapes } else { shapes.append(contentsOf: made.shapes) }
            if let w = made.skipped.message { warnings.append(w) }
        }
        if let arcs = request.pointArcs {
            let made = arcs.arcs(from: points)
            if shapes.isEmpty { shapes = made.shapes } else { shapes.append(contentsOf: made.shapes) }
            if let w = made.skipped.message { warnings.append(w) }
        }
        if let joined = request.pointLines, !joined.field.isEmpty {
            // Points joined into lines: drawn under the points, or instead of them.
            let lines = joined.lines(from: points)
            if shapes.isEmpty { shapes = lines } else { shapes.append(contentsOf: lines) }
            // Named by the value that joined them, with labels on.
            if request.layout.labelField != nil, !lines.isEmpty { labelled.append(ShapeLabels(shapes: lines, field: joined.field)) }
        }
        if request.lineOnly { points = PointSet() }
        return (points, shapes, report, warnings, labelled)
    }

    /// Renders and writes the file atomically; the summary's timings include the write.
    @discardableResult
    ///
    /// `beforeCommit` gets the result once the file is written in full beside `path` but before
    /// it replaces anything (e.g. to write the summary): when it throws, `path` is left as it was.
    public static func render(_ request: RenderRequest, to path: String,
                              beforeCommit: (RenderResult) throws -> Void = { _ in }) throws -> RenderResult {
        var result = try render(request)
        let start = DispatchTime.now().uptimeNanoseconds
        let staged = try AtomicFile.stage(result.data, to: path)
        result.summary.timings["write"] = Double(DispatchTime.now().uptimeNanoseconds - start) / 1e6
        result.summary.output = path
        do { try beforeCommit(result) } catch { staged.discard(); throw error }
        try staged.commit()
        return result
    }

    /// With `--strict`, text that is not valid UTF-8 is an error rather than a warning.
    static func strictText(_ report: InputReport, _ strict: Bool) throws {
        if strict, let problem = report.invalidUTF8Problem {
            throw MapRenderError(.inputMalformed, problem + " (--strict)")
        }
    }

    /// Nothing left to draw from the input files: an error, so a good map is not replaced by an
    /// empty one. It says why by reason (`none of 2 records has valid coordinates: 1 latitude
    /// outside -90..90, 1 coordinate is not a number`), with a hint where one helps.
    static func emptyResult(_ r: RenderRequest, report: InputReport) -> MapRenderError {
        let files = (r.inputs + r.inlineInputs.map(\.name)).joined(separator: ", ")
        var why: String
        if report.filteredOut > 0 {
            why = "--filter kept none of \(report.filteredOut) \(report.shapesRead > 0 ? "features" : "points")"
        } else if report.pointsRead == 0 && report.recordsRead > 0 {
            why = "none of \(report.recordsRead) records has valid coordinates"
            if !report.skipped.isEmpty {
                why += ": " + report.skipped.keys.sorted().map { "\(report.skipped[$0]!) \($0.rawValue)" }.joined(separator: ", ")
            }
            if report.skipped[.longitudeOutOfRange] == report.skippedTotal, !r.inputOptions.wrapLongitude {
                why += "; for 0..360 longitudes use --wrap-longitude"
            }
        } else {
            why = "the input holds no points, lines or polygons"
        }
        return MapRenderError(.inputMalformed,
                              "\(files): no points to draw (\(why)); nothing written (--allow-empty writes an empty map)")
    }

    /// The checks of `RenderOptionTable` for a request built in code (the CLI and manifests
    /// check each value as it is read, with the same limits).
    static func validate(_ r: RenderRequest) throws {
        let side = Double(RenderOptionTable.sizeLimit)
        guard r.width >= 1, r.height >= 1, r.width <= side, r.height <= side else {
            throw MapRenderError(.usage, "size must be between 1x1 and \(Int(side))x\(Int(side)), got \(Int(r.width))x\(Int(r.height))")
        }
        guard r.scale >= 0.1, r.scale <= 8, r.width * r.scale <= 32767, r.height * r.scale <= 32767 else {
            throw MapRenderError(.usage, "scale must be in 0.1...8 and the image at most 32767 pixels per side")
        }
        guard r.maxZoom >= 0, r.maxZoom <= RenderOptionTable.zoomLimit else {
            throw MapRenderError(.usage, "max zoom must be in 0...\(Int(RenderOptionTable.zoomLimit)), got \(r.maxZoom)")
        }
        switch r.view {
        case .center(_, _, let z), .fit(let z?):
            guard z >= 0, z <= RenderOptionTable.zoomLimit else {
                throw MapRenderError(.usage, "zoom must be in 0...\(Int(RenderOptionTable.zoomLimit)), got \(z)")
            }
        default: break
        }
        if let l = r.pointLines, l.field.isEmpty, !r.numberMarkers {
            throw MapRenderError(.usage, "--order-by orders the points of --line-by's lines or --number-markers' numbers: give --line-by or --number-markers too")
        }
        if let a = r.pointArcs, a.latField.isEmpty || a.lonField.isEmpty {
            throw MapRenderError(.usage, a.latField.isEmpty ? "--to-lon names the arcs' destination longitude: give --to-lat too"
                                 : "--to-lat names the arcs' destination latitude: give --to-lon too")
        }
        if r.lineOnly && r.pointLines == nil && r.pointArcs == nil {
            throw MapRenderError(.usage, "--line-only draws --line-by's lines (or --to-lat/--to-lon's arcs) without the points: give --line-by or --to-lat and --to-lon too")
        }
        if r.points == nil && r.inputs.isEmpty && r.inlineInputs.isEmpty {
            throw MapRenderError(.usage, "no input file given")
        }
        try RenderBounds.check(r)
    }
}
