import CCairo
import Foundation
import Testing
@testable import MapRenderCairo
import MapRenderCore

/// Labels along lines in scripts whose letters join or combine: the glyphs drawn along the line
/// are Pango's shaping of the whole name, placed cluster by cluster, never each cluster shaped
/// alone (which gives Arabic letters their isolated forms and breaks Devanagari conjuncts).
///
/// What is drawn is read back from Cairo's script surface (the glyph ids Cairo was asked to
/// show); what it must equal is Pango's own shaping of the same string as one run (the glyph
/// strings of a PangoLayout's line, made here without maprender's code).
@Suite struct PathLabelShapingTests {
    static let font = FontSpec(family: "DejaVu Sans", size: 16, weight: .normal)
    /// Cairo (Arabic, joining) and New Delhi (Devanagari: a conjunct and a vowel sign drawn
    /// before its consonant).
    static let names = ["القاهرة", "नई दिल्ली"]

    /// The glyph ids of `text` shaped by Pango in one layout (one line), in visual order, those
    /// with ink.
    static func pangoGlyphs(_ text: String, font: FontSpec) -> [UInt32] {
        let fontMap = pango_cairo_font_map_new()!
        defer { g_object_unref(UnsafeMutableRawPointer(fontMap)) }
        if let c = PinnedFonts.config { pango_fc_font_map_set_config(OpaquePointer(fontMap), c) }
        let context = pango_font_map_create_context(fontMap)!
        defer { g_object_unref(UnsafeMutableRawPointer(context)) }
        let layout = pango_layout_new(context)!
        defer { g_object_unref(UnsafeMutableRawPointer(layout)) }
        let desc = pango_font_description_new()!
        pango_font_description_set_family(desc, font.family)
        pango_font_description_set_absolute_size(desc, font.size * Double(PANGO_SCALE))
        pango_layout_set_font_description(layout, desc)
        pango_font_description_free(desc)
        pango_layout_set_text(layout, text, -1)
        var out: [UInt32] = []
        var runs = pango_layout_get_line_readonly(layout, 0)!.pointee.runs
        while let node = runs {
            let run = node.pointee.data.assumingMemoryBound(to: PangoGlyphItem.self)
            let gs = run.pointee.glyphs!
            for k in 0..<Int(gs.pointee.num_glyphs) {
                // A glyph without ink (a space) draws nothing: Cairo records no drawing of it alone.
                var ink = PangoRectangle()
                pango_font_get_glyph_extents(run.pointee.item.pointee.analysis.font, gs.pointee.glyphs[k].glyph, &ink, nil)
                if ink.width > 0 && ink.height > 0 { out.append(gs.pointee.glyphs[k].glyph) }
            }
            runs = node.pointee.next
        }
        return out
    }

    /// The glyph ids Cairo is asked to draw by `draw`, in order, from a script surface's record
    /// (`[x y [id id ...] dx [id ...] ...] show-glyphs`).
    static func drawnGlyphs(_ draw: (OpaquePointer) -> Void) -> [UInt32] {
        final class Sink { var data = Data() }
        let sink = Sink()
        let device = cairo_script_create_for_stream({ closure, bytes, length in
            let s = Unmanaged<Sink>.fromOpaque(closure!).takeUnretainedValue()
            s.data.append(bytes!, count: Int(length))
            return CAIRO_STATUS_SUCCESS
        }, Unmanaged.passUnretained(sink).toOpaque())!
        let surface = cairo_script_surface_create(device, CAIRO_CONTENT_COLOR_ALPHA, 600, 200)!
        let cr = cairo_create(surface)!
        draw(cr)
        cairo_destroy(cr)
        cairo_surface_destroy(surface)
        cairo_device_finish(device)
        cairo_device_destroy(device)
        withExtendedLifetime(sink) {}
        // The arrays before each show-glyphs / show-text-glyphs: ids are the numbers inside the
        // inner brackets. (Font data is written as <~ ... ~> and |...| strings, never brackets
        // before those operators on the same record.)
        let text = String(decoding: sink.data, as: UTF8.self)
        var ids: [UInt32] = []
        for record in text.components(separatedBy: "\n") where record.hasSuffix("show-glyphs") || record.hasSuffix("show-text-glyphs") {
            guard let open = record.firstIndex(of: "[") else { continue }
            var depth = 0, number = ""
            for ch in record[open...] {
                switch ch {
                case "[": depth += 1
                case "]":
                    if depth == 2, let v = UInt32(number) { ids.append(v) }
                    number = ""
                    depth -= 1
                case " ":
                    if depth == 2, let v = UInt32(number) { ids.append(v) }
                    number = ""
                default: number.append(ch)
                }
                if depth == 0 { break }
            }
        }
        return ids
    }

    /// `text` laid along a straight horizontal line through (x0, y) by the layout's own placement.
    static func straightLabel(_ text: String, pango: PangoText, x0: Double, y: Double) throws -> PathLabelMark {
        let run = pango.glyphRun(text, font: font)
        let path = LineLabelPlacement.Path(x: [x0, x0 + run.width + 40], y: [y, y])
        let p = try #require(LineLabelPlacement.placements(along: path, run: run).first)
        #expect(!p.flipped && p.glyphs.allSatisfy { $0.angle == 0 })
        return PathLabelMark(text: text, font: font, color: RGBA(0, 0, 0, 1), halo: RGBA(1, 1, 1, 1), haloWidth: 0,
                             glyphs: p.glyphs, boxes: p.boxes)
    }

    @Test(arguments: names) func glyphsAlongAStraightLineArePangosShapingOfTheWholeName(_ text: String) throws {
        let pango = PangoText()
        let mark = try Self.straightLabel(text, pango: pango, x0: 20, y: 100)
        let whole = Self.pangoGlyphs(text, font: Self.font)
        #expect(!whole.isEmpty)
        let drawn = Self.drawnGlyphs { pango.draw(mark, on: $0) }
        #expect(drawn == whole, "drawn \(drawn), Pango's whole run \(whole)")
        // The test can tell: each cluster shaped alone gives other glyphs (isolated Arabic
        // letters, a virama instead of the conjunct).
        let alone = mark.glyphs.flatMap { Self.pangoGlyphs($0.text, font: Self.font) }
        #expect(alone != whole, "shaping the clusters apart gives the same glyphs: the test would not see a broken join")
    }

    /// Drawn along a straight line, the label is the picture Pango draws of the whole name at the
    /// same baseline: the same glyphs at the same places.
    @Test(arguments: names) func alongAStraightLineIsPangosPictureOfTheName(_ text: String) throws {
        let pango = PangoText()
        let mark = try Self.straightLabel(text, pango: pango, x0: 20.25, y: 60)
        func picture(_ draw: (OpaquePointer) -> Void) -> [UInt8] {
            let surface = cairo_image_surface_create(CAIRO_FORMAT_ARGB32, 320, 120)!
            let cr = cairo_create(surface)!
            cairo_set_source_rgb(cr, 1, 1, 1)
            cairo_paint(cr)
            draw(cr)
            cairo_destroy(cr)
            cairo_surface_flush(surface)
            let stride = Int(cairo_image_surface_get_stride(surface))
            let bytes = Array(UnsafeBufferPointer(start: cairo_image_surface_get_data(surface), count: stride * 120))
            cairo_surface_destroy(surface)
            return bytes
        }
        let along = picture { pango.draw(mark, on: $0) }
        // The whole name as one text, its logical box's left end where the first cluster's is.
        let first = try #require(mark.glyphs.first)
        let run = pango.glyphRun(text, font: Self.font)
        let whole = picture { cr in
            pango.draw(text, font: Self.font, color: RGBA(0, 0, 0, 1), halo: nil, haloWidth: 0,
                       x: first.x - run.x[0], y: first.y - run.baseline, on: cr)
        }
        #expect(along.contains { $0 != 255 }, "nothing drawn")
        let differing = zip(along, whole).filter { abs(Int($0) - Int($1)) > 2 }.count
        #expect(differing == 0, "\(differing) bytes differ from Pango's drawing of the whole name")
    }
}
