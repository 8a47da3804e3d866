/// The one rule both readers use to accept or skip a latitude/longitude pair.
enum CoordinateCheck {
    enum Outcome: Equatable {
        /// Valid; the longitude is normalised to -180...180.
        case point(lat: Double, lon: Double)
        case skip(SkipReason)
    }

    /// Checks a pair. When several things are wrong, the reason first in `SkipReason` order wins
    /// (empty, not a number, non-finite, latitude range, longitude range).
    ///
    /// With `wrapLongitude`, longitudes in 180...360 are shifted by -360; above 360 stays out of range.
    static func check(lat: CoordinateParse, lon: CoordinateParse, wrapLongitude: Bool) -> Outcome {
        guard case .value(let la) = lat, case .value(let lo) = lon else {
            // At least one side is not a value; report the earlier reason of the two.
            let reasons = [reason(lat), reason(lon)].compactMap { $0 }
            return .skip(reasons.min()!)
        }
        return check(lat: la, lon: lo, wrapLongitude: wrapLongitude)
    }

    @inline(__always)
    static func check(lat: Double, lon: Double, wrapLongitude: Bool) -> Outcome {
        guard lat.isFinite, lon.isFinite else { return .skip(.nonFinite) }
        guard lat >= -90 && lat <= 90 else { return .skip(.latitudeOutOfRange) }
        if lon >= -180 && lon <= 180 { return .point(lat: lat, lon: lon) }
        if wrapLongitude && lon > 180 && lon <= 360 { return .point(lat: lat, lon: lon - 360) }
        return .skip(.longitudeOutOfRange)
    }

    /// Why a single parsed coordinate is unusable, or nil when it is a finite number.
    private static func reason(_ c: CoordinateParse) -> SkipReason? {
        switch c {
        case .empty: return .emptyCoordinate
        case .notANumber: return .notANumber
        case .nonFinite: return .nonFinite
        case .value(let v): return v.isFinite ? nil : .nonFinite
        }
    }
}
