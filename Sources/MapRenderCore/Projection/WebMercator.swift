import Foundation

/// Web Mercator (EPSG:3857) in normalised world units: x and y in [0, 1], y growing south.
///
/// Every stage after input works in these units (project once, as supercluster does):
/// a pixel position is `(x - centerX) * worldSize + width / 2`.
///
/// The one projection of the library: clustering and layout both use it. `x`, `y`, `lon` and `lat`
/// are supercluster's `lngX`, `latY`, `xLng` and `yLat` operation for operation, so that clusters
/// (built from these values rounded to Float) match supercluster's bit for bit. Clamping the
/// latitude first changes nothing: beyond ±85.0511° supercluster's y leaves [0, 1] and is clamped
/// to the same 0 or 1.
public enum WebMercator {
    /// Latitude limit of the square Web Mercator world, in degrees.
    public static let maxLatitude = 85.0511287798066
    /// WGS84 semi-major axis used by EPSG:3857, in metres.
    public static let earthRadius = 6_378_137.0
    /// Half the world's width in EPSG:3857 metres (lon 180 → x 20037508.34 m).
    public static let originShift = Double.pi * earthRadius

    /// Longitude in degrees → x in [0, 1] (lon -180 → 0, lon 180 → 1).
    @inline(__always)
    public static func x(lon: Double) -> Double { lon / 360 + 0.5 }

    /// Latitude in degrees → y in [0, 1] (north pole side → 0), clamped at ±85.0511°.
    @inline(__always)
    public static func y(lat: Double) -> Double {
        let s = sin(Swift.min(Swift.max(lat, -maxLatitude), maxLatitude) * .pi / 180)
        let y = 0.5 - 0.25 * log((1 + s) / (1 - s)) / .pi
        return Swift.min(Swift.max(y, 0), 1)
    }

    @inline(__always)
    public static func lon(x: Double) -> Double { (x - 0.5) * 360 }

    @inline(__always)
    public static func lat(y: Double) -> Double {
        let y2 = (180 - y * 360) * .pi / 180
        return 360 * atan(exp(y2)) / .pi - 90
    }

    /// Longitude/latitude → EPSG:3857 metres.
    public static func meters(lon: Double, lat: Double) -> (x: Double, y: Double) {
        ((x(lon: lon) - 0.5) * 2 * originShift, (0.5 - y(lat: lat)) * 2 * originShift)
    }

    /// Ground metres per world unit at a latitude (for scale bars).
    public static func metersPerWorldUnit(atLatitude lat: Double) -> Double {
        2 * originShift * cos(lat * .pi / 180)
    }
}
