import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
import MapRender
import MapRenderTiles
import TestSupport

/// The loopback tile server (Fixtures/tile_server.py), one per test, stopped on deinit.
final class TileServer {
    let process = Process()
    let port: Int
    let cache: String

    init() throws {
        guard let p = try PythonServer.start(process, arguments: [TileFixtures.path("tile_server.py")]) else {
            throw CocoaError(.fileReadUnknown)
        }
        port = p
        cache = FileManager.default.temporaryDirectory.appendingPathComponent("maprender-tilecache-\(UUID().uuidString)").path
    }

    deinit {
        // SIGKILL: the test runner's threads block SIGTERM, and a child inherits that mask.
        kill(process.processIdentifier, SIGKILL)
        process.waitUntilExit()
        try? FileManager.default.removeItem(atPath: cache)
    }

    /// A URL template of `mode`; `host` "localhost" reaches the same server as another host.
    func url(_ mode: String, host: String = "127.0.0.1") -> String { "http://\(host):\(port)/\(mode)/{z}/{x}/{y}.png" }

    struct Stats: Decodable {
        var counts: [String: Int]; var maxInFlight: Int; var agents: [String]
        /// Every request in arrival order: Host header, path.
        var log: [[String]]
    }

    func stats() throws -> Stats {
        let done = DispatchSemaphore(value: 0)
        nonisolated(unsafe) var body = Data()
        URLSession.shared.dataTask(with: URL(string: "http://127.0.0.1:\(port)/stats")!) { d, _, _ in
            body = d ?? Data(); done.signal()
        }.resume()
        done.wait()
        return try JSONDecoder().decode(Stats.self, from: body)
    }

    func requests(_ mode: String) throws -> Int {
        try stats().counts.filter { $0.key.hasPrefix("/\(mode)/") }.values.reduce(0, +)
    }
}

extension TileServer {
    /// Tile options on this server's cache, with short retry backoffs (0.1 s) for the tests.
    func options(_ change: (inout TileOptions) -> Void = { _ in }) -> TileOptions {
        var o = TileOptions()
        o.cacheDirectory = cache
        o.product = MapRenderVersion.userAgent
        o.retryBase = 0.1
        change(&o)
        return o
    }
}
