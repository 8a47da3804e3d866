/// A longitude/latitude box. `west > east` means the box crosses the antimeridian (as in GeoJSON bbox).
public struct GeoBounds: Sendable, Equatable, Codable {
    public var west: Double
    public var south: Double
    public var east: Double
    public var north: Double

    public init(west: Double, south: Double, east: Double, north: Double) {
        self.west = west
        self.south = south
        self.east = east
        self.north = north
    }

    public var crossesAntimeridian: Bool { west > east }

    /// The box of points given by world x (`WebMercator.x`) and latitude, longitudes the short
    /// way round (`ViewFitter.shortestXExtent`): west > east when they cross the antimeridian
    /// (Fiji to Samoa: 177.42 to -171.77). Nil without points.
    public static func enclosing(x: [Double], latitudes: [Double]) -> GeoBounds? {
        guard let xr = ViewFitter.shortestXExtent(x), let s = latitudes.min(), let n = latitudes.max() else { return nil }
        return GeoBounds(west: Longitude.fold(WebMercator.lon(x: xr.min)), south: s,
                         east: Longitude.fold(WebMercator.lon(x: xr.max)), north: n)
    }

    /// Parses `W,S,E,N` in degrees.
    public static func parse(_ text: String) -> GeoBounds? {
        let parts = text.split(separator: ",").map { Double($0.trimmingCharacters(in: .whitespaces)) }
        guard parts.count == 4, let w = parts[0], let s = parts[1], let e = parts[2], let n = parts[3],
              [w, s, e, n].allSatisfy(\.isFinite), abs(w) <= 180, abs(e) <= 180,
              abs(s) <= 90, abs(n) <= 90, s < n, w != e else { return nil }
        return GeoBounds(west: w, south: s, east: e, north: n)
    }
}

import Foundation
