/// Which CSV columns hold a track's id, time and position.
///
/// Names match case-insensitively. Left nil, they are found the way the point reader finds
/// them: `id`; `time`, `timestamp`, `datetime` or `date`; `lat`, `latitude` or `y`; `lon`,
/// `lng`, `long`, `longitude` or `x`.
public struct TrackColumns: Sendable, Equatable {
    public var id: String?
    public var time: String?
    public var lat: String?
    public var lon: String?
    /// Field delimiter; nil: the most frequent of `,` `;` tab in the header line.
    public var delimiter: UInt8?
    /// Accept longitudes in 180...360 (shifted by -360), as `InputOptions.wrapLongitude`.
    public var wrapLongitude = false

    public init(id: String? = nil, time: String? = nil, lat: String? = nil, lon: String? = nil,
                delimiter: UInt8? = nil, wrapLongitude: Bool = false) {
        self.id = id; self.time = time; self.lat = lat; self.lon = lon
        self.delimiter = delimiter
        self.wrapLongitude = wrapLongitude
    }
}
