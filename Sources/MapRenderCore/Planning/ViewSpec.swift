/// How the view is chosen.
public enum ViewSpec: Sendable, Equatable {
    /// Fit the data (the default), with an optional fixed zoom.
    case fit(zoom: Double?)
    /// `--center LAT,LON --zoom Z`.
    case center(lat: Double, lon: Double, zoom: Double)
    /// `--bbox W,S,E,N`.
    case bbox(GeoBounds)
}
