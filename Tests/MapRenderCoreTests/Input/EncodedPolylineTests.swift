import Foundation
import Testing
import TestSupport
@testable import MapRenderCore

@Suite("Encoded polyline")
struct InputEncodedPolylineTests {
    /// The error `text` gives, or nil when it decodes.
    private func failure(_ text: String, precision: Int = 5) -> EncodedPolylineError? {
        do {
            _ = try EncodedPolyline.decode(text, precision: precision)
            return nil
        } catch {
            return error
        }
    }

    /// The example of Google's format documentation.
    @Test func googlesExample() throws {
        let coords = try EncodedPolyline.decode("_p~iF~ps|U_ulLnnqC_mqNvxq`@")
        // (38.5, -120.2), (40.7, -120.95), (43.252, -126.453) as lat, lng; lon, lat here.
        #expect(coords == [-120.2, 38.5, -120.95, 40.7, -126.453, 43.252])
    }

    /// The documentation's worked value, -179.9832104, encodes as ``~oia@`` at 5 places (here
    /// after a latitude of 0, `?`).
    @Test func documentationStepByStep() throws {
        #expect(try EncodedPolyline.decode("?`~oia@") == [-179.98321, 0])
        #expect(TestPolylineEncoder.encode([(0, -17_998_321)]) == "?`~oia@")
    }

    @Test func emptyIsNoVertices() throws {
        #expect(try EncodedPolyline.decode("") == [])
        #expect(try EncodedPolyline.decode("", precision: 6) == [])
        #expect(try EncodedPolyline.decode(UnsafeBufferPointer<UInt8>(start: nil, count: 0)) == [])
    }

    @Test func precisionSix() throws {
        // The same vertices as Google's example, at 6 places (OSRM's and Valhalla's polyline6).
        let text = TestPolylineEncoder.encode([(38_500_000, -120_200_000), (40_700_000, -120_950_000), (43_252_000, -126_453_000)])
        #expect(text == "_izlhA~rlgdF_{geC~ywl@_kwzCn`{nI")
        #expect(try EncodedPolyline.decode(text, precision: 6) == [-120.2, 38.5, -120.95, 40.7, -126.453, 43.252])
        // Read at 5 places, the same text is ten times as far: out of range.
        #expect(failure(text)?.kind == .latitudeOutOfRange(385))
        // The extremes.
        let corners = TestPolylineEncoder.encode([(90_000_000, 180_000_000), (-90_000_000, -180_000_000), (0, 0)])
        #expect(try EncodedPolyline.decode(corners, precision: 6) == [180, 90, -180, -90, 0, 0])
    }

    @Test func fromBytesAndSubstrings() throws {
        #expect(try EncodedPolyline.decode(Array("_p~iF~ps|U".utf8)) == [-120.2, 38.5])
        let row = "id,_p~iF~ps|U,x"
        let field = row.split(separator: ",")[1]
        #expect(try EncodedPolyline.decode(field) == [-120.2, 38.5])
    }

    // MARK: Errors

    @Test(arguments: [
        ("_p~iF~ps|U_ulLnnqC_mqNvxq`", "encoded polyline at character 23: the text ends inside a value that starts here"),
        ("_p~iF~ps|U_ulL", "encoded polyline at character 15: the text ends after a latitude, without its longitude"),
        ("_p~iF ~ps|U", "encoded polyline at character 6: ' ' is not a polyline character ('?' to '~')"),
        ("_p~iF~ps|U\u{7F}", "encoded polyline at character 11: byte 0x7F is not a polyline character ('?' to '~')"),
        ("_p~iF~ps|é", "encoded polyline at character 10: byte 0xC3 is not a polyline character ('?' to '~')"),
        ("~~~~~~~?", "encoded polyline at character 1: a value longer than 32 bits"),
        ("~~~~~~^??", "encoded polyline at character 1: a value longer than 32 bits"),
        ("}~~~~~A??", "encoded polyline at character 1: latitude 16106.12735 is outside -90...90"),
    ])
    func errorsSayWhatAndWhere(text: String, message: String) throws {
        let e = try #require(failure(text))
        #expect("\(e)" == message)
    }

    @Test func rangesAreCheckedAfterEachVertex() throws {
        let latitude = TestPolylineEncoder.encode([(0, 0), (9_000_001, 0)])
        #expect(latitude == "??acidP?")
        let e = try #require(failure(latitude))
        #expect(e == EncodedPolylineError(.latitudeOutOfRange(90.00001), at: 2))
        #expect("\(e)" == "encoded polyline at character 3: latitude 90.00001 is outside -90...90")
        #expect(try EncodedPolyline.decode(TestPolylineEncoder.encode([(-9_000_000, 0)])) == [0, -90])

        let longitude = TestPolylineEncoder.encode([(0, -18_000_000), (0, -18_000_001)])
        #expect(longitude == "?~fsia@?@")
        #expect("\(try #require(failure(longitude)))" == "encoded polyline at character 9: longitude -180.00001 is outside -180...180")
        // Out of range only on the way: still an error (no wrapping).
        let detour = TestPolylineEncoder.encode([(0, 17_000_000), (0, 19_000_000), (0, 17_000_000)])
        #expect(failure(detour)?.kind == .longitudeOutOfRange(190))
    }

    @Test func precisionOtherThanFiveOrSix() throws {
        for p in [0, 4, 7, -5] {
            let e = try #require(failure("_p~iF~ps|U", precision: p))
            #expect(e == EncodedPolylineError(.unsupportedPrecision(p), at: nil))
        }
        #expect("\(try #require(failure("", precision: 7)))" == "encoded polyline: precision 7 is not supported (5 or 6)")
    }

    // MARK: Properties

    /// Random lines at both precisions, encoded by the test's encoder, decode to the nearest
    /// doubles of the encoded decimals; no drift over a long line.
    @Test(arguments: [5, 6])
    func randomLinesRoundTrip(precision: Int) throws {
        var rng = SeededRandom(seed: 0x901E_0000 + UInt64(precision))
        let scale = precision == 5 ? 100_000 : 1_000_000
        for trial in 0..<400 {
            let count = trial == 0 ? 20_000 : Int.random(in: 1...60, using: &rng)
            var vertices: [(lat: Int, lon: Int)] = []
            for _ in 0..<count {
                vertices.append((Int.random(in: -90 * scale...90 * scale, using: &rng),
                                 Int.random(in: -180 * scale...180 * scale, using: &rng)))
            }
            let text = TestPolylineEncoder.encode(vertices)
            let decoded = try EncodedPolyline.decode(text, precision: precision)
            let expected = vertices.flatMap { [Double($0.lon) / Double(scale), Double($0.lat) / Double(scale)] }
            #expect(decoded == expected)
            // Every proper prefix fails or decodes to a prefix of the vertices (short lines only:
            // this is quadratic).
            if trial > 0 && trial < 40 {
                let bytes = Array(text.utf8)
                for cut in 0..<bytes.count {
                    do {
                        let part = try EncodedPolyline.decode(Array(bytes[..<cut]), precision: precision)
                        #expect(part.count < expected.count && Array(expected[..<part.count]) == part)
                    } catch {
                        #expect(error.kind == .truncated || error.kind == .latitudeWithoutLongitude)
                        #expect(error.offset! <= cut)
                    }
                }
            }
        }
    }

    /// Random bytes never crash: each decodes or fails with an offset in the text.
    @Test func randomBytesFailCleanly() throws {
        var rng = SeededRandom(seed: 0x901E_0001)
        for _ in 0..<5_000 {
            let bytes = (0..<Int.random(in: 0...40, using: &rng)).map { _ in
                Bool.random(using: &rng) ? UInt8.random(in: 63...126, using: &rng) : UInt8.random(in: 0...255, using: &rng)
            }
            for precision in [5, 6] {
                do {
                    let coords = try EncodedPolyline.decode(bytes, precision: precision)
                    #expect(coords.count % 2 == 0)
                    for k in stride(from: 0, to: coords.count, by: 2) {
                        #expect(abs(coords[k]) <= 180 && abs(coords[k + 1]) <= 90)
                    }
                } catch {
                    #expect(error.offset! <= bytes.count)
                }
            }
        }
    }
}

/// Google's encoding, for the tests: vertices in integer units of the precision, lat first.
enum TestPolylineEncoder {
    static func encode(_ vertices: [(lat: Int, lon: Int)]) -> String {
        var out: [UInt8] = []
        var previous = (lat: 0, lon: 0)
        for v in vertices {
            value(v.lat - previous.lat, into: &out)
            value(v.lon - previous.lon, into: &out)
            previous = v
        }
        return String(decoding: out, as: UTF8.self)
    }

    /// Doubled, inverted when negative, then 5 bits at a time, least significant first, 0x20 on
    /// every chunk but the last, each plus 63.
    private static func value(_ v: Int, into out: inout [UInt8]) {
        var z = v < 0 ? ~(v << 1) : v << 1
        while z >= 0x20 {
            out.append(UInt8(0x20 | (z & 0x1F)) + 63)
            z >>= 5
        }
        out.append(UInt8(z) + 63)
    }
}
