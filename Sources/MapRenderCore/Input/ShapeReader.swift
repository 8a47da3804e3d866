import Foundation

/// Reads polygons and lines from GeoJSON (a basemap such as Natural Earth countries).
///
/// Accepts the same forms as the point reader. Polygon → one `.polygon` shape; MultiPolygon →
/// one shape per polygon; LineString → a `.line` shape with one part; MultiLineString → one
/// `.line` shape with a part per line. Points are ignored. A position that is not at least two
/// finite numbers is an error (a basemap should be loud about damage).
public enum ShapeReader {
    public static func read(path: String) throws -> ShapeSet {
        let source = try ByteSource(path: path)
        return try read(bytes: source.readAll(), name: path)
    }

    public static func read(data: Data, name: String) throws -> ShapeSet {
        try read(bytes: [UInt8](data), name: name)
    }

    static func read(bytes: [UInt8], name: String) throws -> ShapeSet {
        let sink = ShapeSink()
        try JSONScanner.scan(bytes, name: ByteSource.displayName(name)) { scanner in
            var walker = GeoJSONWalker(scanner: scanner, sink: sink)
            try walker.run()
        }
        return sink.shapes
    }
}

final class ShapeSink: GeoJSONSink {
    var shapes = ShapeSet()
    var wantsProperties: Bool { false }

    func beginFeature(_ index: Int) {}
    func featureID(_ id: PropertyValue) {}
    func properties(_ s: inout JSONScanner) throws { try s.skipValue() }
    func nullGeometry(feature: Int) {}
    func malformedGeometry(feature: Int) {}
    func malformedFeature(_ index: Int) {}
    func endFeature(_ index: Int) {}

    func geometry(_ type: GeoJSONType, hasCoordinates: Bool, _ s: inout JSONScanner, feature: Int) throws {
        guard hasCoordinates else { return }
        switch type {
        case .polygon:
            shapes.add(kind: .polygon, rings: try readLines(&s), feature: feature)
        case .multiPolygon:
            try eachElement(&s) { s in
                shapes.add(kind: .polygon, rings: try readLines(&s), feature: feature)
            }
        case .lineString:
            shapes.add(kind: .line, rings: [try readLine(&s)], feature: feature)
        case .multiLineString:
            shapes.add(kind: .line, rings: try readLines(&s), feature: feature)
        default:
            try s.skipValue()
        }
    }

    private func eachElement(_ s: inout JSONScanner, _ body: (inout JSONScanner) throws -> Void) throws {
        try s.enterArray()
        var first = true
        while try s.nextElement(&first) { try body(&s) }
    }

    /// An array of lines or rings.
    private func readLines(_ s: inout JSONScanner) throws -> [[Double]] {
        var lines: [[Double]] = []
        try eachElement(&s) { s in lines.append(try readLine(&s)) }
        return lines
    }

    /// An array of positions, flattened to lon, lat, lon, lat, ...
    private func readLine(_ s: inout JSONScanner) throws -> [Double] {
        var coords: [Double] = []
        try eachElement(&s) { s in
            s.skipWhitespace()
            let start = s.pos
            try s.enterArray()
            var first = true
            var n = 0
            while try s.nextElement(&first) {
                guard s.peekKind() == .number else { throw s.error(expected: "a number in a position") }
                let d = try s.readNumber()
                guard d.isFinite else { throw s.error("position holds a non-finite number", at: start) }
                if n < 2 { coords.append(d) }
                n += 1
            }
            guard n >= 2 else { throw s.error("position needs longitude and latitude", at: start) }
        }
        return coords
    }
}
