import Foundation
import Testing
@testable import MapRenderCairo
@testable import MapRenderCore

/// The backend draws scenes; these tests build scenes by hand, so they do not depend on layout.
@Suite struct CairoRendererTests {
    func scene(markers: Int = 3, label: String? = "Zürich · 東京 · القاهرة · Αθήνα · Москва · ירושלים") -> Scene {
        var s = Scene(width: 200, height: 120, scale: 1, background: RGBA(0.8, 0.9, 1))
        var shapes = ShapeBatch(kind: .polygon, fill: RGBA(1, 1, 0.9), stroke: RGBA(0.5, 0.5, 0.5), strokeWidth: 1)
        shapes.coords = [10, 10, 190, 10, 190, 110, 10, 110]
        shapes.closeRing(); shapes.closePath()
        s.items.append(.shapes(shapes))
        var m = MarkerBatch()
        m.symbols = [MarkerSymbol(shape: .pin, size: 28, fill: RGBA(0.84, 0.24, 0.16), stroke: .white, strokeWidth: 1.5, opacity: 1),
                     MarkerSymbol(shape: .circle, size: 12, fill: RGBA(0.1, 0.4, 0.8), stroke: .white, strokeWidth: 1, opacity: 0.8)]
        for k in 0..<markers {
            m.x.append(40 + Double(k) * 50.3); m.y.append(70.6); m.symbol.append(UInt16(k % 2))
        }
        s.items.append(.markers(m))
        if let label {
            let text = PangoText()
            let font = FontSpec(family: "DejaVu Sans", size: 12, weight: .normal)
            let size = text.measure(label, font: font)
            s.items.append(.label(LabelMark(text: label, font: font, color: .black, halo: .white, haloWidth: 2,
                                            x: 5, y: 80, width: size.width, height: size.height)))
        }
        return s
    }

    func render(_ s: Scene, _ f: OutputFormat) throws -> Data {
        try CairoRenderer(text: PangoText()).render(s, format: f)
    }

    @Test func pngHasTheSceneSizeTimesScale() throws {
        var s = scene()
        let png = try render(s, .png)
        let img = try PNGCodec.decode(data: png)
        #expect(img.width == 200 && img.height == 120)
        s.scale = 2
        let img2 = try PNGCodec.decode(data: try render(s, .png))
        #expect(img2.width == 400 && img2.height == 240)
    }

    @Test func markersArePaintedWhereTheSceneSays() throws {
        let img = try PNGCodec.decode(data: try render(scene(label: nil), .png))
        // The pin's head (centre 28 - 0.36*28 ≈ 18 px above the tip) is red; beside it is basemap.
        let head = img[40, Int(70.6 - 28 + 10.08 - 6)]
        #expect(head.r > 180 && head.g < 100)
        let beside = img[20, 30]
        #expect(beside.r > 240 && beside.g > 240 && beside.b > 220)
        // The circle marker is blue.
        let c = img[90, 71]
        #expect(c.b > 150 && c.r < 120)
    }

    @Test func outputIsByteIdenticalEveryTime() throws {
        let s = scene()
        for f in OutputFormat.allCases {
            let a = try render(s, f), b = try render(s, f)
            #expect(a == b, "\(f) differs between two renders in one process")
            #expect(!a.isEmpty)
        }
    }

    @Test func svgIdsAreNormalisedAndMarkersShareOneDefinition() throws {
        let svg = String(decoding: try render(scene(markers: 6), .svg), as: UTF8.self)
        #expect(svg.contains("<svg"))
        #expect(svg.contains(#"id="glyph0-1""#))
        // One definition per symbol, referenced per marker.
        let uses = svg.components(separatedBy: "<use").count - 1
        #expect(uses >= 6)
    }

    @Test func pdfHasFixedDates() throws {
        let pdf = String(decoding: try render(scene(), .pdf), as: UTF8.self)
        #expect(pdf.hasPrefix("%PDF-"))
        #expect(pdf.contains("/CreationDate (20000101000000Z)"))
    }

    @Test func svgNormalizerRenamesWholeTokens() {
        let input = ##"<g id="surface12"><use xlink:href="#glyph7-1"/><use xlink:href="#glyph7-10"/><path id="glyph7-1"/><path id="glyph7-10"/><g clip-path="url(#clip3)"/><clipPath id="clip3"/></g>"##
        let out = String(decoding: SVGNormalizer.normalizeIDs(Data(input.utf8)), as: UTF8.self)
        #expect(out == ##"<g id="surface0"><use xlink:href="#glyph0-1"/><use xlink:href="#glyph0-10"/><path id="glyph0-1"/><path id="glyph0-10"/><g clip-path="url(#clip0)"/><clipPath id="clip0"/></g>"##)
    }

    @Test func textIsMeasuredByItsScript() {
        let t = PangoText()
        let f = FontSpec(family: "DejaVu Sans", size: 20, weight: .normal)
        let latin = t.measure("Tokyo", font: f), cjk = t.measure("東京都", font: f), arabic = t.measure("القاهرة", font: f)
        #expect(latin.width > 30 && latin.height > 18)
        #expect(cjk.width > 40)   // three full-width glyphs from the CJK fallback font
        #expect(arabic.width > 30)
        let bold = t.measure("Tokyo", font: FontSpec(family: "DejaVu Sans", size: 20, weight: .bold))
        #expect(bold.width > latin.width)
    }
}
