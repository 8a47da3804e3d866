import ArgumentParser
import Foundation
import MapRender

@main
struct MapRenderCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "maprender",
        abstract: "Render points from GeoJSON or CSV to a static map (PNG, SVG or PDF).",
        discussion: """
        Exit codes: 0 success; 64 bad option or option value (also in a batch manifest); \
        65 malformed input; 66 input not readable; 69 tiles missing with --tiles-strict, or no tile arrived; \
        70 internal error; 73 output not writable; 74 standard output not writable (full, closed); \
        78 bad style file or manifest. \
        `compare` exits 0 equal, 1 different, 2 error; `batch` exits 1 when any job failed.
        """,
        version: MapRenderVersion.current,
        subcommands: [Render.self, Cluster.self, Inspect.self, Compare.self, Batch.self, Animate.self],
        defaultSubcommand: Render.self
    )

    /// `maprender --help` shows the subcommands and then the options of `render`, the default
    /// subcommand (ArgumentParser alone would show only the subcommands).
    static func main() {
        StandardStreams.reserveClosedStreams()
        let args = Array(CommandLine.arguments.dropFirst())
        if args == ["--help"] || args == ["-h"] || args == ["help"] {
            print(helpMessage())
            print("")
            print("Without a subcommand, maprender runs `render`:")
            print("")
            let renderHelp = helpMessage(for: Render.self)
            // Its overview repeats the abstract above; start at USAGE.
            let start = renderHelp.range(of: "USAGE:")?.lowerBound ?? renderHelp.startIndex
            print(renderHelp[start...], terminator: renderHelp.hasSuffix("\n") ? "" : "\n")
            return
        }
        if args.first == "compare" { runCompare(args) }
        main(nil)
    }

    /// `compare` documents exit 2 for every error, a bad option included (ArgumentParser's is 64).
    static func runCompare(_ args: [String]) -> Never {
        do {
            var command = try parseAsRoot(args)
            try command.run()
            exit(withError: nil)
        } catch {
            if exitCode(for: error) == .validationFailure {
                StandardStreams.writeError(fullMessage(for: error) + "\n")
                Foundation.exit(2)
            }
            exit(withError: error)
        }
    }
}
