import Foundation

/// The structure of a GeoJSON document (RFC 7946), walked once, with what to keep left to a sink.
///
/// Accepts a FeatureCollection, a single Feature, a bare geometry (GeometryCollection included),
/// and two common relatives: a top-level array of features, and a sequence of objects (GeoJSON
/// text sequences / one feature per line). Members may come in any order: when `coordinates`
/// precede `type`, their position is remembered and they are read once the type is known.
/// Foreign members and `bbox` are skipped (still validated as JSON).
struct GeoJSONWalker<Sink: GeoJSONSink> {
    var s: JSONScanner
    let sink: Sink
    /// The index the next feature gets (0-based, in document order).
    private var nextIndex = 0

    static var maxDepth: Int { 32 }   // nested GeometryCollections

    init(scanner: JSONScanner, sink: Sink) {
        s = scanner
        self.sink = sink
    }

    mutating func run() throws {
        skipSeparators()
        switch s.peek() {
        case UInt8(ascii: "["):
            try walkFeatureArray()
            skipSeparators()
            if s.pos < s.count { throw s.error(expected: "end of input after the array of features") }
        case UInt8(ascii: "{"):
            while true {
                s.readPast()
                try walkFeatureLike(topLevel: true)
                skipSeparators()
                if s.pos >= s.count { break }
                guard s.peek() == UInt8(ascii: "{") else {
                    throw s.error(expected: "end of input after the GeoJSON object")
                }
            }
        default:
            throw s.error(expected: "a GeoJSON object")
        }
    }

    /// Whitespace and the record separator of GeoJSON text sequences (RFC 8142).
    private mutating func skipSeparators() {
        while true {
            s.skipWhitespace()
            if s.pos < s.count && s.base[s.pos] == 0x1E { s.pos += 1 } else { return }
        }
    }

    // MARK: Features

    private mutating func walkFeatureArray() throws {
        guard s.peek() == UInt8(ascii: "[") else { throw s.error(expected: "an array of features") }
        try s.enterArray()
        var first = true
        if try walkInTwoParts() { return }
        while try s.nextElement(&first) { try walkElement() }
    }

    private mutating func walkElement() throws {
        s.readPast()
        if s.peek() == UInt8(ascii: "{") {
            try walkFeatureLike(topLevel: false)
        } else {
            try s.skipValue()
            sink.beginFeature(nextIndex)
            sink.malformedFeature(nextIndex)
            nextIndex += 1
        }
    }

    /// Reads the rest of a feature array (the scanner just inside its `[`) in two parts on two
    /// threads, the later into a part sink that is then absorbed: true when it did. The later
    /// part starts after a comma near the middle of the bytes left that looks like one between
    /// two features (`splitGuess`); the earlier part stops there only if it is one, and so
    /// checks the guess.
    ///
    /// The result is the one-thread walk's: the later part numbers its features from 0 and is
    /// absorbed with the earlier part's count as offset; when the earlier part does not stop
    /// at that comma (the guess fell inside a string or a nested value) it has read the whole
    /// array itself, and the later part's work is dropped; when the later part fails, it is
    /// read again here, so the error names its feature as a one-thread walk does. Why: a 2.2 MB
    /// 1:50m countries choropleth spent a quarter of its run reading numbers on one core
    /// (issue #44). (A guess, not a scan of the earlier half for the exact comma: that scan
    /// alone cost a seventh of the read on the thread that waits for it.)
    private mutating func walkInTwoParts() throws -> Bool {
        let left = s.count - s.pos
        guard !Work.serial, left >= GeoJSONParts.from, left <= GeoJSONParts.upTo,
              let comma = Self.splitGuess(s.base, start: GeoJSONParts.at ?? s.pos + left / 2, count: s.count),
              let part = sink.makePartSink() else { return false }
        var earlier = self
        var later = GeoJSONWalker(scanner: s.part(from: comma + 1, invalidUTF8: part.invalidUTF8Tally), sink: part)
        var errors: [(any Error)?] = [nil, nil]
        errors.withUnsafeMutableBufferPointer { errors in
            Work.perform(iterations: 2) { k in
                do {
                    if k == 0 {
                        var first = true
                        while true {
                            earlier.s.skipWhitespace()
                            if earlier.s.pos == comma { break }
                            guard try earlier.s.nextElement(&first) else { break }
                            try earlier.walkElement()
                        }
                    } else {
                        var first = true
                        while try later.s.nextElement(&first) { try later.walkElement() }
                    }
                } catch {
                    errors[k] = error
                }
            }
        }
        if let error = errors[0] { throw error }
        self = earlier
        guard s.pos == comma else { return true }     // it read the whole array
        if errors[1] == nil {
            sink.absorb(part, featureOffset: nextIndex)
            nextIndex += later.nextIndex
            s.pos = later.s.pos
            GeoJSONParts.absorbed?.add()
            return true
        }
        // The later part again on this thread, from the comma.
        var first = false
        while try s.nextElement(&first) { try walkElement() }
        return true
    }

    /// The first comma from `start` (the middle of the bytes left) that is followed (after
    /// whitespace) by `{`, as a comma between two features is, within 1 MiB; nil when none.
    /// Only a guess: it may lie in a string or a nested value, which the earlier part finds out.
    static func splitGuess(_ base: UnsafePointer<UInt8>, start: Int, count: Int) -> Int? {
        var i = start
        let end = min(count, i + (1 << 20))
        while i < end {
            guard let found = memchr(base + i, Int32(UInt8(ascii: ",")), end - i) else { return nil }
            i = base.distance(to: found.assumingMemoryBound(to: UInt8.self))
            var j = i + 1
            while j < count, base[j] == 0x20 || base[j] == 0x0A || base[j] == 0x0D || base[j] == 0x09 { j += 1 }
            if j < count && base[j] == UInt8(ascii: "{") { return i }
            i += 1
        }
        return nil
    }

    /// An object that is a Feature, a geometry, or (at the top level) a FeatureCollection.
    private mutating func walkFeatureLike(topLevel: Bool) throws {
        s.skipWhitespace()
        let objectStart = s.pos
        try s.enterObject()
        let index = nextIndex
        sink.beginFeature(index)
        var g = PendingGeometry()
        var geometrySeen = false
        var propertiesSeen = false
        var featuresSeen = false
        var first = true
        while let key = try s.nextMember(&first) {
            if try geometryMember(key, &g, feature: index, depth: 1) {
                continue
            } else if topLevel && s.equals(key, "features") {
                featuresSeen = true
                try walkFeatureArray()
            } else if s.equals(key, "geometry") {
                if geometrySeen { sink.duplicateMember("geometry", feature: index) }
                geometrySeen = true
                try walkGeometryValue(feature: index, depth: 1)
            } else if s.equals(key, "properties") {
                if propertiesSeen { sink.duplicateMember("properties", feature: index) }
                propertiesSeen = true
                if sink.wantsProperties && s.peek() == UInt8(ascii: "{") {
                    try sink.properties(&s)
                } else {
                    try s.skipValue()
                }
            } else if s.equals(key, "id") {
                switch s.peekKind() {
                case .string: sink.featureID(.string(try s.readString()))
                case .number:
                    let d = try s.readNumber()
                    if d.isFinite { sink.featureID(.number(d)) }
                default: try s.skipValue()
                }
            } else {
                try s.skipValue()
            }
        }

        switch g.type {
        case .featureCollection?:
            if topLevel { return }          // its features were walked in place
            sink.malformedFeature(index)
        case .feature?:
            if !geometrySeen { sink.nullGeometry(feature: index) }
            sink.endFeature(index)
        case .other(let name)? where topLevel && !geometrySeen:
            throw s.error("unknown GeoJSON type '\(name)'", at: g.typeOffset)
        case nil:
            if topLevel && featuresSeen { return }   // a FeatureCollection without "type"
            if geometrySeen {
                sink.endFeature(index)
            } else if topLevel {
                throw s.error("not a GeoJSON object: no \"type\" member", at: objectStart)
            } else {
                sink.malformedFeature(index)
            }
        case .other?  where geometrySeen:
            sink.endFeature(index)               // an odd type but a `geometry` member: a feature
        case .some:
            _ = try finishGeometry(&g, feature: index, depth: 1)
            sink.endFeature(index)
        }
        nextIndex = index + 1
    }

    // MARK: Geometries

    /// What is known about a geometry object while its members are read.
    private struct PendingGeometry {
        var type: GeoJSONType?
        var typeOffset = 0
        var coordinatesAt: Int?
        var geometriesAt: Int?
        var handled = false
    }

    /// A `geometry` member: null, or a geometry object.
    private mutating func walkGeometryValue(feature: Int, depth: Int) throws {
        switch s.peekKind() {
        case .null:
            try s.readNull()
            sink.nullGeometry(feature: feature)
        case .object:
            try walkGeometryObject(feature: feature, depth: depth)
        default:
            try s.skipValue()
            sink.malformedGeometry(feature: feature)
        }
    }

    private mutating func walkGeometryObject(feature: Int, depth: Int) throws {
        guard depth <= Self.maxDepth else {
            throw s.error("geometry collections nested too deeply", at: s.pos)
        }
        try s.enterObject()
        var g = PendingGeometry()
        var first = true
        while let key = try s.nextMember(&first) {
            if try !geometryMember(key, &g, feature: feature, depth: depth) { try s.skipValue() }
        }
        if try !finishGeometry(&g, feature: feature, depth: depth) {
            sink.malformedGeometry(feature: feature)
        }
    }

    /// Handles `type`, `coordinates` and `geometries`; false for any other key (not consumed).
    private mutating func geometryMember(_ key: JSONScanner.RawString, _ g: inout PendingGeometry,
                                         feature: Int, depth: Int) throws -> Bool {
        if s.equals(key, "type") {
            s.skipWhitespace()
            g.typeOffset = s.pos
            g.type = try readType()
        } else if s.equals(key, "coordinates") {
            if let t = g.type, t.isGeometry, t != .geometryCollection, !g.handled {
                g.handled = true
                try sink.geometry(t, hasCoordinates: true, &s, feature: feature)
            } else {
                s.skipWhitespace()
                g.coordinatesAt = s.pos
                try s.skipValue()
            }
        } else if s.equals(key, "geometries") {
            if g.type == .geometryCollection && !g.handled {
                g.handled = true
                try walkGeometries(feature: feature, depth: depth)
            } else {
                s.skipWhitespace()
                g.geometriesAt = s.pos
                try s.skipValue()
            }
        } else {
            return false
        }
        return true
    }

    /// After a geometry object's members: reads what had to wait for its type.
    /// False when the object is not a geometry (no type, or a Feature/FeatureCollection type).
    private mutating func finishGeometry(_ g: inout PendingGeometry, feature: Int, depth: Int) throws -> Bool {
        guard let t = g.type, t.isGeometry else { return false }
        if g.handled { return true }
        g.handled = true
        let resume = s.pos
        defer { s.pos = resume }
        if t == .geometryCollection, let at = g.geometriesAt {
            s.pos = at
            try walkGeometries(feature: feature, depth: depth)
        } else if t != .geometryCollection, let at = g.coordinatesAt {
            s.pos = at
            try sink.geometry(t, hasCoordinates: true, &s, feature: feature)
        } else {
            try sink.geometry(t, hasCoordinates: false, &s, feature: feature)
        }
        return true
    }

    private mutating func walkGeometries(feature: Int, depth: Int) throws {
        guard s.peek() == UInt8(ascii: "[") else {
            try s.skipValue()
            sink.malformedGeometry(feature: feature)
            return
        }
        try s.enterArray()
        var first = true
        while try s.nextElement(&first) {
            if s.peek() == UInt8(ascii: "{") {
                try walkGeometryObject(feature: feature, depth: depth + 1)
            } else {
                try s.skipValue()
                sink.malformedGeometry(feature: feature)
            }
        }
    }

    private mutating func readType() throws -> GeoJSONType? {
        guard s.peekKind() == .string else {
            try s.skipValue()
            return nil
        }
        let raw = try s.readRawString()
        // The usual types first, without walking `GeoJSONType.known` (an array of enums with a
        // String payload: retained and compared one by one for every geometry).
        if s.equals(raw, "Point") { return .point }
        if s.equals(raw, "Feature") { return .feature }
        for t in GeoJSONType.known where s.equals(raw, t.staticName) { return t }
        return .other(s.decode(raw))
    }
}

/// When a feature array is read in two parts on two threads (`GeoJSONWalker.walkInTwoParts`).
enum GeoJSONParts {
    /// From this many bytes left in the array (tests bind it lower to split small documents).
    @TaskLocal static var from = 1 << 19
    /// Up to this many: the later part gives no pages of a mapped file back until it ends, so a
    /// larger array is read on one thread.
    static let upTo = 1 << 28
    /// Counts the arrays read in two parts whose parts met (tests bind it).
    @TaskLocal static var absorbed: Work.Forks?
    /// Where the guess of the split starts, instead of the middle (tests bind it).
    @TaskLocal static var at: Int?
}

/// The `type` of a GeoJSON object.
enum GeoJSONType: Equatable {
    case featureCollection, feature
    case point, multiPoint, lineString, multiLineString, polygon, multiPolygon, geometryCollection
    /// A type this reader does not know; treated as an unsupported geometry.
    case other(String)

    static let known: [GeoJSONType] = [
        .point, .feature, .multiPoint, .polygon, .multiPolygon, .lineString, .multiLineString,
        .featureCollection, .geometryCollection,
    ]

    fileprivate var staticName: StaticString {
        switch self {
        case .featureCollection: return "FeatureCollection"
        case .feature: return "Feature"
        case .point: return "Point"
        case .multiPoint: return "MultiPoint"
        case .lineString: return "LineString"
        case .multiLineString: return "MultiLineString"
        case .polygon: return "Polygon"
        case .multiPolygon: return "MultiPolygon"
        case .geometryCollection: return "GeometryCollection"
        case .other: return ""
        }
    }

    /// The name as written in GeoJSON ("Polygon", ...), used in `InputReport.skippedGeometries`.
    var name: String {
        if case .other(let n) = self { return n }
        return staticName.description
    }

    /// Geometry types, including unknown ones; not Feature or FeatureCollection.
    var isGeometry: Bool { self != .feature && self != .featureCollection }
}

/// What a reader does with the parts of a GeoJSON document. Calls for one feature come between
/// `beginFeature` and `endFeature` (or `malformedFeature`); a GeometryCollection gives several
/// `geometry` calls.
protocol GeoJSONSink: AnyObject {
    /// When false, `properties` objects are skipped without being parsed.
    var wantsProperties: Bool { get }
    func beginFeature(_ index: Int)
    func featureID(_ id: PropertyValue)
    /// The scanner is at the `properties` object; the sink must consume it.
    func properties(_ s: inout JSONScanner) throws
    /// A geometry of `type`. With `hasCoordinates`, the scanner is at its `coordinates` value,
    /// which the sink must consume; without, the geometry had none.
    func geometry(_ type: GeoJSONType, hasCoordinates: Bool, _ s: inout JSONScanner, feature: Int) throws
    func nullGeometry(feature: Int)
    /// A geometry that is not an object, or has no usable type.
    func malformedGeometry(feature: Int)
    /// A feature that is not usable at all; ends it.
    func malformedFeature(_ index: Int)
    /// A second `geometry` or `properties` member in one feature: the last one wins, as in
    /// RFC 8259 parsers, so the sink forgets what the earlier one gave (before the walker reads
    /// the next) and may warn. (Problems the earlier geometry was skipped for stay counted.)
    func duplicateMember(_ key: String, feature: Int)
    func endFeature(_ index: Int)
    /// A sink for a later part of a feature array read on another thread
    /// (`GeoJSONWalker.walkInTwoParts`), with its features numbered from 0; nil to read on one
    /// thread.
    func makePartSink() -> Self?
    /// Where a scanner of this sink's bytes counts invalid UTF-8 (nil: nowhere).
    var invalidUTF8Tally: InvalidUTF8Tally? { get }
    /// Appends what `part` read after everything this sink has, its feature `k` being feature
    /// `featureOffset + k` here: afterwards this sink holds what one sink reading both would.
    func absorb(_ part: Self, featureOffset: Int)
}

extension GeoJSONSink {
    func makePartSink() -> Self? { nil }
    var invalidUTF8Tally: InvalidUTF8Tally? { nil }
    func absorb(_ part: Self, featureOffset: Int) {}
}
