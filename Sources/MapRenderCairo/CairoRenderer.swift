import CCairo
import CImageCodec
import Foundation
import MapRenderCore

/// Draws a `Scene` to PNG, JPEG, WebP, SVG or PDF bytes. It knows nothing of clustering or data: only marks.
///
/// Raster output stamps pre-rendered markers (`MarkerStamps`); SVG and PDF keep vector markers,
/// one definition per symbol reused for every marker (a recording surface that Cairo emits once),
/// except an SVG batch with more than 10,000 markers of one symbol, written as merged paths
/// (`MergedMarkers`: librsvg refuses 500,000 referenced elements).
public final class CairoRenderer {
    private let text: PangoText
    /// Threads one render may composite markers on; nil: the cores (one thread: a server that
    /// runs a render per core already).
    private let threads: Int?
    /// Thin solid lines of raster output drawn into the pixels by `ThinLineRaster`; false: every
    /// line through `cairo_stroke` (tests compare the two).
    var directThinLines = true

    /// - Parameters:
    ///   - text: the Pango engine that measured the scene's labels (same fonts, same sizes).
    ///   - threads: threads for compositing markers; nil uses the cores. The bytes are the same.
    public init(text: PangoText, threads: Int? = nil) {
        self.text = text
        self.threads = threads
    }

    /// - Parameter quality: JPEG and WebP quality, 1...100 (100: lossless WebP); nil is
    ///   `OutputFormat.defaultQuality`. Ignored by the other formats.
    public func render(_ scene: Scene, format: OutputFormat, quality: Int? = nil) throws -> Data {
        let devW = max(1, Int((scene.width * scene.scale).rounded(.up)))
        let devH = max(1, Int((scene.height * scene.scale).rounded(.up)))
        if let limit = [OutputFormat.jpeg: 65500, .webp: 16383][format], max(devW, devH) > limit {
            throw MapRenderError(.usage, "\(format == .jpeg ? "JPEG" : "WebP") images are at most \(limit) pixels per side; this one would be \(devW)x\(devH) (--size times --scale): choose a smaller size or PNG")
        }
        let sink = ByteSink()
        let closure = Unmanaged.passUnretained(sink).toOpaque()
        let surface: OpaquePointer
        switch format {
        case .png, .jpeg, .webp:
            surface = cairo_image_surface_create(CAIRO_FORMAT_ARGB32, Int32(devW), Int32(devH))
        case .svg:
            surface = cairo_svg_surface_create_for_stream(byteSinkWrite, closure, Double(devW), Double(devH))
            cairo_svg_surface_restrict_to_version(surface, CAIRO_SVG_VERSION_1_1)
            cairo_svg_surface_set_document_unit(surface, CAIRO_SVG_UNIT_PX)
        case .pdf:
            surface = cairo_pdf_surface_create_for_stream(byteSinkWrite, closure, Double(devW), Double(devH))
            // Fixed metadata: without it Cairo embeds the current time and the PDF changes every run.
            cairo_pdf_surface_set_metadata(surface, CAIRO_PDF_METADATA_CREATE_DATE, "2000-01-01T00:00:00Z")
            cairo_pdf_surface_set_metadata(surface, CAIRO_PDF_METADATA_MOD_DATE, "2000-01-01T00:00:00Z")
            cairo_pdf_surface_set_metadata(surface, CAIRO_PDF_METADATA_CREATOR, "maprender")
        }
        defer { cairo_surface_destroy(surface) }
        try cairoCheck(cairo_surface_status(surface), "creating the \(format.rawValue) surface")
        let cr = cairo_create(surface)!
        try draw(scene, on: cr, raster: format.isRaster, svg: format == .svg)
        let status = cairo_status(cr)
        cairo_destroy(cr)
        try cairoCheck(status, "drawing")
        if format.isRaster {
            cairo_surface_flush(surface)
            guard let pixels = cairo_image_surface_get_data(surface) else {
                throw MapRenderError(.internal, "cairo: the image surface has no pixels")
            }
            let stride = cairo_image_surface_get_stride(surface)
            switch format {
            case .jpeg, .webp:
                sink.data = try Self.encode(pixels, width: devW, height: devH, stride: stride, format: format,
                                            quality: quality ?? OutputFormat.defaultQuality)
            default:
                do {
                    sink.data = try ImageCodec.encodePNG(argb32: pixels, width: devW, height: devH, stride: Int(stride))
                } catch {
                    throw MapRenderError(.internal, "encoding the PNG failed: \(error)")
                }
            }
        } else {
            cairo_surface_finish(surface)
            try cairoCheck(cairo_surface_status(surface), "writing \(format.rawValue)")
        }
        withExtendedLifetime(sink) {}
        if format == .svg { return SVGNormalizer.normalizeIDs(sink.data) }
        return sink.data
    }

    /// JPEG (libjpeg-turbo) or WebP (libwebp) bytes of a Cairo ARGB32 image; see mr_image_codec.h
    /// for the fixed settings that make them deterministic.
    static func encode(_ pixels: UnsafeMutablePointer<UInt8>, width: Int, height: Int, stride: Int32,
                       format: OutputFormat, quality: Int) throws -> Data {
        var out: UnsafeMutablePointer<UInt8>?
        var length = 0
        var error = [CChar](repeating: 0, count: 256)
        let q = Int32(min(max(quality, 1), 100))
        let status = format == .jpeg
            ? mr_jpeg_write_argb32(pixels, Int32(width), Int32(height), stride, q, &out, &length, &error, error.count)
            : mr_webp_write_argb32(pixels, Int32(width), Int32(height), stride, q, &out, &length, &error, error.count)
        guard status == 0, let out else {
            let library = format == .jpeg ? "libjpeg" : "libwebp"
            let reason = String(decoding: error.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
            throw MapRenderError(.internal, "\(library): cannot encode the \(format == .jpeg ? "JPEG" : "WebP") image: \(reason)")
        }
        defer { mr_image_free(out) }
        return Data(bytes: out, count: length)
    }

    func draw(_ scene: Scene, on cr: OpaquePointer, raster: Bool, svg: Bool = false) throws {
        let s = scene.scale
        cairo_scale(cr, s, s)
        if let w = scene.world {
            // Beyond ±85.05° (and beyond one world's width) is not sea: letterbox it.
            scene.letterbox.setSource(cr)
            cairo_paint(cr)
            cairo_rectangle(cr, w.x, w.y, w.width, w.height)
            scene.background.setSource(cr)
            cairo_fill(cr)
        } else {
            scene.background.setSource(cr)
            cairo_paint(cr)
        }
        let rasters = RasterPainter()
        let thin = raster && directThinLines ? ThinLineRaster(root: cr) : nil
        // A run of line and fill batches with many paths is drawn in bands of rows on the cores.
        var banded = -1   // items before this index were drawn in bands
        for (at, item) in scene.items.enumerated() {
            if at < banded { continue }
            switch item {
            case .shapes:
                if raster, let end = bandedRunEnd(scene.items, from: at), drawInBands(scene.items[at..<end], world: scene.world, cr) {
                    banded = end
                    continue
                }
            default: break
            }
            switch item {
            case .shapes(let b):
                drawShapes(b, cr, rasters: rasters, inside: scene.world, thin: thin)
            case .markers(let m):
                if raster {
                    let stamps = try MarkerStamps(symbols: m.symbols, scale: s, text: text)
                    try withSavedState(cr) {
                        cairo_identity_matrix(cr)
                        try stamps.paint(m, on: cr, scale: s, bands: threads.map { $0 <= 1 ? 1 : 4 * $0 })
                    }
                } else if !(svg && MergedMarkers.applies(to: m) && MergedMarkers.draw(m, on: cr)) {
                    drawVectorMarkers(m, cr)
                }
            case .label(let l):
                if l.opacity < 1 {
                    // A faded label: drawn into a group as large as the label (ink overhang and
                    // halo included) and its leader, then painted with its opacity.
                    let m = l.haloWidth + 1.19 * l.haloBlur + l.height / 2
                    cairo_save(cr)
                    cairo_rectangle(cr, l.x - m, l.y - m, l.width + 2 * m, l.height + 2 * m)
                    if let line = l.leader { let b = line.bounds; cairo_rectangle(cr, b.x - 1, b.y - 1, b.width + 2, b.height + 2) }
                    cairo_clip(cr)
                    cairo_push_group(cr)
                }
                if let line = l.leader { drawLeader(line, color: l.color, cr) }
                text.draw(l.text, font: l.font, color: l.color, halo: l.halo, haloWidth: l.haloWidth, haloBlur: l.haloBlur,
                          x: l.x, y: l.y, maxWidth: l.maxWidth, centered: l.maxWidth != nil, justify: l.justify, on: cr)
                if l.opacity < 1 {
                    cairo_pop_group_to_source(cr)
                    cairo_paint_with_alpha(cr, l.opacity)
                    cairo_restore(cr)
                }
            case .pathLabel(let l):
                if l.opacity < 1 { cairo_push_group(cr) }
                text.draw(l, on: cr)
                if l.opacity < 1 {
                    cairo_pop_group_to_source(cr)
                    cairo_paint_with_alpha(cr, l.opacity)
                }
            case .bubbles(let b): drawBubbles(b, cr)
            case .callout(let c): drawCallout(c, cr)
            case .scaleBar(let b): drawScaleBar(b, cr)
            case .legend(let l): drawLegend(l, cr)
            case .legs(let l): drawLegs(l, cr)
            case .raster(let r): rasters.draw(r, on: cr)
            case .textBox(let t):
                cairo_rectangle(cr, t.box.x, t.box.y, t.box.width, t.box.height)
                t.background.setSource(cr)
                cairo_fill(cr)
                withSavedState(cr) {
                    cairo_rectangle(cr, t.box.x, t.box.y, t.box.width, t.box.height)
                    cairo_clip(cr)
                    text.draw(t.text, font: t.font, color: t.color, halo: nil, haloWidth: 0,
                              x: t.box.x + t.padding, y: t.box.y + t.padding, on: cr)
                }
            }
        }
    }

    /// A name's leader line (`LeaderLine`): a hairline in the name's colour, round ends, under its text.
    private func drawLeader(_ line: LeaderLine, color: RGBA, _ cr: OpaquePointer) {
        withSavedState(cr) {
            cairo_new_path(cr)
            cairo_move_to(cr, line.x0, line.y0)
            cairo_line_to(cr, line.x1, line.y1)
            cairo_set_line_width(cr, line.width)
            cairo_set_line_cap(cr, CAIRO_LINE_CAP_ROUND)
            color.setSource(cr)
            cairo_stroke(cr)
        }
    }

    /// Paths in a run of shape batches from which it is drawn in bands (`drawInBands`).
    public static let bandedPaths = 2000
    /// Or vertices, in a run of data layers' batches (`fillsPathsApart`): Cairo strokes an
    /// outline at about 5,000 instructions a vertex (a 1:50m choropleth of Europe: 10k vertices
    /// in 214 paths, 56 M instructions of its outlines). Not the built-in land's run (one
    /// even-odd path of its countries): drawn in bands by this rule, a 200k-point map over it
    /// came out a few bytes different from the one-thread map (`OneThreadRenderTests`).
    public static let bandedVertices = 8_000

    /// The end of the run of `.shapes` items from `start` when it holds at least `bandedPaths`
    /// paths, else nil.
    private func bandedRunEnd(_ items: [SceneItem], from start: Int) -> Int? {
        var end = start, paths = 0, vertices = 0, data = true
        while end < items.count, case .shapes(let b) = items[end] {
            paths += b.pathCount; vertices += b.coords.count / 2; data = data && b.fillsPathsApart
            end += 1
        }
        return paths >= Self.bandedPaths || (data && vertices >= Self.bandedVertices) ? end : nil
    }

    /// Draws shape batches in horizontal bands of the image's rows, several bands a core, each through a
    /// Cairo context of its own over its rows of the one image (`cairo_image_surface_create_for_data`
    /// at the band's first row, the transformation moved up by as many whole pixels); false, and
    /// nothing drawn, when the target is not a plain unclipped ARGB32 image drawn with OVER, or one
    /// thread is asked for.
    ///
    /// Why: 10k translucent great-circle arcs of 100 widths are 10k batches Cairo strokes one by
    /// one on one core (render was 0.77 s of a 1.0 s map). A pixel's value depends only on the
    /// strokes and fills over it, in their order, and Cairo computes a pixel's coverage from the
    /// path in device space: a band moved by whole pixels gives the same bits as the whole image
    /// (`ShapeBandTests` compares them at 1, 2, 3 and 8 threads).
    ///
    /// Four bands a thread, taken by the threads as they come free: flows between cities lie
    /// mostly in the northern half of a world map, and with one band a core the top band's
    /// thread drew six pixels in seven (perf samples) while the other waited. A thin-line batch
    /// (`ThinLineRaster`) is left out of the bands whose rows it cannot reach, decided once; a
    /// batch Cairo draws, of the bands it cannot reach by its vertices' rows (`reaches`).
    private func drawInBands(_ items: ArraySlice<SceneItem>, world: Rect?, _ cr: OpaquePointer) -> Bool {
        let cores = max(1, min(8, ProcessInfo.processInfo.activeProcessorCount))
        let count = min(threads ?? cores, 8)
        guard count > 1, let image = PlainImage(cr), image.height >= 2 * count else { return false }
        let (target, base, w, h, stride) = (image.target, image.pixels, image.width, image.height, image.stride)
        var matrix = cairo_matrix_t()
        cairo_get_matrix(cr, &matrix)
        cairo_surface_flush(target)
        let bands = max(count, min(4 * count, h / 32))
        let rows = (h + bands - 1) / bands
        let batches = items.compactMap { if case .shapes(let b) = $0 { return b } else { return nil } }
        // Fill patterns draw from a surface cache of one thread: not in bands.
        guard !batches.contains(where: { $0.paint.pattern != nil }) else { return false }
        // Per batch, the rows it reaches when drawn as thin lines; nil: by Cairo, in the bands
        // it may reach (`reaches`).
        let whole = directThinLines ? ThinLineRaster(pixels: base, width: w, stride: stride, height: h, rows: 0..<h, matrix: matrix) : nil
        let reached = batches.map { whole?.rowsReached($0) }
        let cull = matrix.xy == 0 && matrix.yx == 0 && matrix.yy > 0 && matrix.yy.isFinite && matrix.y0.isFinite
        let yRanges = cull ? batches.map(Self.yRange) : []
        DispatchQueue.concurrentPerform(iterations: bands) { band in
            let top = band * rows, bottom = min(h, top + rows)
            guard top < bottom else { return }
            let surface = cairo_image_surface_create_for_data(base + top * stride, CAIRO_FORMAT_ARGB32,
                                                              Int32(w), Int32(bottom - top), Int32(stride))!
            let bcr = cairo_create(surface)!
            let rasters = RasterPainter()
            // Thin lines into the band's rows, in the whole image's coordinates.
            let thin = directThinLines ? ThinLineRaster(pixels: base, width: w, stride: stride, height: h, rows: top..<bottom, matrix: matrix) : nil
            var m = matrix
            m.y0 -= Double(top)
            cairo_set_matrix(bcr, &m)
            for (k, b) in batches.enumerated() {
                if let thin, let r = reached[k] {
                    if r.overlaps(top..<bottom) { _ = thin.draw(b, on: bcr, clip: world, applies: true) }
                } else if !cull || Self.reaches(b, yRanges[k], rows: top..<bottom, matrix: matrix) {
                    drawShapes(b, bcr, rasters: rasters, inside: world, thin: thin)
                }
            }
            cairo_destroy(bcr)
            cairo_surface_flush(surface)
            cairo_surface_destroy(surface)
        }
        cairo_surface_mark_dirty(target)
        return true
    }

    /// The least and greatest y of a batch's vertices (user space); NaN for none.
    static func yRange(_ b: ShapeBatch) -> (lo: Double, hi: Double) {
        b.coords.withUnsafeBufferPointer { c in
            var lo = Double.infinity, hi = -Double.infinity
            for k in Swift.stride(from: 1, to: c.count, by: 2) { lo = min(lo, c[k]); hi = max(hi, c[k]) }
            return lo <= hi ? (lo, hi) : (.nan, .nan)
        }
    }

    /// Whether batch `b`, its vertices' y in `y`, may reach `rows` of the image (`m` takes user
    /// space to the whole image's pixels, with no rotation or skew): false when they lie
    /// further from the rows than a stroke of it reaches (half its width times Cairo's miter
    /// limit, 10, plus 2 px of anti-aliasing). A batch that does not is drawn outside the band,
    /// which changes none of its pixels, so leaving it out keeps the band's bytes. (By batch,
    /// not by path: Cairo's choice of how to composite a stroke or fill depends on its extents,
    /// so a batch less some of its paths can round a pixel of the band differently; and thin
    /// lines decide by the whole batch whether they are drawn by `ThinLineRaster`.)
    /// Why: drawn whole in each band, a 1:50m choropleth of Europe's 214 countries (160
    /// batches, one per run of a colour) cost each core what one core took (with two bands
    /// culled, 45 and 44 M instructions on the two cores, was 88 on one).
    static func reaches(_ b: ShapeBatch, _ y: (lo: Double, hi: Double), rows: Range<Int>, matrix m: cairo_matrix_t) -> Bool {
        let reach = 5 * b.strokeWidth * m.yy + 2
        let lo = (Double(rows.lowerBound) - reach - m.y0) / m.yy, hi = (Double(rows.upperBound) + reach - m.y0) / m.yy
        return !(y.hi < lo || y.lo > hi)
    }

    /// A batch's line join and cap, set on `cr`.
    private func setJoinAndCap(_ p: ShapePaint, _ cr: OpaquePointer) {
        switch p.join {
        case .round: cairo_set_line_join(cr, CAIRO_LINE_JOIN_ROUND)
        case .bevel: cairo_set_line_join(cr, CAIRO_LINE_JOIN_BEVEL)
        case .miter: cairo_set_line_join(cr, CAIRO_LINE_JOIN_MITER)
        }
        switch p.cap {
        case .round: cairo_set_line_cap(cr, CAIRO_LINE_CAP_ROUND)
        case .butt: cairo_set_line_cap(cr, CAIRO_LINE_CAP_BUTT)
        case .square: cairo_set_line_cap(cr, CAIRO_LINE_CAP_SQUARE)
        }
    }

    /// A batch clipped to `world` (the world's extent on a letterboxed map), or unclipped; thin
    /// lines by `thin` when given (raster output).
    private func drawShapes(_ b: ShapeBatch, _ cr: OpaquePointer, rasters: RasterPainter, inside world: Rect?,
                            thin: ThinLineRaster?) {
        if let thin, thin.draw(b, on: cr, clip: world) { return }
        guard let world else { return drawShapes(b, cr, rasters: rasters) }
        withSavedState(cr) {
            cairo_rectangle(cr, world.x, world.y, world.width, world.height)
            cairo_clip(cr)
            drawShapes(b, cr, rasters: rasters)
        }
    }

    private func drawShapes(_ b: ShapeBatch, _ cr: OpaquePointer, rasters: RasterPainter) {
        if strokesInPieces(b, cr) { return }
        func addPath(_ path: Int, _ c: UnsafeBufferPointer<Double>) {
            for ring in b.pathRingStart[path]..<b.pathRingStart[path + 1] {
                let start = b.ringStart[ring], end = b.ringStart[ring + 1]
                cairo_move_to(cr, c[2 * start], c[2 * start + 1])
                for p in (start + 1)..<end { cairo_line_to(cr, c[2 * p], c[2 * p + 1]) }
                if b.kind == .polygon { cairo_close_path(cr) }
            }
        }
        cairo_new_path(cr)
        cairo_set_fill_rule(cr, CAIRO_FILL_RULE_EVEN_ODD)
        if b.kind == .polygon && b.fillsPathsApart && b.fill.a > 0 && b.paint.pattern == nil {
            // Each polygon filled on its own: overlapping features both show (one even-odd path
            // would cut the overlap out).
            b.fill.setSource(cr)
            b.coords.withUnsafeBufferPointer { c in
                for path in 0..<b.pathCount { addPath(path, c); cairo_fill(cr) }
            }
        }
        if b.kind == .polygon, let p = b.paint.pattern, b.fill.a > 0 {
            // fill-pattern: the image repeated from the world's corner, at its pixel ratio.
            b.coords.withUnsafeBufferPointer { c in
                for path in 0..<b.pathCount { addPath(path, c) }
            }
            withSavedState(cr) {
                let surface = rasters.surface(for: p.image)
                let pattern = cairo_pattern_create_for_surface(surface)!
                defer { cairo_pattern_destroy(pattern) }
                cairo_pattern_set_extend(pattern, CAIRO_EXTEND_REPEAT)
                cairo_pattern_set_filter(pattern, p.pixelRatio == 1 ? CAIRO_FILTER_NEAREST : CAIRO_FILTER_GOOD)
                var m = cairo_matrix_t()
                cairo_matrix_init_scale(&m, p.pixelRatio, p.pixelRatio)
                cairo_matrix_translate(&m, -b.paint.patternX, -b.paint.patternY)
                cairo_pattern_set_matrix(pattern, &m)
                if b.fill.a < 1 {
                    cairo_clip(cr)
                    cairo_set_source(cr, pattern)
                    cairo_paint_with_alpha(cr, b.fill.a)
                } else {
                    cairo_set_source(cr, pattern)
                    cairo_fill(cr)
                }
            }
            cairo_new_path(cr)
        }
        if b.kind == .line, let p = b.paint.pattern {
            if b.strokeWidth > 0 && b.stroke.a > 0 { strokePatterned(b, p, cr, rasters: rasters) }
            cairo_new_path(cr)
            return
        }
        b.coords.withUnsafeBufferPointer { c in
            for path in 0..<b.pathCount { addPath(path, c) }
        }
        setJoinAndCap(b.paint, cr)
        if b.kind == .polygon {
            if !b.fillsPathsApart && b.fill.a > 0 && b.paint.pattern == nil {
                b.fill.setSource(cr)
                cairo_fill_preserve(cr)
            }
            if !b.unstroked.isEmpty {
                // Stroke the outline again without the edges that lie on a cut.
                cairo_new_path(cr)
                outlineSkippingCuts(b, cr)
            }
        }
        if b.strokeWidth > 0 && b.stroke.a > 0 {
            b.stroke.setSource(cr)
            cairo_set_line_width(cr, b.strokeWidth)
            if !b.paint.dash.isEmpty {
                b.paint.dash.withUnsafeBufferPointer { cairo_set_dash(cr, $0.baseAddress, Int32($0.count), 0) }
            }
            if b.paint.blur > 0 {
                // MapLibre's line-blur: opaque to `blur` px inside the edge, fading out to it.
                strokeFading(cr, color: b.stroke, outer: b.strokeWidth / 2, inner: b.strokeWidth / 2 - b.paint.blur)
            } else {
                cairo_stroke(cr)
            }
            if !b.paint.dash.isEmpty { cairo_set_dash(cr, nil, 0, 0) }
        }
        cairo_new_path(cr)
    }

    /// A data line batch of many vertices with round caps and joins is stroked in pieces of 512
    /// segments (each piece starting where the last ended), translucent ones through one group:
    /// the same picture, since a round join and two round caps at one point cover the same
    /// pixels. Why by hand: Cairo strokes a path as one polygon whose scan conversion keeps every
    /// edge of it active on each row, so a 1M-vertex track that wanders over the same pixels took
    /// 3.8 s as one stroke.
    ///
    /// A data line batch of many paths (`pathsStrokedApart`: 10k great-circle arcs of one width)
    /// is stroked a path at a time, whatever its caps and joins, through one group when
    /// translucent: the union of the paths, as one stroke of them all draws it. As one stroke,
    /// 10k arcs took 5.2 s to draw; a path at a time, about what 10k batches of one arc take.
    private func strokesInPieces(_ b: ShapeBatch, _ cr: OpaquePointer) -> Bool {
        let roundEnds = b.paint.cap == .round && b.paint.join == .round
        let manyVertices = roundEnds && b.coords.count > 2 * 4096
        let manyPaths = b.pathCount >= Self.pathsStrokedApart
        guard b.kind == .line, b.fillsPathsApart, manyVertices || manyPaths, b.paint.dash.isEmpty, b.paint.pattern == nil,
              b.strokeWidth > 0, b.stroke.a > 0 else { return false }
        let piece = 512
        let translucent = b.stroke.a < 1
        if translucent { cairo_push_group(cr) }
        var opaque = b.stroke
        opaque.a = 1
        opaque.setSource(cr)
        cairo_set_line_width(cr, b.strokeWidth)
        setJoinAndCap(b.paint, cr)
        b.coords.withUnsafeBufferPointer { c in
            if !manyVertices {
                // A path at a time, whole (its rings together: a multi-line's parts).
                for path in 0..<b.pathCount {
                    cairo_new_path(cr)
                    for ring in b.pathRingStart[path]..<b.pathRingStart[path + 1] {
                        let start = b.ringStart[ring], end = b.ringStart[ring + 1]
                        cairo_move_to(cr, c[2 * start], c[2 * start + 1])
                        for p in (start + 1)..<end { cairo_line_to(cr, c[2 * p], c[2 * p + 1]) }
                    }
                    cairo_stroke(cr)
                }
                return
            }
            for ring in 0..<(b.ringStart.count - 1) {
                let start = b.ringStart[ring], end = b.ringStart[ring + 1]
                var from = start
                while from < end - 1 {
                    let to = min(from + piece, end - 1)
                    cairo_new_path(cr)
                    cairo_move_to(cr, c[2 * from], c[2 * from + 1])
                    for p in (from + 1)...to { cairo_line_to(cr, c[2 * p], c[2 * p + 1]) }
                    cairo_stroke(cr)
                    from = to
                }
            }
        }
        if translucent {
            cairo_pop_group_to_source(cr)
            cairo_paint_with_alpha(cr, b.stroke.a)
        }
        cairo_new_path(cr)
        return true
    }

    /// `line-pattern`: each segment stroked with the image repeated along it, as MapLibre's
    /// line-pattern shader lays it: its x from the distance along the line since the line's
    /// start, its middle row on the line, 1:1 in CSS px (over its pixel ratio); a line wider than
    /// the image stretches it across. Each segment reaches half the width into its neighbours at
    /// inner vertices so joins have no gaps; a translucent line is painted as one group.
    private func strokePatterned(_ b: ShapeBatch, _ p: SpriteImage, _ cr: OpaquePointer, rasters: RasterPainter) {
        let w = b.strokeWidth, imageH = p.height, imageW = p.width
        guard imageW > 0, imageH > 0 else { return }
        let across = w > imageH ? imageH / w : 1   // pattern px per CSS px across the line
        let translucent = b.stroke.a < 1
        if translucent { cairo_push_group(cr) }
        let surface = rasters.surface(for: p.image)
        let pattern = cairo_pattern_create_for_surface(surface)!
        defer { cairo_pattern_destroy(pattern) }
        cairo_pattern_set_extend(pattern, CAIRO_EXTEND_REPEAT)
        cairo_pattern_set_filter(pattern, CAIRO_FILTER_GOOD)
        cairo_set_line_width(cr, w)
        cairo_set_line_cap(cr, CAIRO_LINE_CAP_BUTT)
        let r = p.pixelRatio
        b.coords.withUnsafeBufferPointer { c in
            for ring in 0..<(b.ringStart.count - 1) {
                let start = b.ringStart[ring], end = b.ringStart[ring + 1]
                var along = 0.0
                for k in start..<max(start, end - 1) {
                    let x0 = c[2 * k], y0 = c[2 * k + 1], x1 = c[2 * k + 2], y1 = c[2 * k + 3]
                    let len = ((x1 - x0) * (x1 - x0) + (y1 - y0) * (y1 - y0)).squareRoot()
                    guard len > 0, len.isFinite else { continue }
                    let cs = (x1 - x0) / len, sn = (y1 - y0) / len
                    // User space -> pattern pixels: along the segment from `along`, across from the middle row.
                    var m = cairo_matrix_t(xx: r * cs, yx: -r * sn * across, xy: r * sn, yy: r * cs * across,
                                           x0: r * (along - (cs * x0 + sn * y0)),
                                           y0: r * (imageH / 2 - across * (-sn * x0 + cs * y0)))
                    cairo_pattern_set_matrix(pattern, &m)
                    let before = k > start ? min(w / 2, len) : 0, after = k < end - 2 ? min(w / 2, len) : 0
                    cairo_new_path(cr)
                    cairo_move_to(cr, x0 - cs * before, y0 - sn * before)
                    cairo_line_to(cr, x1 + cs * after, y1 + sn * after)
                    cairo_set_source(cr, pattern)
                    cairo_stroke(cr)
                    along += len
                }
            }
        }
        if translucent {
            cairo_pop_group_to_source(cr)
            cairo_paint_with_alpha(cr, b.stroke.a)
        }
    }

    /// Paths in a data line batch from which each is stroked on its own (`strokesInPieces`).
    static let pathsStrokedApart = 1000

    /// The polygon outlines of `b` as open runs, leaving out the edges listed in `b.unstroked`.
    private func outlineSkippingCuts(_ b: ShapeBatch, _ cr: OpaquePointer) {
        var u = 0
        b.coords.withUnsafeBufferPointer { c in
            for ring in 0..<(b.ringStart.count - 1) {
                let start = b.ringStart[ring], end = b.ringStart[ring + 1]
                var penDown = false
                for p in start..<end {
                    let q = p + 1 < end ? p + 1 : start  // the closing edge returns to the start
                    while u < b.unstroked.count && b.unstroked[u] < p { u += 1 }
                    let skip = u < b.unstroked.count && b.unstroked[u] == p
                    if skip { penDown = false; continue }
                    if !penDown { cairo_move_to(cr, c[2 * p], c[2 * p + 1]); penDown = true }
                    cairo_line_to(cr, c[2 * q], c[2 * q + 1])
                }
            }
        }
    }

    private func drawBubbles(_ b: BubbleBatch, _ cr: OpaquePointer) {
        for bubble in b.bubbles {
            // Clip first: a group is as large as the clip, and an unclipped one is the whole image.
            let reach = bubble.radius + b.strokeWidth / 2 + 1
            cairo_save(cr)
            cairo_rectangle(cr, bubble.x - reach, bubble.y - reach, 2 * reach, 2 * reach)
            cairo_clip(cr)
            cairo_push_group(cr)
            cairo_new_path(cr)
            cairo_arc(cr, bubble.x, bubble.y, bubble.radius, 0, 2 * .pi)
            bubble.fill.setSource(cr)
            if b.strokeWidth > 0 {
                cairo_fill_preserve(cr)
                b.stroke.setSource(cr)
                cairo_set_line_width(cr, b.strokeWidth)
                cairo_stroke(cr)
            } else {
                cairo_fill(cr)
            }
            cairo_pop_group_to_source(cr)
            cairo_paint_with_alpha(cr, b.opacity)
            cairo_restore(cr)
            var font = b.font
            if let size = bubble.textSize { font.size = size }
            text.draw(bubble.text, font: font, color: b.textColor, halo: nil, haloWidth: 0,
                      x: bubble.textBox.x, y: bubble.textBox.y, on: cr)
        }
    }

    /// A rounded box and its pointer as one outline (`CalloutMark.outline`), stroked then filled, text inside.
    private func drawCallout(_ c: CalloutMark, _ cr: OpaquePointer) {
        // A fading callout (an animation frame): drawn into a group as large as box, pointer and
        // stroke (a group of the whole frame per callout took a third of a 1920x1080 frame's
        // time), then painted with its opacity.
        if c.opacity < 1 {
            let b = c.bounds, m = c.strokeWidth + 1
            cairo_save(cr)
            cairo_rectangle(cr, b.x - m, b.y - m, b.width + 2 * m, b.height + 2 * m)
            cairo_clip(cr)
            cairo_push_group(cr)
        }
        cairo_new_path(cr)
        MarkerPainter.appendPath(c.outline, to: cr, x: 0, y: 0)
        cairo_set_fill_rule(cr, CAIRO_FILL_RULE_WINDING)
        if c.strokeWidth > 0 {
            c.stroke.setSource(cr)
            cairo_set_line_width(cr, c.strokeWidth * 2)
            cairo_set_line_join(cr, CAIRO_LINE_JOIN_ROUND)
            cairo_stroke_preserve(cr)
        }
        c.fill.setSource(cr)
        cairo_fill(cr)
        text.draw(c.text, font: c.font, color: c.color, halo: nil, haloWidth: 0,
                  x: c.textOrigin.x, y: c.textOrigin.y, maxWidth: c.maxWidth, on: cr)
        if c.opacity < 1 {
            cairo_pop_group_to_source(cr)
            cairo_paint_with_alpha(cr, c.opacity)
            cairo_restore(cr)
        }
    }

    private func drawScaleBar(_ b: ScaleBarMark, _ cr: OpaquePointer) {
        cairo_rectangle(cr, b.box.x, b.box.y, b.box.width, b.box.height)
        b.background.setSource(cr)
        cairo_fill(cr)
        var y = b.y
        for bar in b.bars {
            let rowH = bar.textSize.height + 4
            let baseline = y + rowH - 3
            // An open bracket: the bar with ticks at both ends.
            cairo_new_path(cr)
            cairo_move_to(cr, b.x, baseline - 5)
            cairo_line_to(cr, b.x, baseline)
            cairo_line_to(cr, b.x + bar.length, baseline)
            cairo_line_to(cr, b.x + bar.length, baseline - 5)
            b.color.setSource(cr)
            cairo_set_line_width(cr, 1.5)
            cairo_set_line_join(cr, CAIRO_LINE_JOIN_MITER)
            cairo_stroke(cr)
            text.draw(bar.text, font: b.font, color: b.color, halo: nil, haloWidth: 0,
                      x: b.x + bar.length + 6, y: y + (rowH - bar.textSize.height) / 2 - 1, on: cr)
            y += rowH
        }
    }

    private func drawLegend(_ l: LegendMark, _ cr: OpaquePointer) {
        cairo_rectangle(cr, l.box.x, l.box.y, l.box.width, l.box.height)
        l.background.setSource(cr)
        cairo_fill(cr)
        var y = l.box.y + l.padding
        if let title = l.title {
            text.draw(title, font: l.titleFont, color: l.textColor, halo: nil, haloWidth: 0,
                      x: l.box.x + l.padding, y: y, on: cr)
            y += l.titleSize.height + 3
        }
        for e in l.entries {
            let cy = y + l.rowHeight / 2 - 1.5
            cairo_new_path(cr)
            if l.squareSwatches {
                cairo_rectangle(cr, l.box.x + l.padding + 0.5, cy - l.swatch / 2 + 0.5, l.swatch - 1, l.swatch - 1)
            } else {
                cairo_arc(cr, l.box.x + l.padding + l.swatch / 2, cy, l.swatch / 2 - 0.5, 0, 2 * .pi)
            }
            e.color.setSource(cr)
            cairo_fill_preserve(cr)
            RGBA.white.setSource(cr)
            cairo_set_line_width(cr, 1)
            cairo_stroke(cr)
            text.draw(e.text, font: l.font, color: l.textColor, halo: nil, haloWidth: 0,
                      x: l.box.x + l.padding + l.swatch + 6, y: cy - e.textSize.height / 2, on: cr)
            y += l.rowHeight
        }
    }

    private func drawLegs(_ l: LegBatch, _ cr: OpaquePointer) {
        cairo_new_path(cr)
        for k in 0..<l.count {
            cairo_move_to(cr, l.x0[k], l.y0[k])
            cairo_line_to(cr, l.x1[k], l.y1[k])
        }
        l.color.setSource(cr)
        cairo_set_line_width(cr, l.width)
        cairo_set_line_cap(cr, CAIRO_LINE_CAP_ROUND)
        cairo_stroke(cr)
        if l.dotRadius > 0 {
            for k in l.dotX.indices where l.dotR[k] > 0 {
                cairo_new_sub_path(cr)
                cairo_arc(cr, l.dotX[k], l.dotY[k], l.dotR[k], 0, 2 * .pi)
            }
            l.dotColor.setSource(cr)
            cairo_fill(cr)
        }
    }

    /// One recording surface per symbol, painted at each marker: Cairo's SVG and PDF backends
    /// emit a recording surface once and reference it (`<use>`, a PDF form XObject) at each paint.
    ///
    /// The recording's extents start at (0, 0), with the anchor drawn at (`ax`, `ay`) inside.
    /// Cairo 1.16's SVG writer ignores the origin of a recording's extents: it clips the emitted
    /// group to (0, 0, width, height) and culls every operation outside that box, so a recording
    /// with a negative origin (anchor at 0, 0) came out as a clipped sliver with its fill lost.
    private func drawVectorMarkers(_ m: MarkerBatch, _ cr: OpaquePointer) {
        typealias Recording = (surface: OpaquePointer, ax: Double, ay: Double)
        func record(_ s: MarkerSymbol, _ part: MarkerPainter.Part) -> Recording {
            let e = s.extent
            let ax = e.left + 1, ay = e.top + 1
            var r = cairo_rectangle_t(x: 0, y: 0, width: e.left + e.right + 2, height: e.top + e.bottom + 2)
            let rec = cairo_recording_surface_create(CAIRO_CONTENT_COLOR_ALPHA, &r)!
            let rcr = cairo_create(rec)!
            MarkerPainter.draw(s, on: rcr, x: ax, y: ay, part: part, text: text)
            cairo_destroy(rcr)
            return (rec, ax, ay)
        }
        // As MarkerStamps: outlines of small dots first, then every marker.
        let recordings = m.symbols.map { record($0, $0.outlinesFirst ? .fill : .whole) }
        let outlines = m.symbols.map { $0.outlinesFirst ? record($0, .outline) : nil }
        defer { (recordings + outlines.compactMap { $0 }).forEach { cairo_surface_destroy($0.surface) } }
        func paint(_ rec: Recording, _ k: Int) {
            cairo_set_source_surface(cr, rec.surface, m.x[k] - rec.ax, m.y[k] - rec.ay)
            cairo_paint(cr)
        }
        if outlines.contains(where: { $0 != nil }) {
            for k in 0..<m.count {
                if let o = outlines[Int(m.symbol[k])] { paint(o, k) }
            }
        }
        for k in 0..<m.count { paint(recordings[Int(m.symbol[k])], k) }
    }
}
