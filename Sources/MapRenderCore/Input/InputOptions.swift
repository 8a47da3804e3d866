/// How to read a point file.
public struct InputOptions: Sendable, Equatable {
    public enum Format: String, Sendable, CaseIterable { case csv, geojson }

    /// nil: detect from the extension (.csv .tsv .txt → CSV, .json .geojson → GeoJSON), else from the first byte.
    public var format: Format?
    /// CSV delimiter; nil: detect among comma, semicolon and tab from the header line.
    public var delimiter: UInt8?
    /// CSV latitude / longitude column names (case-insensitive); nil: detect by usual names.
    public var latField: String?
    public var lonField: String?
    /// The property (GeoJSON) or column (CSV) that holds the id; nil: feature `id` / a column named `id`.
    public var idField: String?
    /// Accept longitudes in 0...360 (normalised to -180...180).
    public var wrapLongitude = false
    /// Keep only these property columns (nil keeps all). Lets a render of 1M rows keep just what it draws.
    public var keepProperties: Set<String>?

    public init() {}
}

/// Points read from one file, and the report of what was skipped.
public struct LoadedPoints: Sendable {
    public var points: PointSet
    public var report: InputReport
    public init(points: PointSet, report: InputReport) {
        self.points = points
        self.report = report
    }
}
