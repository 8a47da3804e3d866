import Foundation

/// Reads polygons and lines from GeoJSON (a basemap such as Natural Earth countries), with their
/// features' properties (simplestyle `fill`, `stroke`, ... and whatever style layers read).
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
    var wantsProperties: Bool { true }
    private var properties: [(String, PropertyValue)] = []
    private var pending: [(ShapeKind, [[Double]])] = []

    func beginFeature(_ index: Int) {
        properties.removeAll(keepingCapacity: true)
        pending.removeAll(keepingCapacity: true)
    }
    func featureID(_ id: PropertyValue) {}
    func properties(_ s: inout JSONScanner) throws {
        try s.enterObject()
        var first = true
        while let raw = try s.nextMember(&first) {
            let key = s.decode(raw)
            properties.append((key, try s.readPropertyValue()))
        }
    }
    func nullGeometry(feature: Int) {}
    func malformedGeometry(feature: Int) {}
    func malformedFeature(_ index: Int) {}
    func duplicateMember(_ key: String, feature: Int) {
        if key == "geometry" { pending.removeAll(keepingCapacity: true) } else { properties.removeAll(keepingCapacity: true) }
    }

    func endFeature(_ index: Int) {
        guard !pending.isEmpty else { return }
        let row = shapes.properties.rowCount
        shapes.properties.appendRow(properties.map { (shapes.properties.addColumn($0.0), $0.1) })
        for (kind, rings) in pending { shapes.add(kind: kind, rings: rings, feature: index, row: row) }
    }

    func geometry(_ type: GeoJSONType, hasCoordinates: Bool, _ s: inout JSONScanner, feature: Int) throws {
        guard hasCoordinates else { return }
        var reader = ShapeCoordinates(strict: true)
        if let parts = try reader.read(type, &s) {
            pending += parts
        } else {
            try s.skipValue()
        }
    }
}
