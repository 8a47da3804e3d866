/// Reads the `coordinates` of a LineString, MultiLineString, Polygon or MultiPolygon into flat
/// lon/lat runs, for both readers of lines and polygons: the data's (`GeoJSONPointSink`, which
/// skips a damaged feature and counts why) and a basemap's (`ShapeReader`, which stops at it).
///
/// A position is two or more numbers (longitude, latitude; an altitude is ignored). A line has
/// at least 2 positions; a polygon ring at least 4, its last equal to its first (RFC 7946 3.1.6).
struct ShapeCoordinates {
    /// Lenient: the first problem met, the rest of the value consumed; the caller skips the feature.
    var problem: SkipReason?
    /// Stop with an error at the first problem instead (a basemap should be loud about damage).
    let strict: Bool
    let wrapLongitude: Bool

    init(strict: Bool, wrapLongitude: Bool = false) {
        self.strict = strict
        self.wrapLongitude = wrapLongitude
    }

    /// The shapes of one geometry as (kind, rings); nil for a type that is not a line or polygon.
    mutating func read(_ type: GeoJSONType, _ s: inout JSONScanner) throws -> [(ShapeKind, [[Double]])]? {
        switch type {
        case .lineString:
            let line = try readLine(&s)
            try checkLine(line, &s)
            return [(.line, [line])]
        case .multiLineString:
            let lines = try readLines(&s)
            for l in lines { try checkLine(l, &s) }
            return [(.line, lines)]
        case .polygon:
            let rings = try readLines(&s)
            for r in rings { try checkRing(r, &s) }
            return [(.polygon, rings)]
        case .multiPolygon:
            var out: [(ShapeKind, [[Double]])] = []
            try eachElement(&s) { me, s in
                let rings = try me.readLines(&s)
                for r in rings { try me.checkRing(r, &s) }
                out.append((.polygon, rings))
            }
            return out
        default:
            return nil
        }
    }

    private mutating func note(_ reason: SkipReason, _ s: inout JSONScanner, at offset: Int) throws {
        if strict { throw s.error(reason.rawValue, at: offset) }
        if problem == nil { problem = reason }
    }

    // A basemap (strict) keeps its old rule: rings and lines too short to draw are left out
    // silently, and rings are closed by the fill.
    private mutating func checkLine(_ l: [Double], _ s: inout JSONScanner) throws {
        if strict { return }
        if l.count < 4 { try note(.lineTooShort, &s, at: s.pos) }
    }

    private mutating func checkRing(_ r: [Double], _ s: inout JSONScanner) throws {
        if strict { return }
        if r.count < 8 { try note(.ringTooShort, &s, at: s.pos); return }
        if r[0] != r[r.count - 2] || r[1] != r[r.count - 1] { try note(.ringNotClosed, &s, at: s.pos) }
    }

    /// Calls `body` for each element of an array; at a value that is not an array, notes a
    /// malformed geometry and passes over it.
    private mutating func eachElement(_ s: inout JSONScanner, _ body: (inout Self, inout JSONScanner) throws -> Void) throws {
        s.skipWhitespace()
        guard s.peek() == UInt8(ascii: "[") else {
            let at = s.pos
            try s.skipValue()
            try note(.malformedGeometry, &s, at: at)
            return
        }
        try s.enterArray()
        var first = true
        while try s.nextElement(&first) { try body(&self, &s) }
    }

    /// An array of lines or rings.
    private mutating func readLines(_ s: inout JSONScanner) throws -> [[Double]] {
        var lines: [[Double]] = []
        try eachElement(&s) { me, s in lines.append(try me.readLine(&s)) }
        if lines.isEmpty && problem == nil && !strict { try note(.emptyCoordinate, &s, at: s.pos) }
        return lines
    }

    /// An array of positions, flattened to lon, lat, lon, lat, ...
    private mutating func readLine(_ s: inout JSONScanner) throws -> [Double] {
        var coords: [Double] = []
        try eachElement(&s) { me, s in try me.readPosition(&s, into: &coords) }
        return coords
    }

    /// A Point's position or a MultiPoint's positions, flattened to lon, lat, ...; nil for a
    /// type that is not a point (a basemap style's GeoJSON source labels and circles them).
    mutating func readPoints(_ type: GeoJSONType, _ s: inout JSONScanner) throws -> [Double]? {
        switch type {
        case .point:
            var coords: [Double] = []
            try readPosition(&s, into: &coords)
            return coords
        case .multiPoint:
            return try readLine(&s)
        default:
            return nil
        }
    }

    /// One position appended to `coords` (lon, lat), or noted as the problem and passed over.
    private mutating func readPosition(_ s: inout JSONScanner, into coords: inout [Double]) throws {
        // Most positions are `[lon, lat]`: read straight, the checks below only when not.
        if let (lon, lat) = try Self.plainPosition(&s) {
            append(lon: lon, lat: lat, to: &coords)
            return
        }
        s.skipWhitespace()
        let start = s.pos
        guard s.peek() == UInt8(ascii: "[") else {
            try s.skipValue()
            try note(.malformedGeometry, &s, at: start)
            return
        }
        try s.enterArray()
        var first = true
        var n = 0
        var lon = 0.0, lat = 0.0
        while try s.nextElement(&first) {
            guard s.peekKind() == .number else {
                if strict { throw s.error(expected: "a number in a position") }
                try s.skipValue()
                if problem == nil { problem = .notANumber }
                n += 1
                continue
            }
            let d = try s.readNumber()
            guard d.isFinite else {
                try note(.nonFinite, &s, at: start)
                n += 1
                continue
            }
            if n == 0 { lon = d } else if n == 1 { lat = d }
            n += 1
        }
        guard n >= 2 else {
            if strict { throw s.error("position needs longitude and latitude", at: start) }
            if problem == nil { problem = .malformedGeometry }
            return
        }
        append(lon: lon, lat: lat, to: &coords)
    }

    /// A read position appended (checked and wrapped unless strict), or noted as the problem.
    @inline(__always)
    private mutating func append(lon: Double, lat: Double, to coords: inout [Double]) {
        if strict {
            coords.append(lon); coords.append(lat)
            return
        }
        switch CoordinateCheck.check(lat: lat, lon: lon, wrapLongitude: wrapLongitude) {
        case .point(let la, let lo): coords.append(lo); coords.append(la)
        case .skip(let reason): if problem == nil { problem = reason }
        }
    }

    /// `[lon, lat]` of two finite numbers, consumed; nil (nothing consumed) for anything else,
    /// which the general reading handles with its messages.
    @inline(__always)
    private static func plainPosition(_ s: inout JSONScanner) throws -> (Double, Double)? {
        let save = s.pos
        guard s.peek() == UInt8(ascii: "[") else { return nil }
        s.pos += 1
        if s.peekKind() == .number {
            let lon = try s.readNumber()
            if s.peek() == UInt8(ascii: ",") {
                s.pos += 1
                if s.peekKind() == .number {
                    let lat = try s.readNumber()
                    if s.peek() == UInt8(ascii: "]"), lon.isFinite, lat.isFinite {
                        s.pos += 1
                        return (lon, lat)
                    }
                }
            }
        }
        s.pos = save
        return nil
    }
}
