import Foundation
import MapRenderCore

/// What `maprender inspect` prints: the input part of a render's summary, plus properties and bounds.
public struct InputInspection: Encodable, Sendable {
    public var file: String
    public var format: String
    public var recordsRead: Int
    public var pointsRead: Int
    public var skipped: [String: Int]
    /// The first few line numbers (CSV) or feature indexes (GeoJSON) per skip reason.
    public var skippedAt: [String: [Int]]
    public var skippedGeometries: [String: Int]
    public var latitudeColumn: String?
    public var longitudeColumn: String?
    public var properties: [String]
    public var withIds: Int
    /// [west, south, east, north] of the points; west > east when they cross the antimeridian.
    public var bounds: [Double]?

    public init(_ loaded: LoadedPoints) {
        let r = loaded.report
        file = r.source
        format = r.format
        recordsRead = r.recordsRead
        pointsRead = r.pointsRead
        skipped = Dictionary(uniqueKeysWithValues: r.skipped.map { ($0.key.rawValue, $0.value) })
        skippedAt = Dictionary(uniqueKeysWithValues: r.examples.map { ($0.key.rawValue, $0.value) })
        skippedGeometries = r.skippedGeometries
        latitudeColumn = r.latitudeColumn
        longitudeColumn = r.longitudeColumn
        let p = loaded.points
        if let n = loaded.namesOnly {
            properties = n.propertyNames
            withIds = n.pointsWithIDs
        } else {
            properties = p.properties.names
            withIds = p.ids.filter { if case .missing = $0 { return false } else { return true } }.count
        }
        if let b = GeoBounds.enclosing(x: p.lon.map { WebMercator.x(lon: $0) }, latitudes: p.lat) {
            bounds = [b.west, b.south, b.east, b.north]
        }
    }
}
