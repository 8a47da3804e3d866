import ArgumentParser
import Foundation
import MapRender

struct Render: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "render",
        abstract: "Render points to a PNG, JPEG, WebP, SVG or PDF map (the default command).",
        discussion: """
        Examples:
          maprender cities.csv -o map.png
          maprender places.geojson --basemap countries.geojson --label name -o map.svg
          maprender quakes.csv --wrap-longitude --bbox 160,-25,-170,-10 -o fiji.png
          maprender cities.csv -o map.jpg --quality 85
          maprender cities.csv -o - > map.png
        """
    )

    @Argument(help: ArgumentHelp("Point files: GeoJSON or CSV ('-' reads standard input).", valueName: "input"))
    var inputs: [String]

    @Option(name: .shortAndLong, help: ArgumentHelp("Output file (.png, .jpg, .jpeg, .webp, .svg or .pdf; '-' writes PNG to standard output unless --format).", valueName: "file"))
    var output: String

    @Option(help: "Output format: png, jpeg, webp, svg or pdf (default: from the output's extension; png for '-').")
    var format: OutputFormat?

    @OptionGroup(title: "Input")
    var input: InputOptionGroup

    @OptionGroup(title: "Map")
    var map: MapOptionGroup

    @Option(help: ArgumentHelp("Write a JSON summary (points read, skipped, drawn; view; marks; time per stage) to a file or '-'.", valueName: "file"))
    var summary: String?

    @Flag(name: .shortAndLong, help: "Print no warnings: skipped rows, tiles missing or failed, a scale bar or legend that cannot be drawn, a missing font family, a view that shows none of the points. Errors are still printed.")
    var quiet = false

    /// The format: `--format`, else the output's extension, else PNG for standard output.
    var outputFormat: OutputFormat? { format ?? OutputFormat(path: output) ?? (output == "-" ? .png : nil) }

    func validate() throws {
        if outputFormat == nil {
            throw ValidationError("cannot tell the format from '\(output)': use \(OutputFormat.extensionsText), or --format")
        }
        if output == "-" && summary == "-" { throw ValidationError("--output - and --summary - cannot both use standard output") }
        if inputs.filter({ $0 == "-" }).count > 1 { throw ValidationError("standard input ('-') can be read only once") }
    }

    func request() throws -> RenderRequest {
        var r = try RenderOptionTable.request(commandLine: input.given + map.given)
        r.inputs = inputs
        r.format = outputFormat!
        return r
    }

    func run() throws {
        try runReportingErrors {
            try OutputSafety.check(outputs: [("--output", output)] + (summary.map { [("--summary", $0)] } ?? []),
                                   inputs: inputs.map { ("input", $0) } + map.filesRead)
            // A folder that does not exist is found before the render, not after it.
            try OutputDestination.check(output)
            if let s = summary { try OutputDestination.check(s) }
            // The summary is written before the map replaces anything: a summary that cannot be
            // written leaves the map as it was.
            _ = try MapRenderer.render(try request(), to: output) { result in
                if !quiet {
                    result.notes.forEach { printError("maprender: note: \($0)") }
                    result.warnings.forEach { printError("maprender: warning: \($0)") }
                }
                if let s = summary { try AtomicFile.write(try jsonText(result.summary), to: s) }
            }
        }
    }
}
