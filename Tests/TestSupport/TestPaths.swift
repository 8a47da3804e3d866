import Foundation

/// Paths of the repository and of the team's shared data (`shared/` beside the clone), for every test target.
public enum TestPaths {
    /// The repository root: the nearest folder above this file holding Package.swift.
    public static let repo: URL = {
        var u = URL(fileURLWithPath: #filePath)
        while u.path != "/" {
            u.deleteLastPathComponent()
            if FileManager.default.fileExists(atPath: u.appendingPathComponent("Package.swift").path) { return u }
        }
        fatalError("repository root not found above \(#filePath)")
    }()
    public static let sharedData = repo.deletingLastPathComponent().appendingPathComponent("shared/data")
    public static func shared(_ name: String) -> String { sharedData.appendingPathComponent(name).path }
    public static func repoFile(_ name: String) -> String { repo.appendingPathComponent(name).path }
}

/// SplitMix64 with a fixed seed: the same "random" data on every run.
public struct SeededRandom: RandomNumberGenerator {
    private var state: UInt64
    public init(seed: UInt64) { state = seed }
    public mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }
}
