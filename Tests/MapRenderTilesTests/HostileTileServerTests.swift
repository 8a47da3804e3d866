import Foundation
import Testing
import TestSupport
@testable import MapRenderCore
@testable import MapRenderTiles
import MapRender

/// Issue 45: hostile tile servers' Retry-After values, against the loopback server.
@Suite struct HostileTileServerTests {
    /// A 300x300 view at zoom 1: tile zoom 2, a few tiles.
    let view = ViewFitter.center(lat: 30, lon: -50, zoom: 1, width: 300, height: 300)
    var tiles: Int { Set(TileCoverage.cover(view, zoom: 2).placements.map(\.tile)).count }

    func options(_ server: TileServer, _ change: (inout TileOptions) -> Void = { _ in }) -> TileOptions {
        var o = TileOptions()
        o.cacheDirectory = server.cache
        o.product = MapRenderVersion.userAgent
        o.retryBase = 0.1
        change(&o)
        return o
    }

    @Test func retryAfterInfIsIgnoredAndTheBackoffUsed() throws {
        let server = try TileServer()
        let b = try TileService(options: options(server) { $0.retries = 1 })
            .basemap(viewport: view, scale: 1, sources: [server.url("rainf")])
        #expect(b.stats.failed == tiles)
        #expect(try server.requests("rainf") == 2 * tiles)
        #expect(b.warnings.count == 1 && b.warnings[0].contains("/rainf/2/") && b.warnings[0].contains(": HTTP 429 after 2 attempts)"), "\(b.warnings)")
    }

    @Test func retryAfter10To40FailsAtOnceWithoutATrap() throws {
        let server = try TileServer()
        let b = try TileService(options: options(server)).basemap(viewport: view, scale: 1, sources: [server.url("rahuge")])
        #expect(b.stats.failed == tiles)
        #expect(try server.requests("rahuge") == tiles)
        #expect(b.warnings.count == 1 && b.warnings[0].hasSuffix(": HTTP 429 asking to wait 1000000000 s, more than the 60 s maprender waits)"), "\(b.warnings)")
    }

    @Test func retriesAreBoundedInTotalTimeNotOnlyInCount() throws {
        let server = try TileServer()
        // Retry-After: 1 on every request; 3 retries allowed, but at most 1.5 s of waiting per tile.
        let started = Date()
        let b = try TileService(options: options(server) { $0.maxRetryWait = 1.5 })
            .basemap(viewport: view, scale: 1, sources: [server.url("ra1")])
        #expect(b.stats.failed == tiles)
        #expect(try server.requests("ra1") == 2 * tiles)
        #expect(b.warnings.count == 1 && b.warnings[0].contains(": still unavailable after 2 attempts; waiting again would take it past the 1.5 s maprender waits for a tile)"), "\(b.warnings)")
        #expect(Date().timeIntervalSince(started) < 4)
    }
}
