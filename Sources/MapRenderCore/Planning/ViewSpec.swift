/// How the view is chosen.
public enum ViewSpec: Sendable, Equatable {
    /// Fit the data (the default), with an optional fixed zoom.
    case fit(zoom: Double?)
    /// `--center LAT,LON --zoom Z`.
    case center(lat: Double, lon: Double, zoom: Double)
    /// `--center LAT,LON` alone: centred there, at the zoom that shows all the data around it
    /// (world-spanning data: the whole world once, centred there instead of on 0°).
    case fitAround(lat: Double, lon: Double)
    /// `--bbox W,S,E,N`.
    case bbox(GeoBounds)

    /// Whether the view is fitted to the points (their box decides it).
    public var fitsData: Bool {
        switch self {
        case .fit, .fitAround: return true
        default: return false
        }
    }

    /// Whether the zoom is fitted to the data (the planner then makes room for spread rings and bubbles).
    public var fitsZoom: Bool {
        switch self {
        case .fit(nil), .fitAround: return true
        default: return false
        }
    }
}
