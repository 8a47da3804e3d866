import ArgumentParser
import Foundation
import MapRender

struct Inspect: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "inspect",
        abstract: "Read a point file and print what was found, as JSON, without rendering.",
        discussion: "Prints the format, records and points read, skipped rows by reason with their first line numbers, the properties and the points' bounds."
    )

    @Argument(help: ArgumentHelp("A GeoJSON or CSV file ('-' reads standard input).", valueName: "input"))
    var file: String

    @OptionGroup(title: "Input")
    var input: InputOptionGroup

    func run() throws {
        try runReportingErrors {
            let loaded = try input.read(file, namesOnly: true)
            try AtomicFile.write(try jsonText(InputInspection(loaded)), to: "-")
        }
    }
}
