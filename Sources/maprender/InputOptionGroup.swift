import ArgumentParser
import MapRender

/// How to read point files; shared by `render` and `inspect`.
struct InputOptionGroup: ParsableArguments {
    @Option(name: .customLong("input-format"), help: "Input format: csv or geojson (default: from the extension, else sniffed).")
    var inputFormat: InputOptions.Format?

    @Option(help: ArgumentHelp("CSV latitude column (default: lat, latitude or y, any case).", valueName: "name"))
    var lat: String?

    @Option(help: ArgumentHelp("CSV longitude column (default: lon, lng, long, longitude or x, any case).", valueName: "name"))
    var lon: String?

    @Option(name: .customLong("id-field"), help: ArgumentHelp("Property or column holding each point's id (default: the feature id, or a column named id).", valueName: "name"))
    var idField: String?

    @Option(help: ArgumentHelp("CSV delimiter: ',', ';', 'tab' or '\\t' (default: detected from the header).", valueName: "char"))
    var delimiter: String?

    @Flag(name: .customLong("wrap-longitude"), help: "Accept longitudes in 0...360 (as in earthquake catalogues) and normalise them.")
    var wrapLongitude = false

    func validate() throws {
        _ = try delimiterByte()
    }

    func delimiterByte() throws -> UInt8? {
        guard let d = delimiter else { return nil }
        switch d {
        case ",": return UInt8(ascii: ",")
        case ";": return UInt8(ascii: ";")
        case "tab", "\\t", "\t": return UInt8(ascii: "\t")
        case "|": return UInt8(ascii: "|")
        default: throw ValidationError("--delimiter must be ',', ';', '|' or 'tab', got '\(d)'")
        }
    }

    func options() throws -> InputOptions {
        var o = InputOptions()
        o.format = inputFormat
        o.latField = lat
        o.lonField = lon
        o.idField = idField
        o.delimiter = try delimiterByte()
        o.wrapLongitude = wrapLongitude
        return o
    }
}

extension InputOptions.Format: ExpressibleByArgument {}
extension OutputFormat: ExpressibleByArgument {}
