import Foundation

/// Paths of the repository and of the team's shared data (`shared/` beside the clone).
enum TestPaths {
    static let repo: URL = {
        var u = URL(fileURLWithPath: #filePath)
        while u.path != "/" {
            u.deleteLastPathComponent()
            if FileManager.default.fileExists(atPath: u.appendingPathComponent("Package.swift").path) { return u }
        }
        fatalError("repository root not found above \(#filePath)")
    }()
    static let sharedData = repo.deletingLastPathComponent().appendingPathComponent("shared/data")
    static func shared(_ name: String) -> String { sharedData.appendingPathComponent(name).path }
    static func repoFile(_ name: String) -> String { repo.appendingPathComponent(name).path }
}
