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
    /// Memory reading may use, checked as it reads (for input whose size is not known up
    /// front, such as standard input); nil: unbounded.
    public var memoryLimit: InputMemoryLimit?
    /// Read the property names and count the ids, but keep no property values or ids
    /// (`maprender inspect`, which prints only the names): `LoadedPoints.points` then holds
    /// coordinates and an empty property table, and `LoadedPoints.namesOnly` says what the file
    /// had. Values are still checked as when kept (same errors, same count of invalid UTF-8).
    public var namesOnly = false
    /// Keep each point's id in `PointSet.ids` (animation matches points by it, `cluster` writes
    /// it, `inspect` counts it). A still map draws none, so it reads without: the id fields are
    /// still checked (invalid UTF-8 is counted as when kept) but not parsed or stored, 8 bytes a
    /// point and a number parse less (1M clumps rows: read 262 -> 236 ms, medians of 9; peak of
    /// the clustered map 188 -> 180 MB).
    public var keepIDs = true
    /// Keep lines and polygons (GeoJSON LineString, MultiLineString, Polygon, MultiPolygon, also
    /// inside GeometryCollections) in `LoadedPoints.shapes`, with their features' properties,
    /// instead of counting them as skipped (a map draws them; `cluster` and `inspect` do not).
    public var keepShapes = false
    /// A CSV column holding each row's geometry, instead of latitude and longitude columns
    /// (`--wkt FIELD`, `--polyline FIELD`); nil: latitude and longitude.
    public var geometryColumn: GeometryColumn?
    /// Decimal digits of an encoded polyline column: 5 (Google's) or 6 (OSRM, Valhalla).
    public var polylinePrecision = 5

    /// How a CSV column holds a geometry.
    public struct GeometryColumn: Sendable, Equatable {
        public enum Encoding: Sendable, Equatable {
            /// OGC well-known text (`LINESTRING (30 10, 10 30)`), optionally EWKT with SRID 4326.
            case wkt
            /// Google's encoded polyline (`InputOptions.polylinePrecision` decimal digits).
            case polyline
        }
        public var name: String
        public var encoding: Encoding
        public init(name: String, encoding: Encoding) { self.name = name; self.encoding = encoding }
    }

    public init() {}
}

/// A bound on the memory one input may take while it is read: CSV counts its points, GeoJSON
/// the bytes it holds to parse. Past it, reading stops with an error naming the limit.
public struct InputMemoryLimit: Sendable, Equatable {
    /// Memory a point takes from reading to drawing (coordinates, kept properties, projected
    /// copies, the cluster index and marks): 150–330 bytes measured on 800k CSV rows, rounded up.
    public static let bytesPerPoint = 400
    /// GeoJSON is read whole and parsed from memory: about 3 times its size.
    public static let geoJSONFactor = 3

    /// Bytes this input may use.
    public var bytes: Int
    /// The end of the error, e.g. `more than the limit of 8192 MB; --max-memory raises it`.
    public var limitText: String
    /// Whether an image shares the limit (a render; not `cluster` or `inspect`): the errors say so.
    public var withImage: Bool

    public init(bytes: Int, limitText: String, withImage: Bool = true) {
        self.bytes = bytes
        self.limitText = limitText
        self.withImage = withImage
    }

    /// The most points a CSV may hold.
    public var maxPoints: Int { max(0, bytes / Self.bytesPerPoint) }
    /// The most bytes of GeoJSON that may be read.
    public var maxGeoJSONBytes: Int { max(0, bytes / Self.geoJSONFactor) }
}

/// Points read from one file, and the report of what was skipped.
public struct LoadedPoints: Sendable {
    public var points: PointSet
    /// Lines and polygons, when read with `InputOptions.keepShapes`.
    public var shapes = ShapeSet()
    public var report: InputReport
    /// Set when read with `InputOptions.namesOnly`.
    public var namesOnly: NamesOnly?

    /// What a names-only read found besides the coordinates.
    public struct NamesOnly: Sendable, Equatable {
        /// The property names, as `points.properties.names` would have listed them.
        public var propertyNames: [String]
        /// Points with an id (as `points.ids` would have held, less the `.missing` ones).
        public var pointsWithIDs: Int
    }

    public init(points: PointSet, shapes: ShapeSet = ShapeSet(), report: InputReport, namesOnly: NamesOnly? = nil) {
        self.points = points
        self.shapes = shapes
        self.report = report
        self.namesOnly = namesOnly
    }
}
