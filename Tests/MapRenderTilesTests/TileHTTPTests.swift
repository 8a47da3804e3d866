import Foundation
import Testing
import TestSupport
@testable import MapRenderCore
@testable import MapRenderTiles
import MapRender

/// The HTTP path against a real server on 127.0.0.1 (Fixtures/tile_server.py). Each test has its
/// own server and cache folder. No timings are asserted: only counts, bytes and messages.
@Suite struct TileHTTPTests {
    /// A 300x300 view over the North Atlantic at zoom 1: tile zoom 2, a few tiles.
    let view = ViewFitter.center(lat: 30, lon: -50, zoom: 1, width: 300, height: 300)
    var expectedTiles: Int { Set(TileCoverage.cover(view, zoom: 2).placements.map(\.tile)).count }

    func options(_ server: TileServer, _ change: (inout TileOptions) -> Void = { _ in }) -> TileOptions {
        var o = TileOptions()
        o.cacheDirectory = server.cache
        o.userAgent = "(test; tiles@example.org)"
        o.product = MapRenderVersion.userAgent
        change(&o)
        return o
    }

    @Test func fetchesOnceThenServesFromTheDiskCache() throws {
        let server = try TileServer()
        let n = expectedTiles
        #expect(n >= 4)
        let first = try TileService(options: options(server)).basemap(viewport: view, scale: 1, sources: [server.url("ok")])
        #expect(first.stats == TileStats(requested: n, fromCache: 0, fetched: n, missing: 0, failed: 0))
        #expect(first.marks.count == TileCoverage.cover(view, zoom: 2).placements.count)
        // The bytes drawn are the fixture's.
        let m = first.marks[0]
        let t = TileCoverage.cover(view, zoom: 2).placements[0].tile
        #expect(m.image.rgba == (try TileService.decode(TileFixtures.folderBytes(t)!, name: "")).rgba)
        // A new process (new service), same cache folder: no requests.
        let second = try TileService(options: options(server)).basemap(viewport: view, scale: 1, sources: [server.url("ok")])
        #expect(second.stats == TileStats(requested: n, fromCache: n, fetched: 0, missing: 0, failed: 0))
        let stats = try server.stats()
        #expect(try server.requests("ok") == n)
        #expect(stats.agents == ["maprender/\(MapRenderVersion.current) (static map renderer) (test; tiles@example.org)"])
        // The same service again (a batch): from memory, still no requests.
        let service = TileService(options: options(server))
        _ = try service.basemap(viewport: view, scale: 1, sources: [server.url("ok")])
        #expect(service.requestsSent == 0)
    }

    @Test func keepsTilesSevenDaysWhenTheServerSaysNothing() throws {
        let server = try TileServer()
        _ = try TileService(options: options(server)).basemap(viewport: view, scale: 1, sources: [server.url("plain")])
        let cache = TileDiskCache(directory: server.cache)
        let url = server.url("plain").replacingOccurrences(of: "{z}/{x}/{y}", with: "2/1/1")
        let entry = try #require(cache.read(key: url, host: "127.0.0.1")).entry
        let days = (entry.expires - Date().timeIntervalSince1970) / 86400
        #expect(days > 6.99 && days <= 7)
        #expect(entry.etag == nil)
    }

    @Test func revalidatesWithIfNoneMatch() throws {
        let server = try TileServer()
        let n = expectedTiles
        _ = try TileService(options: options(server)).basemap(viewport: view, scale: 1, sources: [server.url("etag")])
        // no-cache: the next run asks again, with the ETag, and gets 304 for every tile.
        let again = try TileService(options: options(server)).basemap(viewport: view, scale: 1, sources: [server.url("etag")])
        #expect(again.stats.fromCache == n && again.stats.fetched == 0)
        #expect(again.marks.count == TileCoverage.cover(view, zoom: 2).placements.count)
        #expect(try server.stats().counts.filter { $0.key.hasPrefix("/etag/") }.values.allSatisfy { $0 == 2 })
    }

    @Test func missingTilesLeaveTheBackgroundAndOneWarning() throws {
        let server = try TileServer()
        let n = expectedTiles
        let b = try TileService(options: options(server)).basemap(viewport: view, scale: 1, sources: [server.url("missing")])
        #expect(b.stats == TileStats(requested: n, fromCache: 0, fetched: 0, missing: n, failed: 0))
        #expect(b.marks.isEmpty)
        #expect(b.warnings == ["tiles: \(n) missing, 0 failed of \(n)"])
    }

    @Test func retriesAfter429And5xx() throws {
        let server = try TileServer()
        let n = expectedTiles
        let svc = TileService(options: options(server))
        let a = try svc.basemap(viewport: view, scale: 1, sources: [server.url("flaky429"), server.url("flaky500")])
        #expect(a.stats.fetched == 2 * n && a.stats.failed == 0)
        let counts = try server.stats().counts
        #expect(counts.filter { $0.key.hasPrefix("/flaky429/") }.values.sorted() == Array(repeating: 2, count: n))
        #expect(counts.filter { $0.key.hasPrefix("/flaky500/") }.values.sorted() == Array(repeating: 3, count: n))
        // A server that stays down: given up after the retries, each tile a failure, one warning line.
        let down = try TileService(options: options(server) { $0.retries = 1 })
            .basemap(viewport: view, scale: 1, sources: [server.url("down")])
        #expect(down.stats.failed == n)
        #expect(try server.requests("down") == 2 * n)
        #expect(down.warnings.count == 1 && down.warnings[0].contains("HTTP 500 after 2 attempts"))
    }

    @Test func connectionCapPerHost() throws {
        let server = try TileServer()
        let wide = ViewFitter.center(lat: 0, lon: 0, zoom: 1.5, width: 900, height: 700)
        let one = try TileService(options: options(server) { $0.connectionsPerHost = 1 })
            .basemap(viewport: wide, scale: 1, sources: [server.url("hold")])
        #expect(one.stats.fetched >= 12)
        #expect(try server.stats().maxInFlight == 1)
    }

    @Test func connectionCapOfTwo() throws {
        let server = try TileServer()
        let wide = ViewFitter.center(lat: 0, lon: 0, zoom: 1.5, width: 900, height: 700)
        let two = try TileService(options: options(server)).basemap(viewport: wide, scale: 1, sources: [server.url("hold")])
        #expect(two.stats.fetched >= 12)
        #expect(try server.stats().maxInFlight <= 2)
    }

    @Test func timeoutFailsTheTileWithAClearMessage() throws {
        let server = try TileServer()
        let b = try TileService(options: options(server) { $0.timeout = 0.5 })
            .basemap(viewport: view, scale: 1, sources: [server.url("slow")])
        #expect(b.stats.failed == expectedTiles)
        #expect(b.warnings.count == 1 && b.warnings[0].contains("timed out"))
    }

    @Test func offlineUsesTheCacheOnly() throws {
        let server = try TileServer()
        let n = expectedTiles
        let cold = try TileService(options: options(server) { $0.offline = true })
            .basemap(viewport: view, scale: 1, sources: [server.url("ok")])
        #expect(cold.stats.failed == n)
        #expect(cold.warnings[0].contains("not in the tile cache (--offline)"))
        #expect(try server.requests("ok") == 0)
        _ = try TileService(options: options(server)).basemap(viewport: view, scale: 1, sources: [server.url("ok")])
        let warm = try TileService(options: options(server) { $0.offline = true })
            .basemap(viewport: view, scale: 1, sources: [server.url("ok")])
        #expect(warm.stats.fromCache == n)
        #expect(try server.requests("ok") == n)
    }

    @Test func brokenTileIsAWarningNotACrash() throws {
        let server = try TileServer()
        let b = try TileService(options: options(server)).basemap(viewport: view, scale: 1, sources: [server.url("bad")])
        #expect(b.stats.failed == expectedTiles && b.marks.isEmpty)
        #expect(b.warnings.count == 1)
        #expect(b.warnings[0].contains("not a readable image: not a PNG, JPEG or WebP image"))
    }

    @Test func pmtilesOverHTTPRanges() throws {
        let server = try TileServer()
        let url = "http://127.0.0.1:\(server.port)/ne.pmtiles"
        let b = try TileService(options: options(server)).basemap(viewport: view, scale: 1, sources: [url])
        #expect(b.stats.fetched == expectedTiles)
        #expect(b.attributions == ["Natural Earth (PMTiles)"])
        let local = try TileService(options: options(server))
            .basemap(viewport: view, scale: 1, sources: [TileFixtures.path("folder")])
        #expect(zip(b.marks, local.marks).allSatisfy { $0.image.rgba == $1.image.rgba && $0.rect == $1.rect })
        #expect(b.marks.count == local.marks.count)
    }

    @Test func concurrentMapsFetchEachTileOnce() throws {
        let server = try TileServer()
        let svc = TileService(options: options(server))
        let views = (0..<8).map { k in ViewFitter.center(lat: 30, lon: -50 + Double(k), zoom: 1, width: 300, height: 300) }
        let needed = Set(views.flatMap { v in TileCoverage.cover(v, zoom: 2).placements.map(\.tile) }).count
        DispatchQueue.concurrentPerform(iterations: views.count) { k in
            _ = try? svc.basemap(viewport: views[k], scale: 1, sources: [server.url("hold")])
        }
        #expect(try server.requests("hold") == needed)
        #expect(try server.stats().counts.values.allSatisfy { $0 == 1 })
    }
}
