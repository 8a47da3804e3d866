// swift-tools-version:5.9
// libFuzzer targets for maprender's parsers, in their own package so the normal build never sees
// `-sanitize=fuzzer`. Built and run by scripts/fuzz:
//
//     scripts/fuzz csv 60        # build Fuzz/ with -sanitize=fuzzer,address, run fuzz-csv for 60 s
//
// Each target is one file defining LLVMFuzzerTestOneInput (libFuzzer supplies main, hence
// -parse-as-library). Seed corpora are under Fuzz/Corpus/<target>/.
import PackageDescription

let targets = ["csv", "geojson", "style", "expression", "manifest-yaml", "manifest-json", "track", "png", "wkt", "polyline",
               "pmtiles", "mbtiles", "tile-image", "http-headers", "mvt", "overlay"]

let package = Package(
    name: "maprender-fuzz",
    dependencies: [.package(name: "maprender", path: "..")],
    targets: [
        // The driver hand-over, scratch folder and the bodies several targets share.
        .target(name: "FuzzSupport", dependencies: [.product(name: "MapRender", package: "maprender")],
                path: "Sources/FuzzSupport"),
    ] + targets.map { name in
        .executableTarget(
            name: "fuzz-\(name)",
            dependencies: ["FuzzSupport", .product(name: "MapRender", package: "maprender")],
            path: "Sources/fuzz-\(name)",
            swiftSettings: [.unsafeFlags(["-parse-as-library"])]
        )
    }
)
