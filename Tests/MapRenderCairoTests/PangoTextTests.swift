import Testing
@testable import MapRenderCairo
import MapRenderCore

/// `PangoText.lines`: the lines an SVG writes a wrapped text in, as Pango breaks and places them.
@Suite struct PangoTextTests {
    let pango = PangoText()
    let font = FontSpec(family: "DejaVu Sans", size: 12, weight: .normal)

    @Test func aWrappedTextsLinesFollowEachOtherDownTheBox() {
        let text = "Paris, a city on the Seine with a long name"
        let lines = pango.lines(text, font: font, maxWidth: 160)
        #expect(lines.count == 2)
        // Broken between words; the space at the break left out; together the whole text.
        #expect(lines.map(\.text).joined(separator: " ") == text)
        #expect(lines.allSatisfy { !$0.text.hasSuffix(" ") && !$0.rightToLeft && $0.x == 0 })
        // The first baseline where `baseline` puts it; the next one line further down, both in the box.
        #expect(lines[0].baseline == pango.baseline(text, font: font))
        let height = pango.measure(text, font: font, maxWidth: 160).height
        #expect(lines[1].baseline - lines[0].baseline == height / 2)
        #expect(lines[1].baseline < height)
        // Unwrapped, one line.
        #expect(pango.lines(text, font: font, maxWidth: nil).map(\.text) == [text])
    }

    @Test func lineBreaksInTheTextStartLines() {
        let lines = pango.lines("Gare du Nord\nParis", font: font, maxWidth: 160)
        #expect(lines.map(\.text) == ["Gare du Nord", "Paris"])
    }

    /// A line's direction is Pango's, from its first strong character: an Arabic name followed by
    /// Latin is right to left (its words run from the right), a Latin one followed by Arabic is not.
    @Test func linesKnowTheirDirection() {
        #expect(pango.lines("القاهرة", font: font, maxWidth: nil).map(\.rightToLeft) == [true])
        #expect(pango.lines("القاهرة Cairo 2", font: font, maxWidth: nil).map(\.rightToLeft) == [true])
        #expect(pango.lines("Cairo القاهرة", font: font, maxWidth: nil).map(\.rightToLeft) == [false])
        #expect(pango.lines("ירושלים", font: font, maxWidth: nil).map(\.rightToLeft) == [true])
    }
}
