import Foundation
import MapRenderCore

/// Paths of the repository and of the real datasets the tests read, for every test target.
public enum TestPaths {
    /// The repository root: the nearest folder above this file holding Package.swift (the
    /// current directory if none is found, so a missing file fails its test, never the run).
    public static let repo: URL = {
        var u = URL(fileURLWithPath: #filePath)
        while u.path != "/" {
            u.deleteLastPathComponent()
            if FileManager.default.fileExists(atPath: u.appendingPathComponent("Package.swift").path) { return u }
        }
        return URL(fileURLWithPath: FileManager.default.currentDirectoryPath)
    }()

    /// Where each dataset of the team's shared data (`shared/data`, named as there) is vendored in
    /// the repository: copies, so a clone without `../shared` runs every test. They are
    /// byte-identical but for two names restored in populated_places.geojson (samples/README.md).
    /// samples/README.md and Tests/Data/README.md give their sources and licences.
    public static let vendored: [String: String] = [
        "world_cities_15000.csv": "samples/world_cities.csv",
        "populated_places_110m.geojson": "samples/populated_places.geojson",
        "airports_us.csv": "samples/airports_us.csv",
        "tracks.csv": "samples/tracks.csv",
        "ne_110m_admin_0_countries.geojson": "samples/ne_110m_admin_0_countries.geojson",
        "ne_110m_coastline.geojson": "Tests/Data/ne_110m_coastline.geojson",
        "ne_110m_admin_0_boundary_lines_land.geojson": "Tests/Data/ne_110m_admin_0_boundary_lines_land.geojson",
    ]

    /// The path of a shared dataset's vendored copy (`shared("world_cities_15000.csv")`); a name
    /// not vendored gives a path under Tests/Data that does not exist, so the reader's error names it.
    public static func shared(_ name: String) -> String { repoFile(vendored[name] ?? "Tests/Data/" + name) }
    public static func repoFile(_ name: String) -> String { repo.appendingPathComponent(name).path }
}

/// The core's SplitMix64 with a fixed seed, as a RandomNumberGenerator: the same "random" data on
/// every run.
public struct SeededRandom: RandomNumberGenerator {
    private var generator: SplitMix64
    public init(seed: UInt64) { generator = SplitMix64(state: seed) }
    public mutating func next() -> UInt64 { generator.next() }
}
