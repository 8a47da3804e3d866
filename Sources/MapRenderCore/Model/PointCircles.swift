import Foundation

/// Circles with a radius in metres around the points (`--circle-radius 500m`, or a property or
/// expression per point): geodesic polygons, each vertex the place that far from the centre on
/// its bearing (`GreatCircle.destination`), so a circle at 70° latitude is a circle on the
/// ground, drawn as the tall oval Web Mercator makes of it. The circles are polygons of a
/// `ShapeSet` with the row's properties: the data's fill layer fills them and outlines them.
public struct PointCircles: Sendable, Equatable {
    public enum Radius: Sendable, Equatable {
        /// The same radius for every point, metres.
        case metres(Double)
        /// Per point: a number of metres, or text with a unit (`"500m"`, `"2.5 km"`).
        case expression(StyleExpression)
    }

    public var radius: Radius
    /// Vertices of each circle.
    public var segments = 128
    /// The largest radius: a quarter of the Earth's circumference (a circle larger than a
    /// hemisphere would hold both poles).
    public static let maxRadius = 10_000_000.0

    public init(radius: Radius) { self.radius = radius }

    /// Reads `500m`, `500 m`, `2km`, `2.5 km` (a unit is required on the command line; a bare
    /// number, as a property holds, is metres when `bareIsMetres`). Nil when it is no distance.
    public static func distance(_ text: String, bareIsMetres: Bool) -> Double? {
        var t = text.trimmingCharacters(in: .whitespaces).lowercased()
        var factor = 1.0
        if t.hasSuffix("km") { factor = 1000; t.removeLast(2) } else if t.hasSuffix("m") { t.removeLast() } else if !bareIsMetres { return nil }
        t = t.trimmingCharacters(in: .whitespaces)
        guard !t.isEmpty, let d = Double(t), d.isFinite else { return nil }
        return d * factor
    }

    /// The circles, in input order, and the rows left out by reason (a radius missing, not a
    /// distance, negative or zero, or over 10,000 km).
    /// - Complexity: O(n · segments).
    public func circles(from points: PointSet) -> (shapes: ShapeSet, skipped: RowSkips) {
        var out = ShapeSet()
        var skipped = RowSkips(what: "--circle-radius")
        var kept: [Int] = []
        let bound: BoundExpression?
        if case .expression(let e) = radius { bound = e.bind(to: points.properties) } else { bound = nil }
        for i in 0..<points.count {
            var metres: Double
            switch radius {
            case .metres(let m): metres = m
            case .expression:
                switch bound?.evaluate(row: i) ?? .null {
                case .null: skipped.skip("radius missing", point: i); continue
                case .number(let d): metres = d
                case .string(let s):
                    guard let d = Self.distance(s, bareIsMetres: true) else { skipped.skip("radius is not a distance", point: i); continue }
                    metres = d
                default: skipped.skip("radius is not a distance", point: i); continue
                }
            }
            guard metres.isFinite else { skipped.skip("radius is not a distance", point: i); continue }
            guard metres > 0 else { skipped.skip(metres < 0 ? "radius negative" : "radius zero", point: i); continue }
            guard metres <= Self.maxRadius else { skipped.skip("radius over 10000 km", point: i); continue }
            let (lat, lon, n) = (points.lat[i], points.lon[i], segments)
            out.addRing(kind: .polygon, feature: i, row: kept.count) {
                GreatCircle.appendCircle(lat: lat, lon: lon, radius: metres, segments: n, to: &$0)
                return true
            }
            kept.append(i)
        }
        out.properties = points.properties.selecting(rows: kept)
        return (out, skipped)
    }
}
