import Foundation

/// Great-circle arcs from rows (`--to-lat NAME --to-lon NAME`): one arc per point, from its
/// coordinate to the destination its two properties hold, the short way across 180°. Flight
/// routes, migration and trade flows. The arcs are lines of a `ShapeSet` with the row's
/// properties, so the data's line layers draw them (under the points) and a style's
/// `line-width`, `line-color` and `line-opacity` expressions read the row (width by a count).
public struct PointArcs: Sendable, Equatable {
    /// The properties holding each row's destination latitude and longitude, degrees.
    public var latField: String
    public var lonField: String

    public init(latField: String, lonField: String) { self.latField = latField; self.lonField = lonField }

    /// The arcs, in input order, and the rows left out by reason: a destination missing, not a
    /// number, out of range, the same place as the origin, or its antipode (no one great circle).
    /// - Complexity: O(n · arc length in degrees), at most 181 vertices an arc.
    public func arcs(from points: PointSet) -> (shapes: ShapeSet, skipped: RowSkips) {
        var out = ShapeSet()
        var skipped = RowSkips(what: "--to-lat/--to-lon")
        let latColumn = points.properties.columnIndex(latField), lonColumn = points.properties.columnIndex(lonField)
        var kept: [Int] = []
        for i in 0..<points.count {
            guard let la = latColumn, let lo = lonColumn else { skipped.skip("destination column missing", point: i); continue }
            let lat2: Double, lon2: Double
            switch (Self.number(points.properties.value(column: la, row: i)), Self.number(points.properties.value(column: lo, row: i))) {
            case (.missing, _), (_, .missing): skipped.skip("destination empty", point: i); continue
            case (.notANumber, _), (_, .notANumber): skipped.skip("destination is not a number", point: i); continue
            case (.value(let a), .value(let b)):
                guard abs(a) <= 90 else { skipped.skip("destination latitude outside -90..90", point: i); continue }
                guard abs(b) <= 180 else { skipped.skip("destination longitude outside -180..180", point: i); continue }
                lat2 = a; lon2 = b
            }
            let lat1 = points.lat[i], lon1 = points.lon[i]
            let angle = GreatCircle.angle(lat1: lat1, lon1: lon1, lat2: lat2, lon2: lon2)
            guard angle * GreatCircle.earthRadius >= 1 else { skipped.skip("destination is the origin", point: i); continue }
            guard out.addRing(kind: .line, feature: i, row: kept.count, {
                GreatCircle.appendArc(lat1: lat1, lon1: lon1, lat2: lat2, lon2: lon2, to: &$0)
            }) else {
                skipped.skip("destination is the origin's antipode (no single great circle)", point: i); continue
            }
            kept.append(i)
        }
        out.properties = points.properties.selecting(rows: kept)
        return (out, skipped)
    }

    enum Coordinate { case value(Double), missing, notANumber }

    /// A coordinate property: a finite number, or text that reads as one.
    static func number(_ v: PropertyValue) -> Coordinate {
        switch v {
        case .missing, .null: return .missing
        case .number(let d): return d.isFinite ? .value(d) : .notANumber
        case .string(let s):
            let t = s.trimmingCharacters(in: .whitespaces)
            if t.isEmpty { return .missing }
            if let d = Double(t), d.isFinite { return .value(d) }
            return .notANumber
        default: return .notANumber
        }
    }
}
