import Foundation
import Testing
import TestSupport
@testable import MapRenderCore

/// The ASCII fast path of `RGBA.parse` against the general one, over generated colour texts:
/// whenever the fast path answers, its answer is the general path's, to the bit; it answers every
/// plain hex colour; and what it refuses the general path reads as before.
@Suite struct RGBAParseTests {
    @Test func fastHexPathGivesTheGeneralPathsColours() {
        var rng = SeededRandom(seed: 11)
        let digits = Array("0123456789abcdefABCDEF")
        let pads = ["", " ", "\t", "  ", " \t"]
        var answered = 0
        for _ in 0..<20_000 {
            let n = [3, 4, 6, 8, 5, 2, 9, 0].randomElement(using: &rng)!
            var body = String((0..<n).map { _ in digits.randomElement(using: &rng)! })
            if Int.random(in: 0..<10, using: &rng) == 0 { body.insert(["g", " ", "#", "é"].randomElement(using: &rng)!, at: body.startIndex) }
            let text = pads.randomElement(using: &rng)! + (Int.random(in: 0..<20, using: &rng) == 0 ? "" : "#") + body + pads.randomElement(using: &rng)!
            let general = RGBA.parseGeneral(text)
            if let fast = RGBA.parseASCIIHex(text) {
                answered += 1
                #expect(fast == general, "\(text.debugDescription): \(fast) against \(String(describing: general))")
            } else if [3, 4, 6, 8].contains(n), text.trimmingCharacters(in: .whitespaces) == "#" + body, body.allSatisfy(\.isHexDigit) {
                Issue.record("\(text.debugDescription) is a plain hex colour the fast path refused")
            }
            #expect(RGBA.parse(text) == general)
        }
        #expect(answered > 5_000)
        for named in ["red", "rgb(1,2,3)", "hsl(120,50%,50%)", "#12345", "# 123", "#1 23"] {
            #expect(RGBA.parse(named) == RGBA.parseGeneral(named))
        }
    }
}
