import Foundation
import Testing
@testable import MapRenderCairo
import MapRenderCore

/// Wrapped labels (`text-max-width`, a callout's width) break between words where the text has
/// word boundaries, at every width from one em to the whole text; a word alone wider than the
/// width is broken inside (the one fallback); CJK, which breaks between characters by Unicode's
/// line-breaking rules, wraps there.
@Suite struct TextWrapTests {
    let pango = PangoText()
    let font = FontSpec(family: "DejaVu Sans", size: 16, weight: .normal)

    /// Whether each line is a run of whole words of `text`.
    static func wholeWords(_ lines: [PangoText.Line], of text: String) -> Bool {
        let words = Set(text.split(separator: " ").map(String.init))
        return lines.allSatisfy { $0.text.split(separator: " ").allSatisfy { words.contains(String($0)) } }
            && lines.map(\.text).joined(separator: " ") == text
    }

    @Test func latinBreaksBetweenWords() {
        let texts = ["Bosnia and Herzegovina", "Saint Vincent and the Grenadines", "Democratic Republic of the Congo",
                     "Kosciuszko National Park", "Rheinland-Pfalz und Saarland"]
        var checked = 0
        for text in texts {
            let widest = text.split(separator: " ").map { pango.measure(String($0), font: font, maxWidth: nil).width }.max()!
            let full = pango.measure(text, font: font, maxWidth: nil).width
            // Every width at which each word fits on a line: whole words on every line.
            for w in stride(from: widest.rounded(.up) + 1, through: full + 2, by: 3) {
                let lines = pango.lines(text, font: font, maxWidth: w)
                #expect(Self.wholeWords(lines, of: text), "\(text) at \(w) px: \(lines.map(\.text))")
                #expect(lines.allSatisfy { pango.measure($0.text, font: font, maxWidth: nil).width <= w + 0.5 })
                checked += 1
            }
        }
        print("wrapped Latin labels: \(checked) widths checked, whole words on every line")
        #expect(checked > 100)
    }

    /// Narrower than a word of several: that word overflows on a line of its own, whole (as
    /// MapLibre's), and no other word is cut to fill a line before it; a text of one word wider
    /// than the width is broken inside it (the fallback).
    @Test func aWordWiderThanTheWidth() {
        for (text, w) in [("Bosnia and Herzegovina", 95.0), ("Lake Llanfairpwllgwyngyll Shore", 60), ("Saint Vincent and the Grenadines", 80)] {
            let lines = pango.lines(text, font: font, maxWidth: w)
            #expect(Self.wholeWords(lines, of: text), "\(text) at \(w) px: \(lines.map(\.text))")
        }
        let lines = pango.lines("Llanfairpwllgwyngyll", font: font, maxWidth: 60)
        #expect(lines.count >= 2)
        #expect(lines.map(\.text).joined() == "Llanfairpwllgwyngyll")
        #expect(lines.allSatisfy { pango.measure($0.text, font: font, maxWidth: nil).width <= 60.5 })
    }

    @Test func cjkWrapsBetweenCharacters() {
        let text = "中华人民共和国北京市海淀区"
        let lines = pango.lines(text, font: font, maxWidth: 100)
        #expect(lines.count >= 2)
        #expect(lines.map(\.text).joined() == text)
        #expect(lines.allSatisfy { pango.measure($0.text, font: font, maxWidth: nil).width <= 100.5 })
    }
}
