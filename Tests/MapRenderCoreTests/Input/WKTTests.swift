import Foundation
import Testing
import TestSupport
@testable import MapRenderCore

@Suite("WKT geometry")
struct InputWKTTests {
    /// The error `text` gives, or nil when it parses.
    private func failure(_ text: String) -> WKTError? {
        do {
            _ = try WKT.parse(text)
            return nil
        } catch {
            return error
        }
    }

    /// `parse` with small bounds.
    private func boundedFailure(_ text: String, maxBytes: Int = WKT.maxBytes, maxCoordinates: Int = WKT.maxCoordinates,
                         maxDepth: Int = WKT.maxDepth) -> WKTError? {
        let bytes = Array(text.utf8)
        do {
            _ = try bytes.withUnsafeBufferPointer { buffer in
                Result { () throws(WKTError) -> WKTGeometry in
                    try WKT.parse(buffer, maxBytes: maxBytes, maxCoordinates: maxCoordinates, maxDepth: maxDepth)
                }
            }.get()
            return nil
        } catch {
            return error
        }
    }

    // MARK: Geometry types

    @Test func point() throws {
        #expect(try WKT.parse("POINT (30 10)") == WKTGeometry(points: [30, 10]))
        #expect(try WKT.parse("POINT(-122.4194155 37.7749)").points == [-122.4194155, 37.7749])
    }

    @Test func lineString() throws {
        let g = try WKT.parse("LINESTRING (30 10, 10 30, 40 40)")
        #expect(g == WKTGeometry(lines: [[30, 10, 10, 30, 40, 40]]))
        #expect(g.vertexCount == 3)
    }

    @Test func polygonWithHoles() throws {
        let g = try WKT.parse("POLYGON ((35 10, 45 45, 15 40, 10 20, 35 10), (20 30, 35 35, 30 20, 20 30), (1 1, 2 1, 2 2, 1 1))")
        #expect(g.polygons == [[[35, 10, 45, 45, 15, 40, 10, 20, 35, 10], [20, 30, 35, 35, 30, 20, 20, 30], [1, 1, 2, 1, 2, 2, 1, 1]]])
        #expect(g.points.isEmpty && g.lines.isEmpty)
    }

    @Test func multiPointBothForms() throws {
        let expected = WKTGeometry(points: [10, 40, 40, 30, 20, 20, 30, 10])
        #expect(try WKT.parse("MULTIPOINT ((10 40), (40 30), (20 20), (30 10))") == expected)
        #expect(try WKT.parse("MULTIPOINT (10 40, 40 30, 20 20, 30 10)") == expected)
        #expect(try WKT.parse("MULTIPOINT (10 40, (40 30), 20 20, (30 10))") == expected)
        #expect(try WKT.parse("MULTIPOINT ((10 40), EMPTY, 40 30)").points == [10, 40, 40, 30])
    }

    @Test func multiLineString() throws {
        let g = try WKT.parse("MULTILINESTRING ((10 10, 20 20, 10 40), EMPTY, (40 40, 30 30, 40 20, 30 10))")
        #expect(g == WKTGeometry(lines: [[10, 10, 20, 20, 10, 40], [40, 40, 30, 30, 40, 20, 30, 10]]))
    }

    @Test func multiPolygon() throws {
        let g = try WKT.parse("""
            MULTIPOLYGON (((40 40, 20 45, 45 30, 40 40)),
                          ((20 35, 10 30, 10 10, 30 5, 45 20, 20 35), (30 20, 20 15, 20 25, 30 20)), EMPTY)
            """)
        #expect(g.polygons == [[[40, 40, 20, 45, 45, 30, 40, 40]],
                               [[20, 35, 10, 30, 10, 10, 30, 5, 45, 20, 20, 35], [30, 20, 20, 15, 20, 25, 30, 20]]])
    }

    @Test func geometryCollectionNested() throws {
        let g = try WKT.parse("""
            GEOMETRYCOLLECTION (POINT (40 10), LINESTRING (10 10, 20 20),
              GEOMETRYCOLLECTION (POLYGON ((0 0, 1 0, 1 1, 0 0)), MULTIPOINT (1 2, 3 4), GEOMETRYCOLLECTION EMPTY),
              POINT EMPTY, MULTILINESTRING ((5 5, 6 6)))
            """)
        #expect(g.points == [40, 10, 1, 2, 3, 4])
        #expect(g.lines == [[10, 10, 20, 20], [5, 5, 6, 6]])
        #expect(g.polygons == [[[0, 0, 1, 0, 1, 1, 0, 0]]])
        #expect(g.vertexCount == 3 + 4 + 4)
    }

    @Test func collectionsNestUpToTheLimit() throws {
        func nested(_ depth: Int) -> String {
            String(repeating: "GEOMETRYCOLLECTION(", count: depth) + "POINT(1 2)" + String(repeating: ")", count: depth)
        }
        #expect(try WKT.parse(nested(WKT.maxDepth)).points == [1, 2])
        let e = try #require(failure(nested(WKT.maxDepth + 1)))
        #expect(e.kind == .tooDeep(limit: 32))
        #expect(e.offset == 19 * 32)
        #expect("\(e)" == "WKT at character 609: geometry collections nested more than 32 deep")
        // Far deeper than the limit: stopped at the limit, no deep recursion.
        #expect(failure(nested(100_000))?.kind == .tooDeep(limit: 32))
    }

    // MARK: EMPTY, dimensions, case, spacing, numbers, SRID

    @Test func empty() throws {
        for text in ["POINT EMPTY", "linestring empty", "POLYGON EMPTY", "MULTIPOINT EMPTY", "MULTILINESTRING EMPTY",
                     "MULTIPOLYGON EMPTY", "GEOMETRYCOLLECTION EMPTY", "POINT Z EMPTY", "POINTZM EMPTY",
                     "GEOMETRYCOLLECTION (POINT EMPTY, GEOMETRYCOLLECTION EMPTY)", "POLYGON (EMPTY)",
                     "MULTIPOLYGON (EMPTY, (EMPTY))", "MULTIPOINT (EMPTY)", "SRID=4326;POINT EMPTY"] {
            let g = try WKT.parse(text)
            #expect(g.isEmpty, "\(text)")
            #expect(g.vertexCount == 0)
        }
        // An EMPTY ring is left out; the rings after it stay.
        #expect(try WKT.parse("POLYGON (EMPTY, (0 0, 1 0, 1 1, 0 0))").polygons == [[[0, 0, 1, 0, 1, 1, 0, 0]]])
    }

    @Test func dimensionTagsKeepXY() throws {
        #expect(try WKT.parse("POINT Z (1 2 3)").points == [1, 2])
        #expect(try WKT.parse("POINT M (1 2 4)").points == [1, 2])
        #expect(try WKT.parse("POINT ZM (1 2 3 4)").points == [1, 2])
        #expect(try WKT.parse("POINTZ(1 2 3)").points == [1, 2])
        #expect(try WKT.parse("pointzm(1 2 3 4)").points == [1, 2])
        #expect(try WKT.parse("LINESTRING Z (1 2 3, 4 5 6)").lines == [[1, 2, 4, 5]])
        #expect(try WKT.parse("POLYGON ZM ((0 0 1 2, 1 0 1 2, 1 1 1 2, 0 0 1 2))").polygons == [[[0, 0, 1, 0, 1, 1, 0, 0]]])
        #expect(try WKT.parse("MULTIPOINT Z ((1 2 3), (4 5 6))").points == [1, 2, 4, 5])
        #expect(try WKT.parse("GEOMETRYCOLLECTION Z (POINT Z (1 2 3))").points == [1, 2])
        // Untagged (PostGIS's EWKT): 2 to 4 numbers.
        #expect(try WKT.parse("LINESTRING (1 2 3, 4 5 6 7, 8 9)").lines == [[1, 2, 4, 5, 8, 9]])
    }

    @Test func keywordsInAnyCaseAndAnyWhitespace() throws {
        #expect(try WKT.parse(" \t\n pOiNt\r\n(\t1\u{0B}\u{0C}2 ) \n") == WKTGeometry(points: [1, 2]))
        #expect(try WKT.parse("multipolygon(((0 0,1 0,1 1,0 0)))").polygons.count == 1)
        #expect(try WKT.parse("LineString(1 2,3 4)").lines == [[1, 2, 3, 4]])
        #expect(try WKT.parse("MULTIPOINT((1 2),(3 4))").points == [1, 2, 3, 4])
        #expect(try WKT.parse("POLYGON((0 0 , 1 0 ,1 1,0 0) ,( 0.2 0.2,0.3 0.2,0.3 0.3,0.2 0.2 ))").polygons[0].count == 2)
    }

    @Test func numbers() throws {
        #expect(try WKT.parse("POINT (1e1 -2.5E-1)").points == [10, -0.25])
        #expect(try WKT.parse("POINT (+1 .5)").points == [1, 0.5])
        #expect(try WKT.parse("POINT (1.5e+2 -0)").points == [150, 0])
        #expect(try WKT.parse("POINT (0.1 1e-7)").points == [0.1, 1e-7])
        #expect(try WKT.parse("POINT (179.99999999999999 -89.999999999999999)").points == [180, -90])
        #expect(try WKT.parse("POINT (-122.41941550000001 6.729649806269851)").points == [-122.41941550000001, 6.729649806269851])
    }

    @Test func sridPrefix() throws {
        #expect(try WKT.parse("SRID=4326;POINT(1 2)").points == [1, 2])
        #expect(try WKT.parse("srid = 04326 ; point (1 2)").points == [1, 2])
        #expect(try WKT.parse(" SRID=4326;  GEOMETRYCOLLECTION(POINT(1 2))").points == [1, 2])
        #expect("\(try #require(failure("SRID=3857;POINT(1 2)")))"
                == "WKT at character 6: SRID 3857 is not supported (only SRID=4326: longitude, latitude in degrees)")
        #expect(failure("SRID=0;POINT(1 2)")?.kind == .unsupportedSRID("0"))
        #expect("\(try #require(failure("SRID=4326 POINT(1 2)")))" == "WKT at character 6: expected SRID=4326; before the geometry")
        #expect(failure("SRID 4326;POINT(1 2)") == WKTError(.malformedSRID, at: 5))
        #expect(failure("SRID=;POINT(1 2)") == WKTError(.malformedSRID, at: 5))
        #expect(failure("SRID=4326;") == WKTError(.expectedGeometryType, at: 10))
        // Only before the geometry.
        #expect(failure("GEOMETRYCOLLECTION(SRID=4326;POINT(1 2))")?.kind == .unknownGeometryType("SRID"))
    }

    @Test func fromBytesAndSubstrings() throws {
        #expect(try WKT.parse(Array("POINT(1 2)".utf8)).points == [1, 2])
        let row = "7,POINT(3 4),x"
        let field = row.split(separator: ",", maxSplits: 1)[1].dropLast(2)
        #expect(try WKT.parse(field).points == [3, 4])
        #expect(throws: WKTError(.noGeometry, at: 0)) { try WKT.parse(UnsafeBufferPointer<UInt8>(start: nil, count: 0)) }
    }

    // MARK: Errors

    /// Each error, its offset and its message.
    @Test(arguments: [
        ("", "WKT at character 1: no geometry (the text is empty)"),
        ("  \n ", "WKT at character 5: no geometry (the text is empty)"),
        ("CIRCLE (1 2)", "WKT at character 1: unknown geometry type 'CIRCLE'"),
        ("POINTS (1 2)", "WKT at character 1: unknown geometry type 'POINTS'"),
        ("(1 2)", "WKT at character 1: expected a geometry type such as POINT or POLYGON"),
        ("POINT", "WKT at character 6: expected '(' or EMPTY to start POINT"),
        ("POINT 1 2", "WKT at character 7: expected '(' or EMPTY to start POINT"),
        ("POINT ZZ (1 2)", "WKT at character 7: expected '(' or EMPTY to start POINT"),
        ("POINT (1 2", "WKT at character 11: the text ends before ')' closes POINT"),
        ("POINT (1 2, 3 4)", "WKT at character 11: expected ')' to close POINT"),
        ("LINESTRING (1 2, 3 4", "WKT at character 21: the text ends before ')' closes LINESTRING"),
        ("LINESTRING (1 2, 3 4 (5 6))", "WKT at character 22: expected ',' or ')' in LINESTRING"),
        ("POLYGON ((0 0, 1 0, 1 1, 0 0)", "WKT at character 30: the text ends before ')' closes POLYGON"),
        ("POLYGON ((0 0, 1 0, 1 1, 0 0", "WKT at character 29: the text ends before ')' closes a ring of POLYGON"),
        ("POLYGON ((0 0, 1 0, 1 1, 0 0) (2 2, 3 3, 2 2))", "WKT at character 31: expected ',' or ')' in POLYGON"),
        ("POLYGON (0 0, 1 0, 1 1, 0 0)", "WKT at character 10: expected '(' or EMPTY to start a ring of POLYGON"),
        ("MULTILINESTRING (1 2, 3 4)", "WKT at character 18: expected '(' or EMPTY to start a linestring of MULTILINESTRING"),
        ("MULTIPOLYGON ((0 0, 1 0, 1 1, 0 0))", "WKT at character 16: expected '(' or EMPTY to start a ring of MULTIPOLYGON"),
        ("MULTIPOLYGON (((0 0, 1 0, 1 1, 0 0))", "WKT at character 37: the text ends before ')' closes MULTIPOLYGON"),
        ("MULTIPOINT ((1 2 ), (3 4", "WKT at character 25: the text ends before ')' closes a point of MULTIPOINT"),
        ("MULTIPOINT ((1 2, 3 4))", "WKT at character 17: expected ')' to close a point of MULTIPOINT"),
        ("GEOMETRYCOLLECTION (POINT (1 2),", "WKT at character 33: the text ends before ')' closes GEOMETRYCOLLECTION"),
        ("GEOMETRYCOLLECTION (POINT (1 2) POINT (3 4))", "WKT at character 33: expected ',' or ')' in GEOMETRYCOLLECTION"),
        ("POINT (1 2))", "WKT at character 12: ')' with no '(' to close"),
        ("POINT (1 2) POINT (3 4)", "WKT at character 13: unexpected 'POINT (3 4)' after the geometry"),
        ("POINT (1 2);", "WKT at character 12: unexpected ';' after the geometry"),
        ("POINT (1 x)", "WKT at character 10: 'x' is not a number"),
        ("POINT (1 2é)", "WKT at character 10: '2é' is not a number"),
        ("POINT (1 -)", "WKT at character 10: '-' is not a number"),
        ("POINT (1 1.2.3)", "WKT at character 10: '1.2.3' is not a number"),
        ("POINT (1,2)", "WKT at character 8: a coordinate needs at least 2 numbers (longitude latitude), found 1"),
        ("POINT (1 NaN)", "WKT at character 10: 'NaN' is not a finite number"),
        ("POINT (-inf 2)", "WKT at character 8: '-inf' is not a finite number"),
        ("POINT (1 1e999)", "WKT at character 10: '1e999' is not a finite number"),
        ("POINT (1)", "WKT at character 8: a coordinate needs at least 2 numbers (longitude latitude), found 1"),
        ("POINT ()", "WKT at character 8: expected a coordinate in POINT"),
        ("LINESTRING (1 2, , 3 4)", "WKT at character 18: expected a coordinate in LINESTRING"),
        ("LINESTRING (1 2,", "WKT at character 17: the text ends before ')' closes LINESTRING"),
        ("LINESTRING ((1 2))", "WKT at character 13: expected a coordinate in LINESTRING"),
        ("POINT (1 2 3 4 5)", "WKT at character 8: a coordinate has at most 4 numbers (x y z m), found 5"),
        ("POINT Z (1 2)", "WKT at character 10: POINT Z coordinates have 3 numbers, found 2"),
        ("LINESTRING ZM (1 2 3 4, 5 6 7)", "WKT at character 25: LINESTRING ZM coordinates have 4 numbers, found 3"),
        ("POINTM (1 2 3 4)", "WKT at character 9: POINT M coordinates have 3 numbers, found 4"),
        ("GEOMETRYCOLLECTION (CIRCLE (1 2))", "WKT at character 21: unknown geometry type 'CIRCLE'"),
    ])
    func errorsSayWhatAndWhere(text: String, message: String) throws {
        let e = try #require(failure(text))
        #expect("\(e)" == message)
    }

    @Test func errorKinds() throws {
        #expect(failure("POINT (1 2")?.kind == .unclosed("POINT"))
        #expect(failure("POINT (1 2))")?.kind == .unmatchedClose)
        #expect(failure("POINT (1 abc)") == WKTError(.notANumber("abc"), at: 9))
        #expect(failure("POINT (1 NaN)") == WKTError(.nonFinite("NaN"), at: 9))
        #expect(failure("POINT (1)") == WKTError(.tooFewNumbers(found: 1), at: 7))
        #expect(failure("POINT (1 2 3 4 5 6)")?.kind == .tooManyNumbers(found: 6))
        #expect(failure("POINT Z (1 2 3 4)")?.kind == .dimensionMismatch(tag: "POINT Z", expected: 3, found: 4))
        #expect(failure("POINT (1 2) x")?.kind == .trailingText("x"))
        // A long word or token is cut short in the message.
        let long = String(repeating: "A", count: 100)
        #expect(failure(long)?.kind == .unknownGeometryType(String(repeating: "A", count: 32) + "…"))
    }

    @Test func bounds() throws {
        let line = "LINESTRING (0 0, 1 1, 2 2, 3 3)"
        #expect(boundedFailure(line, maxBytes: line.utf8.count) == nil)
        let tooLarge = try #require(boundedFailure(line, maxBytes: 20))
        #expect(tooLarge == WKTError(.tooLarge(limit: 20), at: 20))
        #expect("\(tooLarge)" == "WKT at character 21: text longer than 20 bytes")
        #expect("\(WKTError(.tooLarge(limit: WKT.maxBytes), at: WKT.maxBytes))" == "WKT at character 67108865: text longer than 64 MiB")

        #expect(boundedFailure(line, maxCoordinates: 4) == nil)
        let tooMany = try #require(boundedFailure(line, maxCoordinates: 3))
        #expect(tooMany == WKTError(.tooManyCoordinates(limit: 3), at: 27))
        #expect("\(tooMany)" == "WKT at character 28: more than 3 coordinates")

        let longNumber = "POINT (1 " + String(repeating: "1", count: WKT.maxNumberLength + 1) + ")"
        #expect("\(try #require(failure(longNumber)))" == "WKT at character 10: a number longer than 512 characters")
        let longest = "POINT (1 0." + String(repeating: "1", count: WKT.maxNumberLength - 2) + ")"
        #expect(try WKT.parse(longest).points == [1, 0.1111111111111111])
    }

    // MARK: Size and properties

    /// A ring of a million vertices (about 25 MB of text) reads whole and exactly.
    @Test func millionVertexRing() throws {
        let count = 1_000_000
        var text: [UInt8] = []
        text.reserveCapacity(count * 26)
        text.append(contentsOf: "POLYGON ((".utf8)
        func vertex(_ k: Int) -> (String, String) {
            let m = k % count
            return ("\(m % 360 - 180).\(m % 99_991)", "\(m % 180 - 90).\(m % 9973)")
        }
        for k in 0...count {
            let (x, y) = vertex(k)
            if k > 0 { text.append(contentsOf: ", ".utf8) }
            text.append(contentsOf: x.utf8)
            text.append(0x20)
            text.append(contentsOf: y.utf8)
        }
        text.append(contentsOf: "))".utf8)
        let g = try WKT.parse(text)
        #expect(g.polygons.count == 1 && g.polygons[0].count == 1)
        let ring = g.polygons[0][0]
        #expect(ring.count == 2 * (count + 1))
        for k in [0, 1, 2, 12_345, 999_999] {
            let (x, y) = vertex(k)
            #expect(ring[2 * k] == Double(x)! && ring[2 * k + 1] == Double(y)!)
        }
        #expect(ring[0] == ring[2 * count] && ring[1] == ring[2 * count + 1])
    }

    /// Random geometries written as WKT in random styles (case, spacing, tags, both MULTIPOINT
    /// forms, SRID) read back exactly.
    @Test func randomGeometriesRoundTrip() throws {
        var rng = SeededRandom(seed: 0x5EED_0001)
        for _ in 0..<500 {
            var writer = RandomWKTWriter(rng: rng)
            let (text, expected) = writer.geometry(depth: 0)
            rng = writer.rng
            let prefix = Bool.random(using: &rng) ? "SRID=4326;" : ""
            let got = try WKT.parse(prefix + text)
            #expect(got == expected, "\(text)")
        }
    }

    /// Every proper prefix of valid WKT (cut before its final ')') fails, with an offset inside
    /// the prefix; every single-byte change either parses or fails cleanly.
    @Test func prefixesAndMutationsFailCleanly() throws {
        var rng = SeededRandom(seed: 0x5EED_0002)
        for _ in 0..<60 {
            var writer = RandomWKTWriter(rng: rng)
            let (text, _) = writer.geometry(depth: 0)
            rng = writer.rng
            let bytes = Array(text.utf8)
            guard bytes.count <= 2_000 else { continue }   // every prefix is quadratic
            guard let lastClose = bytes.lastIndex(of: UInt8(ascii: ")")) else { continue }
            for cut in 0..<lastClose {
                let prefix = Array(bytes[..<cut])
                do {
                    _ = try WKT.parse(prefix)
                    Issue.record("prefix parsed: \(String(decoding: prefix, as: UTF8.self))")
                } catch {
                    #expect(error.offset <= cut)
                }
            }
            let alphabet = Array("(), .-+eE0123456789EMPTYZ \n;=".utf8) + [0x00, 0xFF]
            for _ in 0..<50 {
                var mutated = bytes
                let at = Int.random(in: 0..<mutated.count, using: &rng)
                mutated[at] = alphabet.randomElement(using: &rng)!
                do { _ = try WKT.parse(mutated) } catch { #expect(error.offset <= mutated.count) }
            }
        }
    }
}

/// Writes random geometries as WKT in random styles, with the geometry a parser should read.
private struct RandomWKTWriter {
    var rng: SeededRandom

    private mutating func chance(_ p: Double) -> Bool { Double.random(in: 0..<1, using: &rng) < p }
    private mutating func space() -> String { ["", " ", "  ", "\n", "\t", " \r\n "].randomElement(using: &rng)! }
    private mutating func keyword(_ k: String) -> String {
        switch Int.random(in: 0..<3, using: &rng) {
        case 0: return k
        case 1: return k.lowercased()
        default: return String(k.map { chance(0.5) ? Character($0.lowercased()) : $0 })
        }
    }

    private mutating func number() -> Double {
        switch Int.random(in: 0..<4, using: &rng) {
        case 0: return Double(Int.random(in: -180...180, using: &rng))
        case 1: return (Double.random(in: -180...180, using: &rng) * 1e5).rounded() / 1e5
        case 2: return Double.random(in: -180...180, using: &rng)
        default: return Double.random(in: -1e-3...1e-3, using: &rng)   // exponents in the text
        }
    }

    /// A coordinate of `extra` more numbers than x y, as text, and its x y.
    private mutating func coordinate(extra: Int) -> (String, [Double]) {
        let x = number(), y = number()
        var parts = ["\(x)", "\(y)"]
        for _ in 0..<extra { parts.append("\(number())") }
        return (parts.joined(separator: " " + space()), [x, y])
    }

    private mutating func run(extra: Int, count: Int) -> (String, [Double]) {
        var texts: [String] = []
        var flat: [Double] = []
        for _ in 0..<count {
            let (t, c) = coordinate(extra: extra)
            texts.append(space() + t + space())
            flat += c
        }
        return ("(" + texts.joined(separator: ",") + ")", flat)
    }

    private mutating func polygon(extra: Int) -> (String, [[Double]]) {
        var texts: [String] = []
        var rings: [[Double]] = []
        for _ in 0..<Int.random(in: 1...3, using: &rng) {
            let (t, r) = run(extra: extra, count: Int.random(in: 1...8, using: &rng))
            texts.append(space() + t + space())
            rings.append(r)
        }
        return ("(" + texts.joined(separator: ",") + ")", rings)
    }

    mutating func geometry(depth: Int) -> (String, WKTGeometry) {
        let tags = [("", 0), (" Z", 1), (" M", 1), (" ZM", 2), ("Z", 1)]
        let (tag, extra) = tags.randomElement(using: &rng)!
        var g = WKTGeometry()
        let kinds = depth < 3 ? 7 : 6
        let kind = Int.random(in: 0..<kinds, using: &rng)
        if chance(0.05) {
            let names = ["POINT", "LINESTRING", "POLYGON", "MULTIPOINT", "MULTILINESTRING", "MULTIPOLYGON", "GEOMETRYCOLLECTION"]
            return (keyword(names[kind] + tag) + " " + keyword("EMPTY"), g)
        }
        let body: String
        let name: String
        switch kind {
        case 0:
            name = "POINT"
            let (t, c) = coordinate(extra: extra)
            body = "(" + space() + t + space() + ")"
            g.points = c
        case 1:
            name = "LINESTRING"
            let (t, c) = run(extra: extra, count: Int.random(in: 1...10, using: &rng))
            body = t
            g.lines = [c]
        case 2:
            name = "POLYGON"
            let (t, rings) = polygon(extra: extra)
            body = t
            g.polygons = [rings]
        case 3:
            name = "MULTIPOINT"
            var texts: [String] = []
            for _ in 0..<Int.random(in: 1...5, using: &rng) {
                let (t, c) = coordinate(extra: extra)
                texts.append(chance(0.5) ? t : "(" + space() + t + space() + ")")
                g.points += c
            }
            body = "(" + texts.joined(separator: "," + space()) + ")"
        case 4:
            name = "MULTILINESTRING"
            var texts: [String] = []
            for _ in 0..<Int.random(in: 1...4, using: &rng) {
                let (t, c) = run(extra: extra, count: Int.random(in: 1...6, using: &rng))
                texts.append(t)
                g.lines.append(c)
            }
            body = "(" + texts.joined(separator: "," + space()) + ")"
        case 5:
            name = "MULTIPOLYGON"
            var texts: [String] = []
            for _ in 0..<Int.random(in: 1...3, using: &rng) {
                let (t, rings) = polygon(extra: extra)
                texts.append(t)
                g.polygons.append(rings)
            }
            body = "(" + texts.joined(separator: "," + space()) + ")"
        default:
            name = "GEOMETRYCOLLECTION"
            var texts: [String] = []
            for _ in 0..<Int.random(in: 1...4, using: &rng) {
                let (t, member) = geometry(depth: depth + 1)
                texts.append(space() + t + space())
                g.points += member.points
                g.lines += member.lines
                g.polygons += member.polygons
            }
            body = "(" + texts.joined(separator: ",") + ")"
        }
        // A collection's tag says nothing of its members' (they carry their own).
        let shownTag = kind == 6 ? "" : tag
        return (keyword(name + shownTag) + space() + body, g)
    }
}
