import Foundation

/// Reads a point file, CSV or GeoJSON, into flat columns plus a report of what was skipped.
///
/// ```swift
/// var options = InputOptions()
/// options.keepProperties = ["name"]
/// let loaded = try PointReader.read(path: "cities.csv", options: options)
/// loaded.report.warnings().forEach { print($0) }
/// ```
/// The format is `options.format`, else the extension (.csv .tsv .txt → CSV, .json .geojson →
/// GeoJSON), else the first non-blank byte (`{` or `[` → GeoJSON, anything else → CSV).
/// Errors are `MapRenderError`s whose message starts with the file name.
public enum PointReader {
    /// Reads a file; `-` reads standard input.
    public static func read(path: String, options: InputOptions) throws -> LoadedPoints {
        try read(ByteSource(path: path), options: options)
    }

    /// Reads bytes already in memory; `name` is used for the format and in messages.
    public static func read(data: Data, name: String, options: InputOptions) throws -> LoadedPoints {
        try read(ByteSource(data: data, name: name), options: options)
    }

    /// `chunkSize` (bytes per CSV read) is a parameter so tests can force tiny chunks.
    static func read(data: Data, name: String, options: InputOptions, chunkSize: Int) throws -> LoadedPoints {
        try read(ByteSource(data: data, name: name), options: options, chunkSize: chunkSize)
    }

    static func read(_ source: ByteSource, options: InputOptions,
                     chunkSize: Int = CSVReader.defaultChunkSize) throws -> LoadedPoints {
        let format = try options.format ?? format(ofName: source.name) ?? sniff(source)
        switch format {
        case .csv:
            return try CSVReader(name: source.name, options: options).read(source, chunkSize: chunkSize)
        case .geojson:
            if let g = options.geometryColumn {
                throw MapRenderError(.usage, "\(source.displayName): --\(g.encoding == .wkt ? "wkt" : "polyline") reads a CSV column, but this is GeoJSON (its geometries are read as they are)")
            }
            let maxBytes = options.memoryLimit?.maxGeoJSONBytes ?? .max
            func tooLarge(_ what: String) -> MapRenderError {
                MapRenderError(.usage, "\(source.displayName): \(what) of GeoJSON: parsed (about "
                    + "\(InputMemoryLimit.geoJSONFactor) times its size)\(options.memoryLimit!.withImage ? " with the image" : ""), it would need \(options.memoryLimit!.limitText)")
            }
            if let file = source.mapWhole() {
                // A mapped file gives its pages back as it is read, but its points still cost memory.
                guard file.count <= maxBytes else { throw tooLarge("the file holds \(file.count) bytes") }
                return try GeoJSONReader.read(mapped: file, name: source.name, options: options)
            }
            let bytes = try source.readAll(limit: maxBytes) { read in tooLarge("reading stopped at \(read) bytes") }
            return try GeoJSONReader.read(bytes: bytes, name: source.name, options: options)
        }
    }

    /// True when the name's extension says GeoJSON (`.json`, `.geojson`): such a file is read whole.
    public static func isGeoJSONName(_ name: String) -> Bool { format(ofName: name) == .geojson }

    /// The format implied by a file name's extension, if any.
    static func format(ofName name: String) -> InputOptions.Format? {
        guard let dot = name.lastIndex(of: "."), !name[dot...].contains("/") else { return nil }
        switch name[name.index(after: dot)...].lowercased() {
        case "csv", "tsv", "txt": return .csv
        case "json", "geojson": return .geojson
        default: return nil
        }
    }

    /// GeoJSON when the first byte that is not blank (or a byte order mark) is `{` or `[`.
    private static func sniff(_ source: ByteSource) throws -> InputOptions.Format {
        let head = try source.peek(64 * 1024)
        var i = head.starts(with: [0xEF, 0xBB, 0xBF]) ? 3 : 0
        while i < head.count, [0x20, 0x09, 0x0A, 0x0D, 0x1E].contains(head[i]) { i += 1 }
        if i < head.count && (head[i] == UInt8(ascii: "{") || head[i] == UInt8(ascii: "[")) { return .geojson }
        return .csv
    }
}
