import TestSupport
import Foundation
import Testing
@testable import MapRenderCore

@Suite("Fast number parsing")
struct InputFastNumberTests {
    private func parse(_ s: String, strict: Bool = false) -> Double? {
        var bytes = Array(s.utf8)
        bytes.append(0)   // a valid pointer even for ""
        return bytes.withUnsafeBufferPointer { FastNumber.parseDecimal($0.baseAddress!, $0.count - 1, strict: strict) }
    }

    private func coordinate(_ s: String, decimalComma: Bool = false) -> CoordinateParse {
        var bytes = Array(s.utf8)
        bytes.append(0)
        return bytes.withUnsafeBufferPointer { FastNumber.parseCoordinate($0.baseAddress!, $0.count - 1, decimalComma: decimalComma) }
    }

    @Test func matchesTheStandardLibraryBitForBit() {
        var samples = ["0", "-0", "1", "42.50729", "-122.4194155", "6.729649806269851", "0.3374664069826239",
                       "-46.63611", "1e10", "1.5E-7", "123456789012345678901234", "0.1", "0.30000000000000004",
                       "9007199254740993", "179.99999999999999", "-89.999999999999999", "1e-320", "2.2250738585072014e-308",
                       "1e22", "1e23", "45.000000000000000000001", "0.000001234", "100", "1E+2"]
        var rng = SystemRandomNumberGenerator()
        for _ in 0..<20_000 {
            let digits = Int.random(in: 1...19, using: &rng)
            var s = Int.random(in: 0...1, using: &rng) == 0 ? "-" : ""
            let point = Int.random(in: 0...digits, using: &rng)
            for k in 0..<digits {
                if k == point && k > 0 { s += "." }
                s += String(Int.random(in: k == 0 ? 1...9 : 0...9, using: &rng))
            }
            if Int.random(in: 0...4, using: &rng) == 0 { s += "e\(Int.random(in: -30...30, using: &rng))" }
            samples.append(s)
        }
        for s in samples {
            let expected = Double(s)!
            let got = parse(s)
            #expect(got?.bitPattern == expected.bitPattern, "\(s)")
        }
    }

    /// JSON's reader takes plain decimals in one pass (`plainDecimal`) and the rest the long way:
    /// both give the standard library's bits, whatever follows the number, and what is not JSON
    /// is refused either way.
    @Test func jsonNumbersMatchTheStandardLibraryWhateverTheirShape() throws {
        var rng = SeededRandom(seed: 44)
        func pick(_ n: Int) -> Int { Int(rng.next() % UInt64(n)) }
        var samples = ["0", "-0", "0.0", "-0.000", "9007199254740993", "9007199254740992.5", "1234567890123456789",
                       "12345678901234567890", "0.1234567890123456789", "1.7976931348623157e308", "5e-324", "1e22", "1e23"]
        for _ in 0..<30_000 {
            let digits = 1 + pick(21)
            var s = pick(2) == 0 ? "-" : ""
            let point = pick(digits + 1)
            for k in 0..<digits {
                if k == point && k > 0 { s += "." }
                s += String(k == 0 ? 1 + pick(9) : pick(10))
            }
            if pick(6) == 0 { s += ["e", "E", "e+", "E-"][pick(4)] + String(pick(40)) }
            samples.append(s)
        }
        for s in samples {
            for follower in ["", ",", "]", " }", "\n"] {
                let text = "[" + s + follower + (follower == "," ? "1]" : follower == "" ? "]" : "")
                let got: Double? = try JSONScanner.scan(Array(text.utf8), name: "n") { scanner in
                    var scanner = scanner
                    try scanner.enterArray()
                    var first = true
                    _ = try scanner.nextElement(&first)
                    return try scanner.readNumber()
                }
                #expect(got?.bitPattern == Double(s)!.bitPattern, "\(text)")
            }
        }
        for bad in ["01", "-", "1.", "-.5", "1.5.2", "1e", "--1", "1-2", "1+2", "0.5.", "00.5"] {
            let thrown = (try? JSONScanner.scan(Array(("[" + bad + "]").utf8), name: "n") { scanner in
                var scanner = scanner
                try scanner.enterArray()
                var first = true
                _ = try scanner.nextElement(&first)
                return try scanner.readNumber()
            }) == nil
            #expect(thrown, "\(bad) read as a number")
        }
    }

    @Test func coordinatesInTheSharedCSVsParseExactly() throws {
        for name in ["world_cities_15000.csv", "airports_us.csv", "tracks.csv"] {
            let text = try String(contentsOf: URL(fileURLWithPath: InputFixtures.shared(name)), encoding: .utf8)
            for line in text.split(separator: "\n").dropFirst() {
                for field in line.split(separator: ",") where field.first.map({ $0 == "-" || $0.isNumber }) == true && Double(field) != nil {
                    #expect(parse(String(field))?.bitPattern == Double(field)!.bitPattern, "\(field)")
                }
            }
        }
    }

    @Test func strictJSONGrammar() {
        for bad in ["00", "0123", "+1", ".5", "1.", "1e", "-", "", "1e+", "--1", "1.2.3", "0x10", " 1", "1 "] {
            #expect(parse(bad, strict: true) == nil, "\(bad)")
        }
        for good in ["0", "-0", "10", "1.25", "1e5", "1E+5", "-0.5e-3"] {
            #expect(parse(good, strict: true) == Double(good)!, "\(good)")
        }
        #expect(parse("+1.5") == 1.5 && parse(".5") == 0.5 && parse("5.") == 5 && parse("007") == 7)
    }

    @Test func coordinateFields() {
        #expect(coordinate(" 12.5\t") == .value(12.5))
        #expect(coordinate("") == .empty)
        #expect(coordinate("   ") == .empty)
        #expect(coordinate("abc") == .notANumber)
        #expect(coordinate("12,5") == .notANumber)
        #expect(coordinate("12,5", decimalComma: true) == .value(12.5))
        #expect(coordinate("1,2,3", decimalComma: true) == .notANumber)
        for s in ["NaN", "nan", "-inf", "Infinity", "+INF", "1e999"] { #expect(coordinate(s) == .nonFinite, "\(s)") }
        #expect(coordinate("1e-999") == .value(0))
    }

    @Test func coordinateCheckOrder() {
        #expect(CoordinateCheck.check(lat: .notANumber, lon: .empty, wrapLongitude: false) == .skip(.emptyCoordinate))
        #expect(CoordinateCheck.check(lat: .nonFinite, lon: .notANumber, wrapLongitude: false) == .skip(.notANumber))
        #expect(CoordinateCheck.check(lat: .value(100), lon: .value(200), wrapLongitude: false) == .skip(.latitudeOutOfRange))
        #expect(CoordinateCheck.check(lat: .value(90), lon: .value(-180), wrapLongitude: false) == .point(lat: 90, lon: -180))
        #expect(CoordinateCheck.check(lat: .value(0), lon: .value(360), wrapLongitude: true) == .point(lat: 0, lon: 0))
    }
}
