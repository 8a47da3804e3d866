import ArgumentParser
import MapRender

/// How to read point files; shared by `render`, `animate`, `cluster` and `inspect`.
/// Help, checks and meaning of each option come from `RenderOptionTable.input`.
struct InputOptionGroup: TableOptionGroup {
    @Option(help: .table("input-format")) var inputFormat: String?
    @Option(help: .table("lat")) var lat: String?
    @Option(help: .table("lon")) var lon: String?
    @Option(help: .table("wkt")) var wkt: String?
    @Option(help: .table("polyline")) var polyline: String?
    @Option(help: .table("polyline-precision")) var polylinePrecision: String?
    @Option(help: .table("line-by")) var lineBy: String?
    @Option(help: .table("order-by")) var orderBy: String?
    @Flag(help: .table("line-only")) var lineOnly = false
    @Option(help: .table("to-lat")) var toLat: String?
    @Option(help: .table("to-lon")) var toLon: String?
    @Option(parsing: .unconditional, help: .table("circle-radius")) var circleRadius: String?
    @Flag(help: .table("number-markers")) var numberMarkers = false
    @Option(help: .table("id-field")) var idField: String?
    @Option(help: .table("delimiter")) var delimiter: String?
    @Flag(help: .table("wrap-longitude")) var wrapLongitude = false
    @Option(parsing: .unconditional, help: .table("max-memory")) var maxMemory: String?

    func validate() throws { try validateValues() }

    func options() throws -> InputOptions { try request().inputOptions }

    /// Reads one input within `--max-memory` (`cluster`, `inspect`); `namesOnly` keeps no
    /// property values or ids (`inspect` prints only the names).
    func read(_ path: String, namesOnly: Bool = false) throws -> LoadedPoints {
        var r = try request()
        r.inputOptions.namesOnly = namesOnly
        return try PointReader.read(path: path, within: r)
    }
}

extension OutputFormat: ExpressibleByArgument {
    /// `--format jpg` is `jpeg`, as `-o map.jpg` is.
    public init?(argument: String) {
        let name = argument.lowercased()
        self.init(rawValue: name == "jpg" ? "jpeg" : name)
    }
}
