import Foundation
import MapRenderCairo
import MapRenderCore
import Testing
import TestSupport
@testable import MapRender

/// A basemap style's `symbol-placement: line` labels (Fixtures/line-labels.json: the light style's
/// state lines and borders named along themselves) at zoom 4 over the United States. What the
/// scene holds is checked against the rules by a brute-force test of its own (no two labels'
/// boxes overlap, every glyph upright and on the image); the same view drawn by MapLibre Native
/// was looked at side by side (scripts/basemap-style-side-by-side, the README's picture); SVG and
/// PDF are checked through librsvg and poppler against the PNG.
@Suite struct LineLabelBasemapTests {
    static let style = TestPaths.repoFile("Tests/MapRenderTests/BasemapStyle/Fixtures/line-labels.json")

    static func request() throws -> RenderRequest {
        try BasemapStyleOracleTests.request(style: style, lat: 40, lon: -98, zoom: 4, symbols: true)
    }

    @Test func linesNamedAlongThemselves() throws {
        let out = try MapRenderer.render(try Self.request())
        #expect(out.summary.basemapStyle?.unsupported == [])
        let along = out.scene.pathLabels
        #expect(along.count >= 10, "\(along.count) labels along lines")
        #expect(Set(along.map(\.text)) == ["state line", "country border"])
        let frame = Rect(x: 0, y: 0, width: 1024, height: 768)
        for l in along {
            #expect(l.glyphs.map(\.text).joined() == l.text)
            // Upright as a whole (read from left to right: its last glyph is not left of its
            // first), each glyph at most text-max-angle (30°) past vertical where a line turns
            // under a near-vertical label (MapLibre, too, flips a label only as a whole).
            let first = try #require(l.glyphs.first), last = try #require(l.glyphs.last)
            #expect(first.x <= last.x + 1e-9, "reads right to left: \(l.text) at \(Int(first.x)),\(Int(first.y))")
            #expect(l.glyphs.allSatisfy { abs($0.angle) <= .pi / 2 + .pi / 6 + 1e-9 }, "upside down: \(l.text) \(l.glyphs.map { (Int($0.x), Int($0.y), Int($0.angle * 180 / .pi)) })")
            #expect(l.boxes.allSatisfy { frame.contains($0) })
            // Within one label the glyphs turn at most text-max-angle (30°) plus the spread of one
            // glyph's chord over a vertex, between neighbours.
            for (a, b) in zip(l.glyphs, l.glyphs.dropFirst()) {
                var d = abs(a.angle - b.angle)
                if d > .pi { d = 2 * .pi - d }
                #expect(d <= 31 * .pi / 180, "\(l.text): neighbouring glyphs turn \(d * 180 / .pi)°")
            }
        }
        // No two labels (along lines or at points) overlap.
        var boxes: [(Int, Rect)] = []
        for (k, l) in along.enumerated() { boxes += l.boxes.map { (k, $0) } }
        for (k, l) in out.scene.labels.enumerated() { boxes.append((along.count + k, l.box)) }
        var overlaps = 0
        for i in boxes.indices { for j in boxes.indices where j > i && boxes[i].0 != boxes[j].0 && boxes[i].1.intersects(boxes[j].1) { overlaps += 1 } }
        #expect(overlaps == 0)
    }

    @Test func svgAndPdfMatchPng() throws {
        var r = try Self.request()
        r.width = 512; r.height = 384
        try CrossFormatTests.expectSVGAndPDFMatchPNG(r, name: "line labels over the basemap", svg: 0.025, pdf: 0.03)
    }
}
