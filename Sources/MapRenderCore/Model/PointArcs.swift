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
    ///
    /// An arc within Web Mercator's ±85.05° is a line of its two ends marked `greatCircle`: it
    /// is cut into vertices when drawn, as finely as the view needs (`forEachGreatCircleVertex`),
    /// not here in 1° steps that a world view then simplified away (10k flows: 737k vertices
    /// made, 197k drawn). An arc over a pole is cut here, in 1° steps, and only its parts inside
    /// ±85.05° kept.
    /// - Complexity: O(n), and O(arc length in degrees) for an arc over a pole.
    public func arcs(from points: PointSet) -> (shapes: ShapeSet, skipped: RowSkips) {
        var out = ShapeSet()
        var skipped = RowSkips(what: "--to-lat/--to-lon")
        let latColumn = points.properties.columnIndex(latField), lonColumn = points.properties.columnIndex(lonField)
        var kept: [Int] = []
        var arc: [Double] = []   // one arc's lon, lat pairs, reused
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
            guard angle < .pi - GreatCircle.antipodeTolerance else {
                skipped.skip("destination is the origin's antipode (no single great circle)", point: i); continue
            }
            let extent = GreatCircle.latitudeRange(lat1: lat1, lon1: lon1, lat2: lat2, lon2: lon2)
            if max(extent.north, -extent.south) <= WebMercator.maxLatitude {
                out.addRing(kind: .line, feature: i, row: kept.count, greatCircle: true) {
                    $0.append(lon1); $0.append(lat1); $0.append(lon2); $0.append(lat2); return true
                }
                kept.append(i)
                continue
            }
            arc.removeAll(keepingCapacity: true)
            guard GreatCircle.appendArc(lat1: lat1, lon1: lon1, lat2: lat2, lon2: lon2, to: &arc) else {
                skipped.skip("destination is the origin's antipode (no single great circle)", point: i); continue
            }
            if let parts = Self.partsInsideMercator(arc) {
                // Over a pole: only the parts inside the map's ±85.05° are drawn (clamped to the
                // edge, the rest would run along it).
                guard !parts.isEmpty else { skipped.skip("arc lies beyond ±85.05° (the map's edge)", point: i); continue }
                out.add(kind: .line, rings: parts, feature: i, row: kept.count)
            } else {
                out.addRing(kind: .line, feature: i, row: kept.count) { $0.append(contentsOf: arc); return true }
            }
            kept.append(i)
        }
        out.properties = points.properties.selecting(rows: kept)
        return (out, skipped)
    }

    /// The parts of a line (lon, lat pairs) within Web Mercator's ±85.05°, each ending where it
    /// crosses that latitude (interpolated along the step, the short way round); nil when the
    /// whole line is inside. A great circle between places on opposite sides of a pole passes
    /// over it, where no map in Web Mercator can show it.
    static func partsInsideMercator(_ c: [Double]) -> [[Double]]? {
        let m = WebMercator.maxLatitude, n = c.count / 2
        guard (0..<n).contains(where: { abs(c[2 * $0 + 1]) > m }) else { return nil }
        var parts: [[Double]] = []
        var part: [Double] = []
        for k in 0..<n {
            let lon = c[2 * k], lat = c[2 * k + 1], inside = abs(lat) <= m
            if k > 0 {
                let plon = c[2 * k - 2], plat = c[2 * k - 1], wasInside = abs(plat) <= m
                if wasInside != inside {
                    let edge = (wasInside ? lat : plat) > 0 ? m : -m
                    let t = (edge - plat) / (lat - plat)
                    var step = lon - plon
                    step -= 360 * ((step + 180) / 360).rounded(.down)
                    var x = plon + t * step
                    x -= 360 * ((x + 180) / 360).rounded(.down)
                    part.append(x); part.append(edge)
                    if wasInside {
                        if part.count >= 4 { parts.append(part) }
                        part = []
                    }
                }
            }
            if inside { part.append(lon); part.append(lat) }
        }
        if part.count >= 4 { parts.append(part) }
        return parts
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
