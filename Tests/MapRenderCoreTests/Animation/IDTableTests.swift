import Testing
import TestSupport
@testable import MapRenderCore

/// `IDTable` numbers ids exactly as a `Dictionary<PropertyValue, Int>` would.
@Suite struct IDTableTests {
    @Test func idsAreEqualAsPropertyValuesAre() {
        var t = IDTable()
        #expect(t.insert(.number(1)) == (0, true))
        #expect(t.insert(.number(1.0)) == (0, false))       // 1 and 1.0: one number
        #expect(t.insert(.string("1")) == (1, true))        // the string "1" is another id
        #expect(t.insert(.number(0)) == (2, true))
        #expect(t.insert(.number(-0.0)) == (2, false))      // 0 == -0
        #expect(t.insert(.json("[1]")) == (3, true))
        #expect(t.insert(.string("[1]")) == (4, true))      // JSON text and a string differ
        #expect(t.insert(.bool(true)) == (5, true))
        #expect(t.insert(.number(.nan)) == (6, true))       // NaN equals nothing, not even NaN
        #expect(t.insert(.number(.nan)) == (7, true))
        // Canonically equivalent strings are equal Swift strings: é precomposed and decomposed,
        // the Kelvin sign and K.
        #expect(t.insert(.string("caf\u{E9}")) == (8, true))
        #expect(t.insert(.string("cafe\u{301}")) == (8, false))
        #expect(t.insert(.string("K")) == (9, true))
        #expect(t.insert(.string("\u{212A}")) == (9, false))
        #expect(t.index(of: .number(1)) == 0 && t.index(of: .string("1")) == 1 && t.index(of: .number(2)) == nil)
        #expect(t.count == 10)
    }

    /// Property: on generated ids (numbers, strings that look like them, repeats, growth from
    /// an empty table), the same numbers as a dictionary assigning them in order.
    @Test(arguments: [1, 2, 3, 4, 5])
    func agreesWithADictionary(seed: UInt64) {
        var rng = SeededRandom(seed: seed)
        var table = IDTable(expectedCount: seed == 1 ? 0 : 500)
        var dictionary: [PropertyValue: Int] = [:]
        for _ in 0..<20_000 {
            let k = Int(rng.next() % 6000)
            let id: PropertyValue = switch rng.next() % 4 {
            case 0: .number(Double(k))
            case 1: .string(String(k))
            case 2: .number(Double(k) / 8)
            default: .string("id-\(k % 97)-\u{E9}")
            }
            let expected = dictionary[id]
            if expected == nil { dictionary[id] = dictionary.count }
            let got = table.insert(id)
            #expect(got.index == dictionary[id]! && got.inserted == (expected == nil))
        }
        #expect(table.count == dictionary.count)
        for (id, k) in dictionary { #expect(table.index(of: id) == k) }
    }
}
