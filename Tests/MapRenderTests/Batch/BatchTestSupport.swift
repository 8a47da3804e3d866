import TestSupport
import Foundation
@testable import MapRender

/// A fresh folder under the system's temporary folder, removed by `remove()`.
struct BatchTempDir {
    let url: URL

    init() throws {
        url = FileManager.default.temporaryDirectory.appendingPathComponent("maprender-batch-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
    }

    var path: String { url.path }

    func file(_ name: String) -> String { url.appendingPathComponent(name).path }

    @discardableResult
    func write(_ name: String, _ text: String) throws -> String {
        let p = file(name)
        try FileManager.default.createDirectory(at: URL(fileURLWithPath: p).deletingLastPathComponent(),
                                                withIntermediateDirectories: true)
        try Data(text.utf8).write(to: URL(fileURLWithPath: p))
        return p
    }

    func remove() { try? FileManager.default.removeItem(at: url) }
}

enum BatchFixtures {
    static let cities = TestPaths.shared("world_cities_15000.csv")
    static let countries = TestPaths.repoFile("samples/ne_110m_admin_0_countries.geojson")

    /// The rows of world_cities_15000.csv of one country, as a CSV of their own: the input a
    /// single `render` would get for the same map (read by the CSV reader, not by the batch).
    static func countryCSV(_ code: String) throws -> String {
        let text = try String(contentsOfFile: cities, encoding: .utf8)
        var lines = text.split(separator: "\n", omittingEmptySubsequences: true)
        let header = lines.removeFirst()
        let row = try NSRegularExpression(pattern: "^[^,]*,(\"[^\"]*\"|[^,]*),\(code),")
        let kept = lines.filter { l in
            let s = String(l)
            return row.firstMatch(in: s, range: NSRange(s.startIndex..., in: s)) != nil
        }
        return ([header] + kept).joined(separator: "\n") + "\n"
    }

    /// A thread-safe counter of reads, for the parse-once tests.
    final class ReadCounter: @unchecked Sendable {
        private let lock = NSLock()
        private var paths: [String] = []

        func record(_ path: String) {
            lock.lock(); paths.append(path); lock.unlock()
        }

        var reads: [String] {
            lock.lock(); defer { lock.unlock() }
            return paths
        }
    }

    /// Collects progress events from worker threads.
    final class Events: @unchecked Sendable {
        private let lock = NSLock()
        private var list: [BatchEvent] = []

        func add(_ e: BatchEvent) {
            lock.lock(); list.append(e); lock.unlock()
        }

        var all: [BatchEvent] {
            lock.lock(); defer { lock.unlock() }
            return list
        }
    }
}
