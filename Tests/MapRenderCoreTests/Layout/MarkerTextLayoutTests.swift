import Foundation
import Testing
@testable import MapRenderCore

/// Texts inside markers: the colour with the better WCAG contrast, fit and growth, refusal of
/// long texts, numbering. (Pango's measures: MapRenderTests' RouteTests.)
@Suite struct MarkerTextLayoutTests {
    /// WCAG 2's own reference points: white on black 21:1, white on #777777 4.48:1, and the
    /// luminance of pure red, green and blue (0.2126, 0.7152, 0.0722).
    @Test func contrastFollowsWCAG() {
        #expect(abs(MarkerTextLayout.contrastRatio(.white, .black) - 21) < 1e-9)
        #expect(abs(MarkerTextLayout.contrastRatio(.white, RGBA.parse("#777777")!) - 4.48) < 0.005)
        #expect(abs(MarkerTextLayout.relativeLuminance(RGBA(1, 0, 0)) - 0.2126) < 1e-9)
        #expect(abs(MarkerTextLayout.relativeLuminance(RGBA(0, 1, 0)) - 0.7152) < 1e-9)
        #expect(abs(MarkerTextLayout.relativeLuminance(RGBA(0, 0, 1)) - 0.0722) < 1e-9)
    }

    /// Dark fills get white text, light ones black, and whichever is chosen has at least 4.58:1
    /// against the fill, over a grid of 9³ colours; a translucent fill counts as the paler colour
    /// it shows on a white map.
    @Test func textColourAlwaysContrasts() {
        #expect(MarkerTextLayout.textColor(on: RGBA.parse("#d7301f")!) == .white)
        #expect(MarkerTextLayout.textColor(on: RGBA.parse("#ffd92f")!) == .black)
        #expect(MarkerTextLayout.textColor(on: RGBA.parse("#1f78b4")!) == .white)
        #expect(MarkerTextLayout.textColor(on: RGBA.parse("#1f78b4")!, opacity: 0.2) == .black)
        var worst = 21.0
        for r in 0...8 { for g in 0...8 { for b in 0...8 {
            let fill = RGBA(Double(r) / 8, Double(g) / 8, Double(b) / 8)
            let text = MarkerTextLayout.textColor(on: fill)
            let ratio = MarkerTextLayout.contrastRatio(fill, text)
            #expect(ratio >= max(MarkerTextLayout.contrastRatio(fill, .white), MarkerTextLayout.contrastRatio(fill, .black)) - 1e-12)
            worst = min(worst, ratio)
        } } }
        #expect(worst >= 4.58)
    }

    static let pin = MarkerSymbol(shape: .pin, size: 28, fill: RGBA.parse("#d7301f")!, stroke: .white, strokeWidth: 1.5, opacity: 1)

    /// A digit fits a default pin as it is; three wide characters make it grow, until they fit;
    /// a small circle grows for one digit at the smallest text size.
    @Test func textsFitAndMarkersGrow() {
        let m = FakeTextMeasurer()
        let one = MarkerTextLayout.symbol(Self.pin, text: "7", family: "DejaVu Sans", textScale: 1, measurer: m)
        #expect(one.size == 28 && MarkerTextLayout.fits(one) && one.text?.color == .white)
        let three = MarkerTextLayout.symbol(Self.pin, text: "WWW", family: "DejaVu Sans", textScale: 1, measurer: m)
        #expect(three.size > 28 && MarkerTextLayout.fits(three))
        // Grown no more than it must: a pixel smaller and it would not fit.
        var smaller = three
        smaller.size -= 1
        #expect(!MarkerTextLayout.fits(smaller))
        let dot = MarkerSymbol(shape: .circle, size: 6, fill: RGBA.parse("#ffd92f")!, stroke: .white, strokeWidth: 1, opacity: 1)
        let grown = MarkerTextLayout.symbol(dot, text: "3", family: "DejaVu Sans", textScale: 1, measurer: m)
        #expect(grown.size > 6 && MarkerTextLayout.fits(grown) && grown.text?.font.size == MarkerTextLayout.minTextSize)
        #expect(grown.text?.color == .black)
        let square = MarkerSymbol(shape: .square, size: 11, fill: .black, stroke: .white, strokeWidth: 1, opacity: 1)
        let s = MarkerTextLayout.symbol(square, text: "AB", family: "DejaVu Sans", textScale: 2, measurer: m)
        #expect(MarkerTextLayout.fits(s) && s.size > 11)
    }

    /// Texts of up to three characters are drawn; a 40-character one is refused (the marker
    /// drawn plain) with one warning naming its point; one symbol per (symbol, text).
    @Test func textsOfMoreThanThreeCharactersAreRefused() {
        var points = PointSet()
        let c = points.properties.addColumn("marker-symbol")
        let texts: [PropertyValue] = [.string("1"), .string(String(repeating: "x", count: 40)), .number(12), .string(" A "),
                                      .missing, .string("1"), .string("café")]
        for (i, t) in texts.enumerated() {
            points.lon.append(Double(i)); points.lat.append(0)
            points.properties.appendRow([(c, t)])
        }
        var batch = MarkerBatch()
        batch.symbols = [Self.pin]
        batch.x = texts.indices.map(Double.init); batch.y = texts.indices.map { _ in 0 }
        batch.symbol = texts.indices.map { _ in 0 }
        let warning = MarkerTextLayout.apply(&batch, drawn: Array(texts.indices), points: points, family: "DejaVu Sans",
                                             textScale: 1, measurer: FakeTextMeasurer())
        #expect(batch.symbols.map { $0.text?.text } == [nil, "1", "12", "A"])
        #expect(batch.symbol == [1, 0, 2, 3, 0, 1, 0])
        #expect(warning == "marker-symbol: 'xxxxxxxxxxxxxxxxxxxx...' on point 1 has 40 characters; at most 3 are drawn inside a marker, so it is drawn without (2 markers in all)")
    }

    @Test func numbersInInputOrderByPropertyAndPerLine() {
        var points = PointSet()
        let t = points.properties.addColumn("t"), v = points.properties.addColumn("van")
        for (i, (time, van)) in [(30.0, "a"), (10, "b"), (20, "a"), (5, "a"), (1, "b")].enumerated() {
            points.lon.append(Double(i)); points.lat.append(0)
            points.properties.appendRow([(t, .number(time)), (v, .string(van))])
        }
        #expect(MarkerNumbers().numbers(for: points) == [1, 2, 3, 4, 5])
        #expect(MarkerNumbers(orderBy: "t").numbers(for: points) == [5, 3, 4, 2, 1])
        #expect(MarkerNumbers(orderBy: "t", groupBy: "van").numbers(for: points) == [3, 2, 2, 1, 1])
        MarkerNumbers(orderBy: "t").apply(to: &points)
        #expect(points.properties.value("marker-symbol", row: 0) == .string("5"))
    }
}
