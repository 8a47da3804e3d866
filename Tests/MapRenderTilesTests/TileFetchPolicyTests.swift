import Foundation
import Testing
import TestSupport
@testable import MapRenderCore
@testable import MapRenderTiles
import MapRender

/// Retries, waits and memory of the tile stage, against the loopback server. No durations are
/// asserted: request counts, the order requests reached the server, bytes and messages.
@Suite struct TileFetchPolicyTests {
    /// A 300x300 view over the North Atlantic at zoom 1: tile zoom 2, a few tiles.
    let view = ViewFitter.center(lat: 30, lon: -50, zoom: 1, width: 300, height: 300)
    /// A wide view at tile zoom 3: more tiles (20+) than the stage has workers (16).
    let wide = ViewFitter.center(lat: 0, lon: 0, zoom: 1.5, width: 900, height: 700)
    func tileCount(_ v: Viewport, zoom: Int) -> Int { Set(TileCoverage.cover(v, zoom: zoom).placements.map(\.tile)).count }

    func options(_ server: TileServer, _ change: (inout TileOptions) -> Void = { _ in }) -> TileOptions {
        server.options(change)
    }

    // MARK: timeouts

    @Test func aTimedOutRequestIsRetried() throws {
        let server = try TileServer()
        let n = tileCount(view, zoom: 2)
        // The first request of each tile takes 3 s, past the 0.5 s timeout; the retry is answered.
        let b = try TileService(options: options(server) { $0.timeout = 0.5 })
            .basemap(viewport: view, scale: 1, sources: [server.url("slowonce")])
        #expect(b.stats == TileStats(requested: n, fromCache: 0, fetched: n, missing: 0, failed: 0))
        #expect(b.warnings.isEmpty)
        let counts = try server.stats().counts.filter { $0.key.hasPrefix("/slowonce/") }
        #expect(counts.count == n && counts.values.allSatisfy { $0 == 2 }, "\((try? server.stats().log) ?? [])")
    }

    @Test func timeoutsAreRetriedABoundedNumberOfTimes() throws {
        let server = try TileServer()
        let n = tileCount(view, zoom: 2)
        let b = try TileService(options: options(server) { $0.timeout = 0.5; $0.retries = 1 })
            .basemap(viewport: view, scale: 1, sources: [server.url("slow")])
        #expect(b.stats.failed == n)
        #expect(try server.requests("slow") == 2 * n, "\((try? server.stats().log) ?? [])")
        #expect(b.warnings.count == 1 && b.warnings[0].contains("timed out after 2 attempts"))
    }

    // MARK: Retry-After

    @Test func aRetryAfterDoesNotHoldUpAnotherHost() throws {
        let server = try TileServer()
        let n = tileCount(view, zoom: 2)
        // One map, two sources on two hosts: the first answers 429 "Retry-After: 2" once per tile.
        let b = try TileService(options: options(server))
            .basemap(viewport: view, scale: 1, sources: [server.url("retry2"), server.url("ok", host: "localhost")])
        #expect(b.stats == TileStats(requested: 2 * n, fromCache: 0, fetched: 2 * n, missing: 0, failed: 0))
        let log = try server.stats().log
        let waited = log.enumerated().filter { $0.element[1].hasPrefix("/retry2/") }.map(\.offset)
        let other = log.enumerated().filter { $0.element[1].hasPrefix("/ok/") }.map(\.offset)
        #expect(waited.count == 2 * n && other.count == n)
        // Every request to the other host went out before the first retry of the waiting one.
        #expect(other.max()! < waited[n], "log: \(log)")
        #expect(log.filter { $0[1].hasPrefix("/ok/") }.allSatisfy { $0[0].hasPrefix("localhost:") })
    }

    @Test func aRetryAfterHoldsNoWorkerFromOtherMaps() throws {
        let server = try TileServer()
        let svc = TileService(options: options(server))
        let waiting = tileCount(wide, zoom: 3)
        #expect(waiting > 16)  // more tiles than workers: sleeping on them would take every worker
        // Map 1: every tile is told to wait 30 s. It is left running: the test does not wait for it.
        let started = Date()
        let url1 = server.url("retry30"), wide = self.wide  // not `server`: its deinit stops the server
        Thread.detachNewThread { _ = try? svc.basemap(viewport: wide, scale: 1, sources: [url1]) }
        // Once the server has answered map 1's first requests with 429 ...
        var polls = 0
        while try server.requests("retry30") < 2, polls < 3000 { Thread.sleep(forTimeInterval: 0.01); polls += 1 }
        Thread.sleep(forTimeInterval: 0.2)
        // ... map 2, on another host, is drawn in the meantime, not after map 1's 30 s: no worker
        // is asleep on map 1's wait. (The bound is a guard with a 30-fold margin, not a measurement:
        // drawing map 2 takes well under a second; waiting behind map 1 takes 30 s.)
        let second = try svc.basemap(viewport: view, scale: 1, sources: [server.url("ok", host: "localhost")])
        #expect(second.stats.fetched == tileCount(view, zoom: 2))
        #expect(Date().timeIntervalSince(started) < 25, "map 2 waited for map 1's Retry-After")
        // Map 1 has not retried yet, and its host got no request after the 429s but those already in flight.
        let log = try server.stats().log
        #expect(Set(log.filter { $0[1].hasPrefix("/retry30/") }.map { $0[1] }).count == log.filter { $0[1].hasPrefix("/retry30/") }.count)
    }

    @Test func aRetryAfterPastTheCapFailsAtOnce() throws {
        let server = try TileServer()
        let n = tileCount(view, zoom: 2)
        let b = try TileService(options: options(server))
            .basemap(viewport: view, scale: 1, sources: [server.url("longwait")])
        #expect(b.stats.failed == n)
        #expect(try server.requests("longwait") == n)  // not retried
        #expect(b.warnings.count == 1 && b.warnings[0].contains("HTTP 429 asking to wait 3600 s, more than the 60 s maprender waits"))
    }

    // MARK: PMTiles over HTTP: counts

    @Test func pmtilesOverHTTPCountsCacheHitsAsFromCache() throws {
        let server = try TileServer()
        let n = tileCount(view, zoom: 2)
        let url = "http://127.0.0.1:\(server.port)/ne.pmtiles"
        let cold = try TileService(options: options(server)).basemap(viewport: view, scale: 1, sources: [url])
        #expect(cold.stats == TileStats(requested: n, fromCache: 0, fetched: n, missing: 0, failed: 0))
        let sent = try server.stats().counts["/ne.pmtiles"] ?? 0
        // A new process on the same disk cache: every tile (and directory) from the cache.
        let warm = try TileService(options: options(server)).basemap(viewport: view, scale: 1, sources: [url])
        #expect(warm.stats == TileStats(requested: n, fromCache: n, fetched: 0, missing: 0, failed: 0))
        #expect(try server.stats().counts["/ne.pmtiles"] == sent)
        #expect(zip(cold.marks, warm.marks).allSatisfy { $0.image.rgba == $1.image.rgba })
        // Tile data the server fails to give: failed, after the directories were read.
        let down = try TileService(options: options(server) { $0.retries = 0 })
            .basemap(viewport: view, scale: 1, sources: ["http://127.0.0.1:\(server.port)/datadown/ne.pmtiles"])
        #expect(down.stats == TileStats(requested: n, fromCache: 0, fetched: 0, missing: 0, failed: n))
        #expect(down.warnings.count == 1 && down.warnings[0].contains("HTTP 500"))
    }

    // MARK: memory of decoded tiles

    @Test func decodedTilesStayWithinTheMemoryLimit() throws {
        let server = try TileServer()
        let tileBytes = 256 * 256 * 4 + 128
        let svc = TileService(options: options(server), memoryLimit: 5 * tileBytes)
        // Zoom 2 views (tile zoom 3) spread over the world.
        let views = (0..<6).map { k in ViewFitter.center(lat: 40 - 16 * Double(k), lon: -150 + 60 * Double(k), zoom: 2, width: 300, height: 300) }
        let distinct = Set(views.flatMap { v in TileCoverage.cover(v, zoom: 3).placements.map(\.tile) }).count
        #expect(distinct > 10)
        for v in views {
            let b = try svc.basemap(viewport: v, scale: 1, sources: [server.url("ok")])
            #expect(b.stats.failed == 0 && b.stats.missing == 0)
            #expect(svc.memoryBytes <= 5 * tileBytes)
        }
        // The first view's tiles were pushed out of memory: drawn again from the disk cache,
        // without a request, and the same pixels.
        let again = try svc.basemap(viewport: views[0], scale: 1, sources: [server.url("ok")])
        #expect(again.stats.fromCache == again.stats.requested)
        #expect(try server.requests("ok") == distinct)
        #expect(svc.memoryBytes <= 5 * tileBytes)
        let fresh = try TileService(options: options(server)).basemap(viewport: views[0], scale: 1, sources: [server.url("ok")])
        #expect(zip(again.marks, fresh.marks).allSatisfy { $0.image.rgba == $1.image.rgba && $0.rect == $1.rect })
    }

    @Test func memoryDropsTheLeastRecentlyUsedFirst() {
        let m = TileMemory<Int>(limit: 30)
        m.insert(1, for: "a", cost: 10)
        m.insert(2, for: "b", cost: 10)
        m.insert(3, for: "c", cost: 10)
        #expect(m.value(for: "a") == 1)  // a is now the most recent
        m.insert(4, for: "d", cost: 10)  // b goes
        #expect(m.value(for: "b") == nil)
        #expect(m.value(for: "a") == 1 && m.value(for: "c") == 3 && m.value(for: "d") == 4)
        #expect(m.bytes == 30 && m.count == 3)
        m.insert(5, for: "e", cost: 25)  // room for it alone: the three others go
        #expect(m.count == 1 && m.value(for: "e") == 5 && m.bytes == 25)
        m.insert(6, for: "huge", cost: 31)  // larger than the limit: not kept, nothing else lost
        #expect(m.value(for: "huge") == nil && m.value(for: "e") == 5)
        m.insert(7, for: "e", cost: 5)  // replacing a key updates its cost
        #expect(m.bytes == 5 && m.value(for: "e") == 7)
    }
}
