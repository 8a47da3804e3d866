import CCairo
import Foundation
import MapRenderCore

/// Text measuring and drawing through Pango, with one font map per instance.
///
/// Pango font maps are not safe to share between threads: each render owns its own `PangoText`,
/// or takes its thread's (`forCurrentThread`). Hinting is off (metrics and outlines), so a text
/// measures the same at every `--scale` and the layout does not depend on the device.
///
/// The font map is made on the first text measured or drawn: building the fontconfig set loads
/// the font caches (49 files), which a map without text (a choropleth) never needs.
public final class PangoText: TextMeasuring {
    private struct Engine {
        let fontMap: UnsafeMutablePointer<PangoFontMap>
        let context: OpaquePointer
        let fontOptions: OpaquePointer
    }
    private let systemFonts: Bool
    private var made: Engine?
    /// The pinned fonts' configuration, or nil for the machine's (`PinnedFonts`).
    private var fontConfig: OpaquePointer? { systemFonts ? nil : PinnedFonts.config }
    /// Families asked for in this render that the fonts in use lack (checked once per family list).
    private var checkedFamilies: Set<String> = []
    private var missing: [String] = []
    /// Whether each family is available, for the life of the font map.
    private var available: [String: Bool] = [:]

    /// - Parameter systemFonts: draw with the machine's fontconfig configuration instead of
    ///   maprender's pinned fonts (`--system-fonts`; see `PinnedFonts`).
    public init(systemFonts: Bool = false) {
        self.systemFonts = systemFonts
    }

    private var engine: Engine {
        if let e = made { return e }
        let fontMap = pango_cairo_font_map_new()!
        if let c = fontConfig {
            // Before the first context: the font map then never loads the machine's fonts.
            pango_fc_font_map_set_config(OpaquePointer(fontMap), c)
        }
        let context = pango_font_map_create_context(fontMap)!
        let fontOptions = cairo_font_options_create()!
        cairo_font_options_set_hint_style(fontOptions, CAIRO_HINT_STYLE_NONE)
        cairo_font_options_set_hint_metrics(fontOptions, CAIRO_HINT_METRICS_OFF)
        cairo_font_options_set_antialias(fontOptions, CAIRO_ANTIALIAS_GRAY)
        pango_cairo_context_set_font_options(context, fontOptions)
        pango_cairo_context_set_resolution(context, 72)
        pango_context_set_round_glyph_positions(context, 0)
        let e = Engine(fontMap: fontMap, context: context, fontOptions: fontOptions)
        made = e
        return e
    }

    private var context: OpaquePointer { engine.context }

    deinit {
        guard let e = made else { return }
        g_object_unref(UnsafeMutableRawPointer(e.context))
        g_object_unref(UnsafeMutableRawPointer(e.fontMap))
        cairo_font_options_destroy(e.fontOptions)
    }

    /// This thread's engine for `systemFonts`, made once and kept: a long-lived thread that
    /// renders many maps (a `serve` worker, a batch job's thread) keeps its font map and its
    /// glyph caches warm, where a new font map per map cost most of a small map's text time.
    /// Its warnings start over (`startMap`). Never share the result with another thread.
    public static func forCurrentThread(systemFonts: Bool) -> PangoText {
        let key = systemFonts ? "maprender.PangoText.system" : "maprender.PangoText.pinned"
        let dict = Thread.current.threadDictionary
        if let t = dict[key] as? PangoText {
            t.startMap()
            return t
        }
        let t = PangoText(systemFonts: systemFonts)
        dict[key] = t
        return t
    }

    /// Forgets the families reported missing, so that `warnings` speaks of the next map only.
    public func startMap() {
        checkedFamilies = []
        missing = []
    }

    /// One warning per font family a style asked for that the fonts in use lack, naming it.
    public var warnings: [String] {
        missing.map { family in
            fontConfig == nil
                ? "font family '\(family)' is not installed: its text is drawn in a fallback font"
                : "font family '\(family)' is not among maprender's fonts (\(PinnedFonts.families.joined(separator: ", "))): its text is drawn in a fallback font; --system-fonts uses the machine's fonts"
        }
    }

    private func check(family list: String) {
        guard checkedFamilies.insert(list).inserted else { return }
        for name in list.split(separator: ",").map({ $0.trimmingCharacters(in: .whitespaces) }) where !name.isEmpty {
            let ok: Bool
            if let known = available[name] { ok = known } else {
                ok = PinnedFonts.isAvailable(name, config: fontConfig)
                available[name] = ok
            }
            if !ok && !missing.contains(name) { missing.append(name) }
        }
    }

    /// A layout of `text` in `font`; the caller unrefs it.
    private func makeLayout(_ text: String, font: FontSpec, maxWidth: Double? = nil, centered: Bool = false,
                            justify: Double = 0.5) -> OpaquePointer {
        check(family: font.family)
        let layout = pango_layout_new(context)!
        let desc = pango_font_description_new()!
        pango_font_description_set_family(desc, font.family)
        pango_font_description_set_absolute_size(desc, font.size * Double(PANGO_SCALE))
        pango_font_description_set_weight(desc, font.weight == .bold ? PANGO_WEIGHT_BOLD : PANGO_WEIGHT_NORMAL)
        pango_layout_set_font_description(layout, desc)
        pango_font_description_free(desc)
        pango_layout_set_text(layout, text, -1)
        if font.letterSpacing != 0, font.letterSpacing.isFinite {
            // Pango spreads it half before, half after each grapheme, none at the line's ends.
            let attrs = pango_attr_list_new()!
            pango_attr_list_insert(attrs, pango_attr_letter_spacing_new(Int32(clamping: Int((font.letterSpacing * font.size * Double(PANGO_SCALE)).rounded()))))
            pango_layout_set_attributes(layout, attrs)
            pango_attr_list_unref(attrs)
        }
        if let w = maxWidth {
            // Between words (a word wider than the width overflows on a line of its own, as
            // MapLibre's); inside a word only when the text is that one word (it cannot be kept
            // whole otherwise). Pango's WORD_CHAR would also break a long word after others on a line.
            pango_layout_set_width(layout, Int32(w * Double(PANGO_SCALE)))
            pango_layout_set_wrap(layout, PANGO_WRAP_WORD)
            if !text.contains(where: \.isWhitespace), pango_layout_is_wrapped(layout) == 0 || Self.overflows(layout, w) {
                pango_layout_set_wrap(layout, PANGO_WRAP_WORD_CHAR)
            }
            if centered {
                pango_layout_set_alignment(layout, justify < 0.25 ? PANGO_ALIGN_LEFT : justify > 0.75 ? PANGO_ALIGN_RIGHT : PANGO_ALIGN_CENTER)
            }
        }
        return layout
    }

    /// Whether a line of `layout` is wider than `width` px (a word that does not fit).
    private static func overflows(_ layout: OpaquePointer, _ width: Double) -> Bool {
        var logical = PangoRectangle()
        pango_layout_get_extents(layout, nil, &logical)
        return Double(logical.width) / Double(PANGO_SCALE) > width + 0.01
    }

    public func measure(_ text: String, font: FontSpec, maxWidth: Double?) -> TextSize {
        let layout = makeLayout(text, font: font, maxWidth: maxWidth)
        defer { g_object_unref(UnsafeMutableRawPointer(layout)) }
        var logical = PangoRectangle()
        pango_layout_get_extents(layout, nil, &logical)
        return TextSize(width: Double(logical.width) / Double(PANGO_SCALE),
                        height: Double(logical.height) / Double(PANGO_SCALE))
    }

    /// `text` shaped on one line, cut into its clusters in visual order, each with where it
    /// starts and its advance as Pango laid it out (kerning included).
    public func glyphRun(_ text: String, font: FontSpec) -> GlyphRun {
        let layout = makeLayout(text, font: font)
        defer { g_object_unref(UnsafeMutableRawPointer(layout)) }
        return Self.clusters(of: layout, text: text, font: font, glyphs: nil)
    }

    /// A cluster's glyphs as Pango shaped them in the whole text: the font of its run, and the
    /// glyphs (in visual order, with their offsets), drawn from the cluster's pen position.
    struct ClusterGlyphs {
        var font: UnsafeMutablePointer<PangoFont>
        var glyphs: [PangoGlyphInfo]
        /// From the cluster's box (`GlyphRun.x`) to its pen position, px along the baseline.
        var penShift: Double
    }

    /// The clusters of a one-line `layout` of `text` in visual order (`glyphRun`); with `glyphs`,
    /// each cluster's glyphs from the layout's runs as well, by its start (the fonts are the
    /// layout's: valid while it lives).
    private static func clusters(of layout: OpaquePointer, text: String, font: FontSpec,
                                 glyphs: UnsafeMutablePointer<[Int: ClusterGlyphs]>?) -> GlyphRun {
        let scale = Double(PANGO_SCALE)
        var whole = PangoRectangle()
        pango_layout_get_extents(layout, nil, &whole)
        var run = GlyphRun()
        run.width = Double(whole.width) / scale
        run.height = Double(whole.height) / scale
        run.baseline = Double(pango_layout_get_baseline(layout) - whole.y) / scale
        guard let iter = pango_layout_get_iter(layout) else { return run }
        defer { pango_layout_iter_free(iter) }
        var starts: [Int] = [], xs: [Double] = [], widths: [Double] = []
        var found: [Int: ClusterGlyphs] = [:]
        repeat {
            var logical = PangoRectangle()
            pango_layout_iter_get_cluster_extents(iter, nil, &logical)
            let index = Int(pango_layout_iter_get_index(iter))
            starts.append(index)
            xs.append(Double(logical.x - whole.x) / scale)
            widths.append(Double(logical.width) / scale)
            if glyphs != nil, let r = pango_layout_iter_get_run_readonly(iter), let item = r.pointee.item,
               let gs = r.pointee.glyphs, let f = item.pointee.analysis.font {
                // The run's glyphs whose cluster starts at this index (contiguous, visual order).
                var picked: [PangoGlyphInfo] = []
                for g in 0..<Int(gs.pointee.num_glyphs) where Int(gs.pointee.log_clusters[g]) + Int(item.pointee.offset) == index {
                    picked.append(gs.pointee.glyphs[g])
                }
                if !picked.isEmpty { found[index] = ClusterGlyphs(font: f, glyphs: picked, penShift: 0) }
            }
        } while pango_layout_iter_next_cluster(iter) != 0
        // A cluster's bytes run to the next cluster's start in the text (visual order may differ).
        let bytes = Array(text.utf8)
        let sorted = Array(Set(starts)).sorted()
        for (k, from) in starts.enumerated() {
            guard from >= 0, from < bytes.count else { continue }
            let to = sorted.first { $0 > from } ?? bytes.count
            let piece = String(decoding: bytes[from..<min(to, bytes.count)], as: UTF8.self)
            guard !piece.isEmpty else { continue }
            run.clusters.append(piece); run.start.append(from); run.x.append(xs[k]); run.advance.append(widths[k])
        }
        // Letter spacing: a cluster's box holds half the spacing each side (but at the line's
        // ends); the box is the glyph's own, and the glyph drawn from its pen position (where
        // Pango put the spacing's first half into the glyph's offset) lands in it.
        let spacing = font.letterSpacing * font.size
        if spacing != 0, run.x.count > 1 {
            for k in run.x.indices {
                let before = k == 0 ? 0 : spacing / 2, after = k == run.x.count - 1 ? 0 : spacing / 2
                run.x[k] += before
                run.advance[k] = max(0, run.advance[k] - before - after)
            }
        }
        if let glyphs {
            for (k, from) in run.start.enumerated() {
                guard var c = found[from], let pen = starts.firstIndex(of: from) else { continue }
                c.penShift = xs[pen] - run.x[k]
                glyphs.pointee[from] = c
            }
        }
        return run
    }

    /// Draws text laid along a line: every glyph's halo first (so no halo covers a neighbouring
    /// glyph), then the glyphs, each cluster rotated about its baseline's left end.
    ///
    /// Each cluster's glyphs are the ones Pango shaped for the whole text (`clusters(of:)`), drawn
    /// with their run's font: Arabic letters keep their joined forms and Devanagari its conjuncts
    /// and reordered vowel signs, which shaping each cluster alone would break. A glyph whose
    /// cluster the shaping does not have (a scene laid out by another measurer) is shaped alone.
    func draw(_ mark: PathLabelMark, on cr: OpaquePointer) {
        pango_cairo_update_context(cr, context)
        let whole = makeLayout(mark.text, font: mark.font)
        defer { g_object_unref(UnsafeMutableRawPointer(whole)) }
        var shaped: [Int: ClusterGlyphs] = [:]
        _ = Self.clusters(of: whole, text: mark.text, font: mark.font, glyphs: &shaped)
        var glyphFont = mark.font
        glyphFont.letterSpacing = 0   // the glyphs are placed apart already
        let pieces: [Piece] = mark.glyphs.map { g in
            if let c = shaped[g.start] { return .glyphs(Self.glyphString(c.glyphs), c.font, c.penShift) }
            return .layout(makeLayout(g.text, font: glyphFont))
        }
        defer {
            for p in pieces {
                switch p {
                case .glyphs(let gs, _, _): pango_glyph_string_free(gs)
                case .layout(let l): g_object_unref(UnsafeMutableRawPointer(l))
                }
            }
        }
        func place(_ k: Int) {
            let g = mark.glyphs[k]
            cairo_translate(cr, g.x, g.y)
            cairo_rotate(cr, g.angle)
            switch pieces[k] {
            case .glyphs(_, _, let shift):
                cairo_move_to(cr, shift, 0)
            case .layout(let layout):
                var logical = PangoRectangle()
                pango_layout_get_extents(layout, nil, &logical)
                let baseline = Double(pango_layout_get_baseline(layout)) / Double(PANGO_SCALE)
                cairo_move_to(cr, -Double(logical.x) / Double(PANGO_SCALE), -baseline)
            }
        }
        if mark.haloWidth > 0, mark.halo.a > 0 {
            cairo_new_path(cr)
            for k in mark.glyphs.indices {
                cairo_save(cr)
                place(k)
                switch pieces[k] {
                case .glyphs(let gs, let f, _): pango_cairo_glyph_string_path(cr, f, gs)
                case .layout(let l): pango_cairo_layout_path(cr, l)
                }
                cairo_restore(cr)
            }
            Self.strokeHalo(cr, color: mark.halo, width: mark.haloWidth, blur: mark.haloBlur)
        }
        func showGlyphs() {
            for k in mark.glyphs.indices {
                cairo_save(cr)
                place(k)
                switch pieces[k] {
                case .glyphs(let gs, let f, _): pango_cairo_show_glyph_string(cr, f, gs)
                case .layout(let l): pango_cairo_show_layout(cr, l)
                }
                cairo_restore(cr)
            }
        }
        guard let target = cairo_get_group_target(cr), cairo_surface_get_type(target) == CAIRO_SURFACE_TYPE_IMAGE else {
            // SVG and PDF: each cluster's glyphs as vector text.
            mark.color.setSource(cr)
            showGlyphs()
            cairo_new_path(cr)
            return
        }
        // Raster: the clusters' coverage is added up in one alpha mask and the colour painted
        // through it once, as Cairo draws the glyphs of one text (pixman adds glyph masks, then
        // composites). Glyphs of neighbouring clusters meet: Arabic letters join on the
        // baseline, a Devanagari vowel sign touches its consonant's headline. Drawn one over the
        // other, a join's edge pixels were covered as 1 - (1 - a)(1 - b) instead of a + b: a
        // lighter seam at every join.
        let b = mark.bounds, m = mark.font.size
        cairo_save(cr)
        cairo_rectangle(cr, b.x - m, b.y - m, b.width + 2 * m, b.height + 2 * m)
        cairo_clip(cr)
        cairo_push_group_with_content(cr, CAIRO_CONTENT_ALPHA)
        cairo_set_operator(cr, CAIRO_OPERATOR_ADD)
        cairo_set_source_rgba(cr, 0, 0, 0, 1)
        showGlyphs()
        let coverage = cairo_pop_group(cr)
        mark.color.setSource(cr)
        cairo_mask(cr, coverage)
        cairo_pattern_destroy(coverage)
        cairo_restore(cr)
        cairo_new_path(cr)
    }

    /// A cluster drawn along a line: its glyphs from the whole text's shaping (font, pen shift),
    /// or its text laid out alone.
    private enum Piece {
        case glyphs(UnsafeMutablePointer<PangoGlyphString>, UnsafeMutablePointer<PangoFont>, Double)
        case layout(OpaquePointer)
    }

    /// A glyph string of `glyphs` (the caller frees it).
    private static func glyphString(_ glyphs: [PangoGlyphInfo]) -> UnsafeMutablePointer<PangoGlyphString> {
        let gs = pango_glyph_string_new()!
        pango_glyph_string_set_size(gs, Int32(glyphs.count))
        for (k, g) in glyphs.enumerated() {
            gs.pointee.glyphs[k] = g
            gs.pointee.log_clusters[k] = 0
        }
        return gs
    }

    /// How far below the top of `text`'s logical box its first baseline lies, CSS px (where an SVG
    /// `<text>` must be placed to sit where Pango draws it).
    public func baseline(_ text: String, font: FontSpec) -> Double {
        let layout = makeLayout(text, font: font)
        defer { g_object_unref(UnsafeMutableRawPointer(layout)) }
        return Double(pango_layout_get_baseline(layout)) / Double(PANGO_SCALE)
    }

    /// One line of a laid-out text (`lines`).
    public struct Line: Sendable, Equatable {
        public var text: String
        /// Where the line's logical box starts and where its baseline lies, CSS px from the
        /// top-left of the whole text's logical box.
        public var x: Double
        public var baseline: Double
        /// Pango laid the line out right to left (its first strong character is, e.g. Arabic or
        /// Hebrew): its words run from the right, also where a left-to-right word is among them.
        public var rightToLeft: Bool

        public init(text: String, x: Double, baseline: Double, rightToLeft: Bool) {
            self.text = text; self.x = x; self.baseline = baseline; self.rightToLeft = rightToLeft
        }
    }

    /// The lines Pango breaks `text` into at `maxWidth` (as `measure` and `draw` do), each where
    /// it starts, its baseline and its direction (where an SVG `<tspan>` must be placed to sit where
    /// Pango draws the line). A line's text leaves out the spaces and line break it was broken at.
    public func lines(_ text: String, font: FontSpec, maxWidth: Double?) -> [Line] {
        let layout = makeLayout(text, font: font, maxWidth: maxWidth)
        defer { g_object_unref(UnsafeMutableRawPointer(layout)) }
        var whole = PangoRectangle()
        pango_layout_get_extents(layout, nil, &whole)
        let bytes = Array(text.utf8), scale = Double(PANGO_SCALE)
        guard let iter = pango_layout_get_iter(layout) else { return [] }
        defer { pango_layout_iter_free(iter) }
        var out: [Line] = []
        repeat {
            guard let line = pango_layout_iter_get_line_readonly(iter) else { continue }
            let from = min(max(Int(line.pointee.start_index), 0), bytes.count)
            let to = min(from + max(Int(line.pointee.length), 0), bytes.count)
            var logical = PangoRectangle()
            pango_layout_iter_get_line_extents(iter, nil, &logical)
            let piece = String(decoding: bytes[from..<to], as: UTF8.self)
            out.append(Line(text: String(piece.reversed().drop(while: \.isWhitespace).reversed()),
                            x: Double(logical.x - whole.x) / scale,
                            baseline: Double(pango_layout_iter_get_baseline(iter) - whole.y) / scale,
                            rightToLeft: line.pointee.resolved_dir == PANGO_DIRECTION_RTL.rawValue))
        } while pango_layout_iter_next_line(iter) != 0
        return out
    }

    /// Draws `text` with the top-left of its logical box at (x, y), halo first; wrapped at
    /// `maxWidth`, its lines aligned on each other when `centered` (centred, or by `justify`: 0
    /// left, 1 right).
    func draw(_ text: String, font: FontSpec, color: RGBA, halo: RGBA?, haloWidth: Double, haloBlur: Double = 0,
              x: Double, y: Double, maxWidth: Double? = nil, centered: Bool = false, justify: Double = 0.5, on cr: OpaquePointer) {
        pango_cairo_update_context(cr, context)
        let layout = makeLayout(text, font: font, maxWidth: maxWidth, centered: centered, justify: justify)
        defer { g_object_unref(UnsafeMutableRawPointer(layout)) }
        var logical = PangoRectangle()
        pango_layout_get_extents(layout, nil, &logical)
        let ox = x - Double(logical.x) / Double(PANGO_SCALE), oy = y - Double(logical.y) / Double(PANGO_SCALE)
        if let halo, haloWidth > 0, halo.a > 0 {
            cairo_new_path(cr)
            cairo_move_to(cr, ox, oy)
            pango_cairo_layout_path(cr, layout)
            Self.strokeHalo(cr, color: halo, width: haloWidth, blur: haloBlur)
        }
        cairo_move_to(cr, ox, oy)
        color.setSource(cr)
        pango_cairo_show_layout(cr, layout)
        cairo_new_path(cr)
    }

    /// Strokes the current path (the text's outlines) as its halo, `width` px out from the glyphs,
    /// and clears the path. With `blur` the halo fades as MapLibre's does, from full at `width -
    /// 1.19 blur` to none at `width + 1.19 blur` (its shader's smoothstep over the distance field,
    /// here linear), drawn by `strokeFading`; where that reaches into the glyph the halo at its
    /// edge is less than full, as MapLibre's. No halo without a width, as MapLibre.
    static func strokeHalo(_ cr: OpaquePointer, color: RGBA, width: Double, blur: Double) {
        cairo_set_line_join(cr, CAIRO_LINE_JOIN_ROUND)
        guard blur > 0, blur.isFinite else {
            color.setSource(cr)
            cairo_set_line_width(cr, width * 2)
            cairo_stroke(cr)
            return
        }
        strokeFading(cr, color: color, outer: width + 1.19 * blur, inner: width - 1.19 * blur)
    }
}
