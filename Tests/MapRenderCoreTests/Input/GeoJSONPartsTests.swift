import Foundation
import Testing
import TestSupport
@testable import MapRenderCore

/// A feature array read in two parts on two threads (`GeoJSONWalker.walkInTwoParts`) reads what
/// one walk reads: the same points, ids, properties, shapes with their feature indexes and
/// rows, skipped features with their indexes, invalid UTF-8 and duplicate members, and the same
/// error for a document broken in either part, on generated documents whose strings hold the
/// brackets, commas, quotes and backslashes the quick scan for the split must step over.
@Suite struct GeoJSONPartsTests {
    /// A document of `features` features from a seeded generator, every kind of geometry and
    /// problem scattered through it; `idsFrom`: features before it have no id.
    static func document(seed: UInt64, features: Int, idsFrom: Int, array: Bool) -> [UInt8] {
        var rng = SeededRandom(seed: seed)
        func pick(_ n: Int) -> Int { Int(rng.next() % UInt64(n)) }
        func coord() -> String { "[\(Double(pick(360_000)) / 1000 - 180),\(Double(pick(170_000)) / 1000 - 85)]" }
        func ring() -> String {
            let a = coord()
            return "[" + a + "," + coord() + "," + coord() + "," + a + "]"
        }
        var out: [UInt8] = Array((array ? "[\n" : "{\"type\":\"FeatureCollection\",\"features\":[\n").utf8)
        for i in 0..<features {
            if i > 0 { out += Array((pick(3) == 0 ? "\n, " : ",\n").utf8) }
            if pick(150) == 0 {             // not an object: a malformed feature
                out += Array("42".utf8)
                continue
            }
            let geometry: String
            switch pick(14) {
            case 0: geometry = "{\"type\":\"MultiPoint\",\"coordinates\":[\(coord()),\(coord())]}"
            case 1: geometry = "{\"type\":\"LineString\",\"coordinates\":[\(coord()),\(coord()),\(coord())]}"
            case 2: geometry = "{\"type\":\"Polygon\",\"coordinates\":[\(ring()),\(ring())]}"
            case 3: geometry = "{\"type\":\"MultiPolygon\",\"coordinates\":[[\(ring())],[\(ring())]]}"
            case 4: geometry = "{\"type\":\"GeometryCollection\",\"geometries\":[{\"type\":\"Point\",\"coordinates\":\(coord())},"
                + "{\"type\":\"LineString\",\"coordinates\":[\(coord()),\(coord())]}]}"
            case 5: geometry = "null"
            case 6: geometry = "{\"type\":\"Point\",\"coordinates\":[200,95]}"     // out of range
            case 7: geometry = "{\"coordinates\":\(coord()),\"type\":\"Point\"}"   // type after coordinates
            case 8: geometry = "{\"type\":\"Curve\",\"coordinates\":[1,2]}"          // unknown type
            case 9: geometry = "{\"type\":\"Polygon\",\"coordinates\":[[[1,2],[3,4]]]}"  // too short a ring
            default: geometry = "{\"type\":\"Point\",\"coordinates\":\(coord())}"
            }
            var properties: [String] = ["\"n\":\(pick(1000))"]
            // Strings with what the split's quick scan must step over.
            switch pick(8) {
            case 0: properties.append("\"name\":\"a, b] } { [\\\" \\\\\"")
            case 1: properties.append("\"name\":\"back\\\\\"")
            case 2 where i % 7 == 0: properties.append("\"name\":\"a string, {\\\"like\\\":\\\"a feature\\\"}, {\"")
            case 2: properties.append("\"name\":\"p\(i)\u{FF}\"")            // (U+00FF: valid)
            default: properties.append("\"name\":\"p\(i)\"")
            }
            if pick(6) == 0 { properties.append("\"nested\":{\"a\":[1,{\"b\":\"],\"}, {\"d\":[]}],\"c\":null}") }
            if i > features / 2 && pick(4) == 0 { properties.append("\"late\":\(pick(10))") }   // a column only the later part has
            if pick(9) == 0 { properties.shuffle(using: &rng) }
            var members = ["\"type\":\"Feature\"", "\"properties\":{" + properties.joined(separator: ",") + "}",
                           "\"geometry\":" + geometry]
            if i >= idsFrom && pick(2) == 0 { members.append(pick(2) == 0 ? "\"id\":\(i)" : "\"id\":\"f\(i)\"") }
            if pick(120) == 0 { members.append("\"geometry\":{\"type\":\"Point\",\"coordinates\":\(coord())}") }  // duplicate
            if pick(5) == 0 { members.shuffle(using: &rng) }
            var feature = Array(("{" + members.joined(separator: ",") + "}").utf8)
            if pick(100) == 0, let at = feature.firstIndex(of: UInt8(ascii: "p")) {
                feature.insert(0xFF, at: at)                         // invalid UTF-8 in a key or value
            }
            out += feature
        }
        out += Array((array ? "\n]\n" : "\n],\"bbox\":[-180,-85,180,85]}\n").utf8)
        return out
    }

    static func read(_ bytes: [UInt8], splitFrom: Int, options: InputOptions) -> Result<LoadedPoints, MapRenderError> {
        GeoJSONParts.$from.withValue(splitFrom) {
            Result { try GeoJSONReader.read(bytes: bytes, name: "gen.geojson", options: options) }
                .mapError { $0 as! MapRenderError }
        }
    }

    /// As `CSVHalvesTests.expectSame` (points, ids, properties, report, errors), and the shapes
    /// with their features, rows and properties.
    static func expectSame(_ a: Result<LoadedPoints, MapRenderError>, _ b: Result<LoadedPoints, MapRenderError>,
                           _ what: String) {
        CSVHalvesTests.expectSame(a, b, what)
        guard case .success(let a) = a, case .success(let b) = b else { return }
        let s = a.shapes, t = b.shapes
        #expect(s.properties.names == t.properties.names && s.properties.rowCount == t.properties.rowCount, "\(what): shape property names")
        for c in s.properties.columns.indices where c < t.properties.columns.count {
            #expect(s.properties.columns[c] == t.properties.columns[c], "\(what): shape column \(s.properties.names[c])")
        }
        #expect(s.coords == t.coords && s.ringStart == t.ringStart && s.shapeRingStart == t.shapeRingStart, "\(what): shapes")
        #expect(s.kinds == t.kinds && s.feature == t.feature && s.row == t.row, "\(what): shapes' features")
    }

    static var optionSets: [(String, InputOptions)] {
        var shapes = InputOptions()
        shapes.keepShapes = true
        var names = InputOptions()
        names.namesOnly = true
        var some = InputOptions()
        some.keepShapes = true
        some.keepProperties = ["late", "n"]
        some.idField = "n"
        return [("points", InputOptions()), ("shapes", shapes), ("names only", names), ("kept columns", some)]
    }

    @Test(arguments: [(UInt64(1), 0, false), (2, 700, false), (3, 1400, true), (4, 1999, true)])
    func partsReadAsOneWalk(seed: UInt64, idsFrom: Int, array: Bool) throws {
        let doc = Self.document(seed: seed, features: 1400, idsFrom: idsFrom, array: array)
        for (name, options) in Self.optionSets {
            let one = Self.read(doc, splitFrom: .max, options: options)
            guard case .success(let loaded) = one else { Issue.record("\(name): the one-thread read failed: \(one)"); return }
            #expect(loaded.report.skippedTotal > 100 && loaded.points.count > 500, "\(name)")
            if options.keepShapes { #expect(loaded.shapes.shapeCount > 300, "\(name)") }
            let absorbed = Work.Forks()
            let two = GeoJSONParts.$absorbed.withValue(absorbed) { Self.read(doc, splitFrom: 1, options: options) }
            #expect(absorbed.value == 1, "\(name): the array was read in two parts that met")
            Self.expectSame(one, two, name)
        }
        // Split at every guess from the middle on (a comma followed by `{` in a name, in a nested
        // value, or between features): each reads as one walk, the wrong guesses by the earlier
        // part alone.
        var guesses = 0, met = 0, at = doc.count / 2
        while guesses < 24, let comma = GeoJSONWalker<GeoJSONPointSink>.splitGuess(doc, start: at, count: doc.count) {
            let absorbed = Work.Forks()
            let two = GeoJSONParts.$absorbed.withValue(absorbed) {
                GeoJSONParts.$at.withValue(at) { Self.read(doc, splitFrom: 1, options: InputOptions()) }
            }
            Self.expectSame(Self.read(doc, splitFrom: .max, options: InputOptions()), two, "split at \(comma)")
            met += absorbed.value
            guesses += 1
            at = comma + 1
        }
        #expect(guesses == 24 && met > 0 && met < guesses, "\(met) of \(guesses) guesses met")
        // Invalid UTF-8 is counted in both parts, the first named by its feature.
        let split = GeoJSONWalker<GeoJSONPointSink>.splitGuess(doc, start: doc.count / 2, count: doc.count) ?? doc.count / 2
        // (In names: `"name":"p1234"`, a value the reader decodes.)
        func nameValue(_ r: Range<Int>, last: Bool) -> Int {
            let starts = r.lazy.filter { doc[$0] == UInt8(ascii: ":") && doc[$0 + 1] == UInt8(ascii: "\"") && doc[$0 + 2] == UInt8(ascii: "p") }
            return (last ? starts.reversed().first : starts.first).map { $0 + 2 } ?? r.lowerBound
        }
        var bad = doc
        bad.insert(0xFE, at: nameValue(split..<(doc.count - 3), last: false))
        bad.insert(0xFE, at: nameValue(0..<split, last: true))
        let one = Self.read(bad, splitFrom: .max, options: InputOptions())
        #expect(((try? one.get().report.invalidUTF8) ?? 0) - ((try? Self.read(doc, splitFrom: .max, options: InputOptions()).get().report.invalidUTF8) ?? 0) == 2)
        Self.expectSame(one, Self.read(bad, splitFrom: 1, options: InputOptions()), "invalid UTF-8")
    }

    /// A document broken in its earlier or its later part fails with the one walk's message,
    /// the feature and byte it names included.
    @Test(arguments: [0.2, 0.5, 0.8, 0.99])
    func brokenDocumentsFailAsOneWalk(at fraction: Double) throws {
        let doc = Self.document(seed: 9, features: 600, idsFrom: 0, array: false)
        var at = Int(Double(doc.count) * fraction)
        while doc[at] != UInt8(ascii: ":") { at += 1 }
        for breakage in [[UInt8(ascii: "}")], Array("tru".utf8), [UInt8(ascii: ",")]] {
            var bad = doc
            bad.replaceSubrange((at + 1)..<(at + 2), with: breakage)
            let one = Self.read(bad, splitFrom: .max, options: InputOptions())
            guard case .failure = one else { Issue.record("not broken: \(breakage) at \(at)"); continue }
            Self.expectSame(one, Self.read(bad, splitFrom: 1, options: InputOptions()), "broken at \(fraction)")
        }
        // Cut short in the later part.
        let cut = Array(doc[..<(doc.count * 3 / 4)])
        Self.expectSame(Self.read(cut, splitFrom: .max, options: InputOptions()),
                        Self.read(cut, splitFrom: 1, options: InputOptions()), "cut short")
    }

    /// The guess of the split: the first comma from the middle followed by `{`.
    @Test func splitGuessIsACommaBeforeAnObject() {
        func guess(_ s: String) -> Int? {
            let b = Array(s.utf8)
            return GeoJSONWalker<GeoJSONPointSink>.splitGuess(b, start: b.count / 2, count: b.count)
        }
        #expect(guess("[{\"a\":1},{\"a\":2},\n {\"a\":3},{\"a\":4}]") == 26)
        #expect(guess("[{\"a\":[1,2,3,4,5,6,7,8]},{}]") == 24)
        #expect(guess("[1,2,3,4,5,6,7,8]") == nil)
    }
}
