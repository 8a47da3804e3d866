// swift-tools-version:5.9
import PackageDescription

let package = Package(
    name: "maprender",
    products: [
        .executable(name: "maprender", targets: ["maprender"]),
        .library(name: "MapRender", targets: ["MapRender"]),
    ],
    dependencies: [
        .package(url: "https://github.com/apple/swift-argument-parser", from: "1.5.0"),
        // YAML batch manifests (`maprender batch jobs.yaml`).
        .package(url: "https://github.com/jpsim/Yams", from: "5.0.1"),
    ],
    targets: [
        // Cairo + Pango through pkg-config (Debian: libcairo2-dev, libpango1.0-dev).
        .systemLibrary(
            name: "CCairo",
            pkgConfig: "pangocairo",
            providers: [.apt(["libcairo2-dev", "libpango1.0-dev"])]
        ),
        // PNG encoding through libpng (C for libpng's setjmp error handling; see mr_png.c).
        .target(name: "CPNG", linkerSettings: [.linkedLibrary("png16")]),
        // Cache prefetch hints for the clustering's hot loop (no Swift spelling).
        .target(name: "CPrefetch"),
        // Swift + Foundation: input, model, projection, clustering, layout, scene.
        .target(name: "MapRenderCore", dependencies: ["CPrefetch"]),
        // Draws a Scene with Cairo; measures text with Pango.
        .target(name: "MapRenderCairo", dependencies: ["MapRenderCore", "CCairo", "CPNG"]),
        // The pipeline: RenderRequest -> output bytes / file.
        .target(
            name: "MapRender",
            dependencies: ["MapRenderCore", "MapRenderCairo", .product(name: "Yams", package: "Yams")]
        ),
        // Thin CLI.
        .executableTarget(
            name: "maprender",
            dependencies: [
                "MapRender",
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
            ]
        ),
        // Benchmark driver for scripts/bench: generates data, times the real binary.
        .executableTarget(name: "maprender-bench"),
        // Paths of the repository and shared data, a seeded generator: shared by the test targets.
        .target(name: "TestSupport", path: "Tests/TestSupport"),
        .testTarget(name: "MapRenderCoreTests", dependencies: ["MapRenderCore", "TestSupport"], exclude: ["Fixtures"]),
        .testTarget(name: "MapRenderCairoTests", dependencies: ["MapRenderCairo", "MapRenderCore", "TestSupport"]),
        .testTarget(name: "MapRenderTests", dependencies: ["MapRender", "TestSupport"], exclude: ["__Snapshots__"]),
        // Depends on the executable so `swift test` builds the binary the CLI tests run.
        .testTarget(name: "maprenderTests", dependencies: ["maprender", "MapRender", "TestSupport"]),
    ]
)
