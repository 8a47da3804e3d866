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
