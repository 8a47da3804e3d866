import ArgumentParser
import Foundation
import MapRender

@main
struct MapRenderCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "maprender",
        abstract: "Render points from GeoJSON or CSV to a static map (PNG, JPEG, WebP, SVG or PDF).",
        discussion: """
        Exit codes: 0 success; 64 bad option or option value (also in a batch manifest); \
        65 malformed input; 66 input not readable; 69 tiles missing with --tiles-strict, or no tile arrived; \
        70 internal error; 73 output not writable; 74 standard output not writable (full, closed); \
        78 bad style file or manifest. \
        `compare` exits 0 equal, 1 different, 2 error; `batch` exits 1 when any job failed.
        """,
        version: MapRenderVersion.long,
        subcommands: [Render.self, Cluster.self, Inspect.self, Compare.self, Batch.self, Animate.self, Serve.self],
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
        run(args, usageErrorCode: args.first == "compare" ? 2 : nil)
    }

    /// Arguments that are `render`'s own (no subcommand named first, nothing the root answers):
    /// parsed by `Render` alone. The root's parse of them reaches the same `Render` after
    /// matching every argument against the root and every subcommand's completion options: 47 M
    /// instructions of the 1:50m choropleth's 408 M.
    static func defaultsToRender(_ args: [String]) -> Bool {
        guard let first = args.first, !configuration.subcommands.contains(where: { $0._commandName == first }) else { return false }
        let root: Set<String> = ["--version", "--help", "-h", "help", "--generate-completion-script", "--experimental-dump-help"]
        return !args.contains { root.contains($0) || $0.hasPrefix("--generate-completion-script=") }
    }

    /// Parses and runs, with one error style: every error is `maprender: error: MESSAGE`; an
    /// argument error (exit 64) adds a second line pointing at the command's `--help`, instead of
    /// ArgumentParser's `Error: ...` followed by the whole usage. `compare` documents exit 2 for
    /// every error, a bad option included (`usageErrorCode`).
    static func run(_ args: [String], usageErrorCode: Int32?) -> Never {
        do {
            var command = try defaultsToRender(args) ? Render.parseAsRoot(args) : parseAsRoot(args)
            try command.run()
            exit(withError: nil)
        } catch let e as ExitCode {
            // Thrown after the message was printed (runReportingErrors), or a bare exit status.
            exit(withError: e)
        } catch {
            let code = exitCode(for: error)
            // --help, --version, --generate-completion-script: ArgumentParser prints them.
            guard code != .success else { exit(withError: error) }
            let message = message(for: error).trimmingCharacters(in: .whitespacesAndNewlines)
            printError("maprender: error: " + (message.isEmpty ? "\(error)" : message))
            if code == .validationFailure {
                let name = configuration.subcommands.map { $0._commandName }.first { $0 == args.first } ?? Render._commandName
                StandardStreams.writeError("Usage: see 'maprender \(name) --help'\n")
                Foundation.exit(usageErrorCode ?? code.rawValue)
            }
            Foundation.exit(code.rawValue)
        }
    }
}
