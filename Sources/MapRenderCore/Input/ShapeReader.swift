import Foundation

/// Reads polygons and lines from GeoJSON (a basemap such as Natural Earth countries), with their
/// features' properties (simplestyle `fill`, `stroke`, ... and whatever style layers read).
///
/// Accepts the same forms as the point reader. Polygon → one `.polygon` shape; MultiPolygon →
/// one shape per polygon; LineString → a `.line` shape with one part; MultiLineString → one
/// `.line` shape with a part per line. Points are ignored, unless asked for (`readFeatures`: a
/// basemap style's GeoJSON source, whose points are labelled and circled). A position that is
/// not at least two finite numbers is an error (a basemap should be loud about damage).
public enum ShapeReader {
    public static func read(path: String) throws -> ShapeSet {
        let source = try ByteSource(path: path)
        return try read(bytes: source.readAll(), name: path)
    }

    public static func read(data: Data, name: String) throws -> ShapeSet {
        try read(bytes: [UInt8](data), name: name)
    }

    static func read(bytes: [UInt8], name: String) throws -> ShapeSet {
        try readFeatures(bytes: bytes, name: name, points: false).shapes
    }

    /// The polygons and lines, and the points (Point and MultiPoint positions, each with its
    /// feature's row of `shapes.properties`).
    public static func readFeatures(path: String) throws -> (shapes: ShapeSet, points: PointFeatures) {
        let source = try ByteSource(path: path)
        return try readFeatures(bytes: source.readAll(), name: path, points: true)
    }

    public static func readFeatures(data: Data, name: String) throws -> (shapes: ShapeSet, points: PointFeatures) {
        try readFeatures(bytes: [UInt8](data), name: name, points: true)
    }

    static func readFeatures(bytes: [UInt8], name: String, points: Bool) throws -> (shapes: ShapeSet, points: PointFeatures) {
        let sink = ShapeSink()
        sink.keepsPoints = points
        try JSONScanner.scan(bytes, name: ByteSource.displayName(name)) { scanner in
            var walker = GeoJSONWalker(scanner: scanner, sink: sink)
            try walker.run()
        }
        return (sink.shapes, sink.points)
    }
}

/// Point features read with shapes: lon, lat pairs and each one's row of the shapes' property
/// table (a MultiPoint gives one pair per position, all on its feature's row).
public struct PointFeatures: Sendable {
    public var coords: [Double] = []
    public var rows: [Int32] = []
    public init(coords: [Double] = [], rows: [Int32] = []) { self.coords = coords; self.rows = rows }
    public var count: Int { rows.count }
}

final class ShapeSink: GeoJSONSink {
    var shapes = ShapeSet()
    var points = PointFeatures()
    var keepsPoints = false
    var wantsProperties: Bool { true }
    private var properties: [(String, PropertyValue)] = []
    private var pending: [(ShapeKind, [[Double]])] = []
    private var pendingPoints: [Double] = []

    func beginFeature(_ index: Int) {
        properties.removeAll(keepingCapacity: true)
        pending.removeAll(keepingCapacity: true)
        pendingPoints.removeAll(keepingCapacity: true)
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
        if key == "geometry" { pending.removeAll(keepingCapacity: true); pendingPoints.removeAll(keepingCapacity: true) } else { properties.removeAll(keepingCapacity: true) }
    }

    func endFeature(_ index: Int) {
        guard !pending.isEmpty || !pendingPoints.isEmpty else { return }
        guard keepsPoints else {
            let row = shapes.properties.rowCount
            shapes.properties.appendRow(properties.map { (shapes.properties.addColumn($0.0), $0.1) })
            for (kind, rings) in pending { shapes.add(kind: kind, rings: rings, feature: index, row: row) }
            return
        }
        // A style's source: a row per kind of geometry the feature has, with its `$type` (as
        // MapLibre splits a GeometryCollection into features), so filters and `geometry-type` read it.
        func row(_ type: String) -> Int {
            let r = shapes.properties.rowCount
            shapes.properties.appendRow(properties.map { (shapes.properties.addColumn($0.0), $0.1) }
                                        + [(shapes.properties.addColumn("$type"), .string(type))])
            return r
        }
        for (kind, name) in [(ShapeKind.polygon, "Polygon"), (.line, "LineString")] where pending.contains(where: { $0.0 == kind }) {
            let r = row(name)
            for (k, rings) in pending where k == kind { shapes.add(kind: kind, rings: rings, feature: index, row: r) }
        }
        if !pendingPoints.isEmpty {
            let r = row("Point")
            points.coords += pendingPoints
            points.rows += repeatElement(Int32(r), count: pendingPoints.count / 2)
        }
    }

    func geometry(_ type: GeoJSONType, hasCoordinates: Bool, _ s: inout JSONScanner, feature: Int) throws {
        guard hasCoordinates else { return }
        var reader = ShapeCoordinates(strict: true)
        if keepsPoints, let coords = try reader.readPoints(type, &s) {
            pendingPoints += coords
        } else if let parts = try reader.read(type, &s) {
            pending += parts
        } else {
            try s.skipValue()
        }
    }
}
