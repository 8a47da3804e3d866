import ArgumentParser

@main
struct MapRenderCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "maprender",
        abstract: "Render points from GeoJSON or CSV to a static map (PNG, SVG or PDF).",
        discussion: """
        Exit codes: 0 success; 64 bad option; 65 malformed input; 66 input not readable; \
        70 internal error; 73 output not writable; 78 bad style file or manifest. \
        `compare` exits 0 equal, 1 different, 2 error; `batch` exits 1 when any job failed.
        """,
        subcommands: [Render.self, Cluster.self, Inspect.self, Compare.self, Batch.self, Animate.self],
        defaultSubcommand: Render.self
    )
}
