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
        server.options(change)
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
        // 2 requests a tile (at 0 s and 1 s; a third would end past 1.5 s), 1 when the machine is
        // so loaded that the first answer took over half a second; never the 4 the count allows.
        #expect((tiles...2 * tiles).contains(try server.requests("ra1")))
        #expect(b.warnings.count == 1 && b.warnings[0].contains(": still unavailable after "), "\(b.warnings)")
        #expect(b.warnings[0].hasSuffix("; waiting again would take it past the 1.5 s maprender waits for a tile)"), "\(b.warnings)")
        #expect(Date().timeIntervalSince(started) < 4)
    }
}

/// Issue 45: credentials in tile URLs never reach a message.
@Suite struct CredentialRedactionTests {
    @Test func keysTokensAndUserinfoAreRedacted() {
        #expect(Redaction.redact("https://tiles.example/{z}/{x}/{y}.png?key=SECRET&style=dark")
                == "https://tiles.example/{z}/{x}/{y}.png?key=REDACTED&style=dark")
        #expect(Redaction.redact("tiles: 1 failed (first: HTTP://u:p%40ss@h.example:8080/a.pmtiles?access_token=abc&Token=x&apikey=k#f: HTTP 500)")
                == "tiles: 1 failed (first: HTTP://REDACTED@h.example:8080/a.pmtiles?access_token=REDACTED&Token=REDACTED&apikey=REDACTED#f: HTTP 500)")
        #expect(Redaction.redact("no url here, http is a word; ftp://u:p@x") == "no url here, http is a word; ftp://u:p@x")
        #expect(Redaction.redact("'https://a@b/c?keys=1&key' and https://x/y") == "'https://REDACTED@b/c?keys=1&key' and https://x/y")
    }

    @Test func aTileURLsAPIKeyIsNotPrintedInWarnings() throws {
        // Port 1: nothing listens, every tile fails at once with its URL in the message.
        var o = TileOptions()
        o.cacheDirectory = FileManager.default.temporaryDirectory.appendingPathComponent("redact-\(UUID())").path
        o.retries = 0
        defer { try? FileManager.default.removeItem(atPath: o.cacheDirectory!) }
        let view = ViewFitter.center(lat: 30, lon: -50, zoom: 1, width: 300, height: 300)
        let b = try TileService(options: o).basemap(viewport: view, scale: 1, sources: [
            "http://me:hunter2@127.0.0.1:1/{z}/{x}/{y}.png?api_key=SECRET&lang=en"])
        #expect(b.warnings.count == 1)
        #expect(!b.warnings[0].contains("SECRET") && !b.warnings[0].contains("hunter2"), "\(b.warnings)")
        #expect(b.warnings[0].contains("(first: http://REDACTED@127.0.0.1:1/2/"), "\(b.warnings)")
        #expect(b.warnings[0].contains(".png?api_key=REDACTED&lang=en: "), "\(b.warnings)")
        #expect(b.problem == b.warnings[0])
        #expect(throws: MapRenderError(.usage, "--tiles: URL template 'https://h.example/tiles?key=REDACTED' has no {z}")) {
            try TileService(options: o).basemap(viewport: view, scale: 1, sources: ["https://h.example/tiles?key=SECRET"])
        }
    }
}

/// Issue 45: tile URLs checked when parsed, not at every tile.
@Suite struct TileURLValidationTests {
    func error(_ text: String) -> String? {
        do { _ = try TileSourceSpec.parse(text, options: TileOptions()); return nil }
        catch let e as MapRenderError { return e.message }
        catch { return "\(error)" }
    }

    @Test func port99999IsRefusedAtParseTime() {
        #expect(error("http://127.0.0.1:99999/{z}/{x}/{y}.png") == "--tiles: URL 'http://127.0.0.1:99999/{z}/{x}/{y}.png': port 99999 is not in 1...65535")
        #expect(error("https://h.example:0/x.pmtiles")?.hasPrefix("--tiles: URL 'https://h.example:0/x.pmtiles'") == true)
    }

    @Test func anUpperCaseSchemeIsRequestedInLowerCase() throws {
        let spec = try TileSourceSpec.parse("HTTP://h.example/{z}/{x}/{y}.png", options: TileOptions())
        guard case .template(let t) = spec.kind else { Issue.record("not a template"); return }
        #expect(t.url(TileID(z: 1, x: 0, y: 1), retina: false) == "http://h.example/1/0/1.png")
        let pm = try TileSourceSpec.parse("HTTPS://h.example/a.pmtiles", options: TileOptions())
        #expect(pm.kind == .pmtilesURL("https://h.example/a.pmtiles"))
    }

    @Test func anUnknownPlaceholderOrNoHostIsRefused() {
        #expect(error("https://h.example/{z}/{x}/{y}.png?k={apikey}")
                == "--tiles: URL template 'https://h.example/{z}/{x}/{y}.png?k={apikey}' has an unknown placeholder {apikey} (known: {z} {x} {y} {-y} {s} {r})")
        #expect(error("https:///{z}/{x}/{y}.png") == "--tiles: URL 'https:///{z}/{x}/{y}.png' has no host")
    }
}

/// Issue 45: servers that hang, drip or stall, and bodies that never end, against the loopback
/// server: each request and each map bounded in time, each body in size, compressed or not.
// Serialized: its bounds are in seconds, and its tests' loopback servers compete for two cores.
@Suite(.serialized) struct HostileTileDeadlineTests {
    let view = ViewFitter.center(lat: 30, lon: -50, zoom: 1, width: 300, height: 300)
    var tiles: Int { Set(TileCoverage.cover(view, zoom: 2).placements.map(\.tile)).count }

    func options(_ server: TileServer, _ change: (inout TileOptions) -> Void = { _ in }) -> TileOptions {
        server.options(change)
    }

    @Test func aServerThatNeverAnswersFailsEachRequestAtTheConnectTimeout() throws {
        let server = try TileServer()
        let started = Date()
        let b = try TileService(options: options(server) { $0.connectTimeout = 0.4; $0.retries = 1 })
            .basemap(viewport: view, scale: 1, sources: [server.url("hang")])
        #expect(b.stats.failed == tiles)
        #expect(b.warnings.count == 1 && b.warnings[0].contains(": timed out after 2 attempts (no answer within 0.4 s))"), "\(b.warnings)")
        // 2 attempts of 0.4 s and a 0.1 s backoff, tiles 2 at a time (2 connections per host):
        // about 1 s per pair; twice that and more allowed for a loaded machine (the attack took
        // 15 s x 4 attempts per tile).
        #expect(Date().timeIntervalSince(started) < 2 * Double(tiles) + 8)
    }

    @Test func aServerThatStopsSendingFailsAtTheStallTimeoutNotTheTotal() throws {
        let server = try TileServer()
        let started = Date()
        let b = try TileService(options: options(server) { $0.stallTimeout = 0.3; $0.retries = 0 })
            .basemap(viewport: view, scale: 1, sources: [server.url("stall")])
        #expect(b.stats.failed == tiles)
        #expect(b.warnings.count == 1 && b.warnings[0].contains(": timed out after 1 attempt (no byte for 0.3 s))"), "\(b.warnings)")
        // Ended by the stall timeouts, not the 20 s map deadline (about 1 s alone; longer when
        // tests run together: cancelled transfers hold libcurl's connections for a while).
        #expect(Date().timeIntervalSince(started) < 19)
    }

    @Test func aDripServerIsCutOffByTheMapDeadline() throws {
        // A byte every 0.5 s never trips the stall timeout; the 1.5 s --tiles-timeout ends the map.
        let server = try TileServer()
        let started = Date()
        let b = try TileService(options: options(server) { $0.mapTimeout = 1.5 })
            .basemap(viewport: view, scale: 1, sources: [server.url("drip")])
        let took = Date().timeIntervalSince(started)
        #expect(took >= 1.4 && took < 2.5, "took \(took) s")
        #expect(b.stats.failed == tiles && b.marks.isEmpty)
        #expect(b.warnings.count == 2, "\(b.warnings)")
        #expect(b.warnings[0] == "tiles: \(tiles) of \(tiles) not fetched within the 1.5 s --tiles-timeout; the map is drawn without them")
        #expect(b.warnings[1].hasPrefix("tiles: 0 missing, \(tiles) failed of \(tiles) (first: http://127.0.0.1:"), "\(b.warnings)")
        #expect(b.warnings[1].hasSuffix(": not fetched within the 1.5 s --tiles-timeout)"), "\(b.warnings)")
    }

    @Test func theMapIsDrawnWithTheTilesThatArrivedBeforeTheDeadline() throws {
        let server = try TileServer()
        // The first source's tiles are in the disk cache (fetched first with the default deadline,
        // so the machine's load cannot delay them past 1 s); the second's never come.
        _ = try TileService(options: options(server)).basemap(viewport: view, scale: 1, sources: [server.url("ok")])
        let b = try TileService(options: options(server) { $0.mapTimeout = 1 }).basemap(viewport: view, scale: 1, sources: [server.url("ok"), server.url("hang", host: "localhost")])
        #expect(b.stats.fromCache == tiles && b.stats.failed == tiles)
        #expect(b.marks.count >= tiles)
        #expect(b.warnings.first == "tiles: \(tiles) of \(2 * tiles) not fetched within the 1 s --tiles-timeout; the map is drawn without them")
    }

    @Test func aContentLengthOf2GBIsRefusedBeforeTheBody() throws {
        let server = try TileServer()
        let b = try TileService(options: options(server)).basemap(viewport: view, scale: 1, sources: [server.url("huge")])
        #expect(b.stats.failed == tiles)
        #expect(b.warnings.contains { $0.hasSuffix(".png: Content-Length 2147483648 is larger than the 16 MiB maprender takes for a tile)") }, "\(b.warnings)")
        let kept = (try? FileManager.default.contentsOfDirectory(atPath: server.cache + "/127.0.0.1")) ?? []
        #expect(kept.isEmpty)
    }

    @Test(.disabled("issue 45, open: FoundationNetworking hands body pieces to the delegate without backpressure; the request fails at the limit but RSS still grows while the queued pieces drain"))
    func anEndlessBodyIsStoppedAtTheLimit() throws {
        let server = try TileServer()
        let peak = PeakMemory()
        let b = try TileService(options: options(server)).basemap(viewport: view, scale: 1, sources: [server.url("endless")])
        #expect(b.stats.failed == tiles)
        #expect(b.warnings.count == 1 && b.warnings[0].hasSuffix(".png: the body is larger than the 16 MiB maprender takes for a tile)"), "\(b.warnings)")
        #expect(peak.growthMB() < 300, "peak RSS grew \(peak.growthMB()) MB")
    }

    @Test(.disabled("issue 45, open: as anEndlessBodyIsStoppedAtTheLimit, and libcurl inflates before the delegate counts"))
    func aGzipBombIsStoppedAtTheLimitAfterDecompression() throws {
        // 6.7 MB on the wire (under the limit, so Content-Length passes), 1 GiB inflated.
        let server = try TileServer()
        let peak = PeakMemory()
        let b = try TileService(options: options(server)).basemap(viewport: view, scale: 1, sources: [server.url("gzipbomb")])
        #expect(b.stats.failed == tiles)
        #expect(b.warnings.count == 1 && b.warnings[0].hasSuffix(".png: the body is larger than the 16 MiB maprender takes for a tile)"), "\(b.warnings)")
        #expect(peak.growthMB() < 300, "peak RSS grew \(peak.growthMB()) MB")
    }
}

/// The process's peak resident size, reset at `init` (Linux: `5` into /proc/self/clear_refs).
struct PeakMemory {
    let base: Int
    init() {
        try? "5".write(toFile: "/proc/self/clear_refs", atomically: false, encoding: .utf8)
        base = Self.mb("VmHWM")
    }
    static func mb(_ field: String) -> Int {
        let status = (try? String(contentsOfFile: "/proc/self/status", encoding: .utf8)) ?? ""
        for line in status.split(separator: "\n") where line.hasPrefix(field + ":") {
            return (Int(line.split(separator: " ", omittingEmptySubsequences: true).dropFirst().first ?? "0") ?? 0) / 1024
        }
        return 0
    }
    /// How far the peak rose above the resident size at `init`, MB.
    func growthMB() -> Int { Self.mb("VmHWM") - base }
}

/// Issue 45: the tile cache bounded, swept and said to be unusable once.
@Suite struct HostileTileCacheTests {
    let view = ViewFitter.center(lat: 30, lon: -50, zoom: 1, width: 300, height: 300)

    func tempDir() throws -> String {
        let d = FileManager.default.temporaryDirectory.appendingPathComponent("tilecache-\(UUID())").path
        try FileManager.default.createDirectory(atPath: d, withIntermediateDirectories: true)
        return d
    }

    @Test func aTileCacheThatIsAFileIsSaidOnceAndTilesStillDrawn() throws {
        let server = try TileServer()
        let d = try tempDir(); defer { try? FileManager.default.removeItem(atPath: d) }
        let file = d + "/cache"
        try Data("not a folder".utf8).write(to: URL(fileURLWithPath: file))
        var o = TileOptions()
        o.cacheDirectory = file
        let service = TileService(options: o)
        let first = try service.basemap(viewport: view, scale: 1, sources: [server.url("ok")])
        #expect(first.stats.failed == 0 && first.stats.fetched > 0)
        #expect(first.warnings == ["tiles: tile cache '\(file)' cannot be used (it is not a folder): tiles are fetched again on every run"])
        let other = ViewFitter.center(lat: -30, lon: 100, zoom: 1, width: 300, height: 300)
        let second = try service.basemap(viewport: other, scale: 1, sources: [server.url("ok")])
        #expect(second.warnings.isEmpty, "\(second.warnings)")
    }

    @Test func temporaryFilesOfAKilledRunAreSweptAtTheFirstWrite() throws {
        let server = try TileServer()
        let host = server.cache + "/127.0.0.1"
        try FileManager.default.createDirectory(atPath: host, withIntermediateDirectories: true)
        // A writer that is gone (no such process id), and one of this process still writing.
        let dead = host + "/abc.tile.2147483646.77.tmp"
        let live = host + "/def.tile.\(getpid()).78.tmp"
        try Data(count: 4096).write(to: URL(fileURLWithPath: dead))
        try Data(count: 4096).write(to: URL(fileURLWithPath: live))
        var o = TileOptions()
        o.cacheDirectory = server.cache
        _ = try TileService(options: o).basemap(viewport: view, scale: 1, sources: [server.url("ok")])
        #expect(!FileManager.default.fileExists(atPath: dead))
        #expect(FileManager.default.fileExists(atPath: live))
    }

    @Test func theCacheIsBoundedLeastRecentlyUsedFirst() throws {
        let d = try tempDir(); defer { try? FileManager.default.removeItem(atPath: d) }
        let cache = TileDiskCache(directory: d, maxBytes: 3300)
        let body = Data(count: 1000)
        func entry(_ k: String) -> TileDiskCache.Entry { .init(key: k, expires: 0, etag: nil, lastModified: nil) }
        for k in ["a", "b", "c"] {
            cache.write(entry(k), data: body, host: "h")
            Thread.sleep(forTimeInterval: 0.02)
        }
        #expect(cache.read(key: "a", host: "h") != nil)  // used: now the most recent
        Thread.sleep(forTimeInterval: 0.02)
        cache.write(entry("d"), data: body, host: "h")
        #expect(cache.read(key: "b", host: "h") == nil)
        #expect(["a", "c", "d"].allSatisfy { cache.read(key: $0, host: "h") != nil })
    }

    @Test func aCacheEntryPastTheLimitIsNeitherWrittenNorRead() throws {
        let d = try tempDir(); defer { try? FileManager.default.removeItem(atPath: d) }
        let cache = TileDiskCache(directory: d)
        let e = TileDiskCache.Entry(key: "k", expires: 0, etag: nil, lastModified: nil)
        cache.write(e, data: Data(count: TileDiskCache.maxEntryBytes), host: "h")
        #expect(!FileManager.default.fileExists(atPath: cache.path(for: "k", host: "h")))
        // A file of another writer past the limit (a shared folder) is not read.
        let p = cache.path(for: "k", host: "h")
        try FileManager.default.createDirectory(atPath: d + "/h", withIntermediateDirectories: true)
        var all = try JSONEncoder().encode(e); all.append(0x0A); all.append(Data(count: TileDiskCache.maxEntryBytes))
        try all.write(to: URL(fileURLWithPath: p))
        #expect(cache.read(key: "k", host: "h") == nil)
    }
}
