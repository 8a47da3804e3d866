import ArgumentParser
import Foundation
import MapRender

struct Compare: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "compare",
        abstract: "Compare two images for golden-image tests.",
        discussion: """
        PNGs are compared perceptually, with pixelmatch's semantics: a pixel differs when its YIQ colour \
        distance exceeds the threshold; anti-aliased pixels are detected and not counted. Files are told \
        apart by content: SVG and other text files are compared as text, other files (PDF) byte for byte. Prints the number of differing pixels (or the first differing line).
        Exit codes: 0 equal within tolerance, 1 different, 2 error.
        """
    )

    @Argument(help: ArgumentHelp("The expected (golden) image.", valueName: "expected"))
    var expected: String

    @Argument(help: ArgumentHelp("The image to check.", valueName: "actual"))
    var actual: String

    // `.unconditional`: `--threshold -1` is a value (refused by `run` with exit 2), not an option.
    @Option(parsing: .unconditional, help: ArgumentHelp("Colour distance threshold, 0 (exact) to 1; pixelmatch's default is 0.1.", valueName: "t"))
    var threshold = 0.1

    @Option(name: .customLong("max-diff"), parsing: .unconditional, help: ArgumentHelp("Differing pixels tolerated before the images count as different.", valueName: "n"))
    var maxDiff = 0

    @Flag(name: .customLong("include-aa"), help: "Count anti-aliased pixels as differences too.")
    var includeAA = false

    @Option(help: ArgumentHelp("Write a diff image (PNG): differences red, anti-aliased pixels yellow.", valueName: "file"))
    var diff: String?

    @Option(name: .customLong("max-pixels"), help: ArgumentHelp("Refuse PNGs of more pixels than this (checked from the header, before decoding).", valueName: "n"))
    var maxPixels = ImageComparison.defaultMaxPixels

    mutating func run() throws {
        guard (0...1).contains(threshold), maxDiff >= 0 else {  // NaN fails too
            printError("maprender: error: --threshold must be in 0...1 and --max-diff >= 0")
            throw ExitCode(2)
        }
        do {
            try OutputSafety.check(outputs: diff.map { [("--diff", $0)] } ?? [], inputs: [("expected", expected), ("actual", actual)])
            let outcome = try ImageComparison.compare(
                expected: expected, actual: actual, threshold: threshold, includeAntiAliased: includeAA,
                maxDifferent: maxDiff, diffPath: diff, maxPixels: maxPixels)
            try StandardStreams.writeOutput(outcome.message + "\n")
            throw ExitCode(outcome.equal ? 0 : 1)
        } catch let e as MapRenderError {
            printError("maprender: error: \(e.message)")
            throw ExitCode(2)
        }
    }
}
