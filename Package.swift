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
        // `maprender serve`: the HTTP server (SwiftNIO underneath), graceful shutdown on SIGTERM,
        // Prometheus text for /metrics, and SwiftNIO itself for the read-deadline channel handler
        // (slow clients). Only the MapRenderServe target depends on them.
        .package(url: "https://github.com/hummingbird-project/hummingbird", from: "2.28.1"),
        .package(url: "https://github.com/swift-server/swift-service-lifecycle", from: "2.13.0"),
        .package(url: "https://github.com/swift-server/swift-prometheus", from: "2.4.1"),
        .package(url: "https://github.com/apple/swift-nio", from: "2.101.2"),
        .package(url: "https://github.com/apple/swift-nio-extras", from: "1.35.2"),
        .package(url: "https://github.com/apple/swift-http-types", from: "1.8.0"),
    ],
    targets: [
        // Cairo + Pango through pkg-config (Debian: libcairo2-dev, libpango1.0-dev).
        .systemLibrary(
            name: "CCairo",
            pkgConfig: "pangocairo",
            providers: [.apt(["libcairo2-dev", "libpango1.0-dev"])]
        ),
        // SVG icon markers through librsvg (Debian: librsvg2-2), drawn onto Cairo; opened on the
        // first SVG icon, not linked (see mr_rsvg.c).
        .target(name: "CRsvg"),
        // The one image codec: the header check and size policy, decoding (tiles, `compare`) and
        // encoding (PNG, JPEG, WebP output) through libpng, libjpeg-turbo and libwebp, and zlib's
        // CRC-32 and inflate; in C for libpng's and libjpeg's longjmp error handling (Debian:
        // libpng-dev libjpeg62-turbo-dev libwebp-dev zlib1g-dev). See mr_image_codec.h.
        .target(name: "CImageCodec", linkerSettings: [.linkedLibrary("png16"), .linkedLibrary("jpeg"),
                                                      .linkedLibrary("webp"), .linkedLibrary("z")]),
        // The git commit of the build, for `maprender --version` (scripts/stamp-commit writes it).
        .target(name: "CBuildInfo"),
        // Cache prefetch hints for the clustering's hot loop (no Swift spelling).
        .target(name: "CPrefetch"),
        // SQLite for MBTiles through the system library (Debian: libsqlite3-dev) rather than GRDB.swift:
        // three read-only queries need no query builder, and MBTiles tools are all tested against it.
        .systemLibrary(name: "CSQLite", providers: [.apt(["libsqlite3-dev"])]),
        // glibc's mallopt (<malloc.h>), for `animate`'s choice of allocator settings.
        .systemLibrary(name: "CMalloc"),
        // Swift + Foundation: input, model, projection, clustering, layout, scene; images through
        // the codec (Codec/).
        .target(name: "MapRenderCore", dependencies: ["CPrefetch", "CImageCodec"]),
        // Draws a Scene with Cairo; measures text with Pango.
        .target(name: "MapRenderCairo", dependencies: ["MapRenderCore", "CCairo", "CRsvg", "CImageCodec"]),
        // HTTP for tiles through libcurl directly (Debian: libcurl4-openssl-dev for the headers;
        // libcurl4 is opened on the first request, not linked, see mr_http.c): its write callback
        // stops a body at the limit as it streams in, which FoundationNetworking's URLSession cannot.
        .target(name: "CHTTP"),
        // Raster tile basemaps: folder, MBTiles, PMTiles and HTTP sources, disk cache, decoding.
        .target(name: "MapRenderTiles", dependencies: ["MapRenderCore", "CSQLite", "CImageCodec", "CHTTP"]),
        // The pipeline: RenderRequest -> output bytes / file.
        .target(
            name: "MapRender",
            dependencies: ["MapRenderCore", "MapRenderCairo", "MapRenderTiles", "CMalloc", "CBuildInfo", .product(name: "Yams", package: "Yams")]
        ),
        // `maprender serve`: static maps over HTTP (Mapbox Static Images URLs, POST /render), through
        // the same MapRender pipeline; its own target so the library does not depend on SwiftNIO.
        .target(
            name: "MapRenderServe",
            dependencies: [
                "MapRender", "MapRenderCore", "MapRenderCairo", "MapRenderTiles", .product(name: "Yams", package: "Yams"),
                .product(name: "Hummingbird", package: "hummingbird"),
                .product(name: "HummingbirdCore", package: "hummingbird"),
                .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
                .product(name: "Prometheus", package: "swift-prometheus"),
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOHTTP1", package: "swift-nio"),
                .product(name: "NIOHTTPTypes", package: "swift-nio-extras"),
                .product(name: "HTTPTypes", package: "swift-http-types"),
            ]
        ),
        // Thin CLI.
        .executableTarget(
            name: "maprender",
            dependencies: [
                "MapRender", "MapRenderServe",
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
            ]
        ),
        // Benchmark driver for scripts/bench: generates data, times the real binary. (MapRender only
        // for the embedded Natural Earth 1:50m countries, written out as the choropleth's data.)
        .executableTarget(name: "maprender-bench", dependencies: ["MapRender"]),
        // Paths of the repository and shared data, a seeded generator: shared by the test targets.
        .target(name: "TestSupport", dependencies: ["MapRenderCore"], path: "Tests/TestSupport"),
        .testTarget(name: "MapRenderCoreTests", dependencies: ["MapRenderCore", "TestSupport"], exclude: ["Fixtures"]),
        .testTarget(name: "MapRenderCairoTests", dependencies: ["MapRenderCairo", "MapRenderCore", "TestSupport"]),
        .testTarget(name: "MapRenderTests", dependencies: ["MapRender", "TestSupport"],
                    exclude: ["__Snapshots__", "BasemapStyle/Fixtures", "BasemapStyle/pymgl_oracle.py", "BasemapStyle/make_glyphs.py"]),
        .testTarget(name: "MapRenderTilesTests", dependencies: ["MapRenderTiles", "MapRender", "TestSupport"],
                    exclude: ["Fixtures"]),
        .testTarget(name: "MapRenderServeTests", dependencies: ["MapRenderServe", "MapRender", "TestSupport",
                                                               .product(name: "Hummingbird", package: "hummingbird"),
                                                               .product(name: "ServiceLifecycle", package: "swift-service-lifecycle")]),
        // Depends on the executable so `swift test` builds the binary the CLI tests run.
        // Yams: ReadmeDeploymentTests parses the README's Kubernetes manifest.
        .testTarget(name: "maprenderTests", dependencies: ["maprender", "MapRender", "MapRenderCairo", "MapRenderServe", "TestSupport",
                                                           .product(name: "Yams", package: "Yams")]),
    ]
)
