import Foundation
import Hummingbird
import Logging
import ServiceLifecycle
import MapRender
@testable import MapRenderServe
import Testing
import TestSupport

/// Runs blocking work (a socket client) on a thread of its own: never on the cooperative pool,
/// whose few threads the server's own handlers need.
func blocking<T: Sendable>(_ body: @escaping @Sendable () throws -> T) async throws -> T {
    try await withCheckedThrowingContinuation { c in
        Thread.detachNewThread { c.resume(with: Result { try body() }) }
    }
}

/// A server on a free loopback port for one test, stopped after it.
final class TestServer: @unchecked Sendable {
    let port: Int
    let service: MapService
    private let task: Task<Void, Error>
    private let group: ServiceGroup

    private init(port: Int, service: MapService, task: Task<Void, Error>, group: ServiceGroup) {
        self.port = port; self.service = service; self.task = task; self.group = group
    }

    static func start(_ change: (inout ServeConfiguration) -> Void = { _ in }) async throws -> TestServer {
        var c = ServeConfiguration()
        c.port = 0
        c.jobs = 2
        c.accessLog = false
        c.timeout = 20
        change(&c)
        let service = try MapService(configuration: c)
        let (ports, continuation) = AsyncStream.makeStream(of: Int.self)
        var logger = Logger(label: "test-serve")
        logger.logLevel = .critical
        let app = MapServer.application(service, logger: logger) { continuation.yield($0) }
        let group = ServiceGroup(configuration: .init(services: [app], logger: logger))
        let task = Task { try await group.run() }
        var it = ports.makeAsyncIterator()
        guard let port = await it.next() else { throw LoopbackHTTP.Failure(description: "the server did not start") }
        return TestServer(port: port, service: service, task: task, group: group)
    }

    /// One request, off the cooperative pool (the client blocks on its socket).
    func get(_ path: String, headers: [String: String] = [:]) async throws -> LoopbackHTTP.Answer {
        let port = self.port
        return try await blocking { try LoopbackHTTP.request(port: port, path, headers: headers) }
    }

    func post(_ path: String, _ body: Data, headers: [String: String] = [:]) async throws -> LoopbackHTTP.Answer {
        let port = self.port
        return try await blocking { try LoopbackHTTP.request(port: port, "POST", path, body: body, headers: headers) }
    }

    /// Graceful shutdown, as SIGTERM: the requests in flight finish.
    func stop() async {
        await group.triggerGracefulShutdown()
        _ = try? await task.value
    }
}

@Suite(.serialized) struct ServerTests {
    static let paris = "pin-s-a+f00(2.35,48.85),pin-l-b+00f(2.29,48.86),pin-s(2.4,48.84)"

    @Test func healthAndUnknownEndpoints() async throws {
        let s = try await TestServer.start()
        let h = try await s.get("/health")
        #expect(h.status == 200 && h.headers["content-type"] == "application/json")
        #expect(h.text.contains("\"status\":\"ok\""))
        let n = try await s.get("/nowhere")
        #expect(n.status == 404)
        #expect(n.error?.hasPrefix("no such endpoint: GET /nowhere") == true)
        await s.stop()
    }

    @Test func staticMapWithPinsIsAPNGOfTheSize() async throws {
        let s = try await TestServer.start()
        let a = try await s.get("/static/\(Self.paris)/2.33,48.85,11/300x200.png")
        #expect(a.status == 200, "\(a.text)")
        #expect(a.headers["content-type"] == "image/png")
        #expect(LoopbackHTTP.pngSize(a.body).map { [$0.0, $0.1] } == [300, 200])
        let hi = try await s.get("/static/\(Self.paris)/2.33,48.85,11/300x200@2x")
        #expect(LoopbackHTTP.pngSize(hi.body).map { [$0.0, $0.1] } == [600, 400])
        let svg = try await s.get("/static/\(Self.paris)/auto/300x200.svg")
        #expect(svg.status == 200 && svg.headers["content-type"] == "image/svg+xml" && svg.text.contains("<svg"))
        let pdf = try await s.get("/static/\(Self.paris)/[2.2,48.8,2.5,48.9]/300x200.pdf")
        #expect(pdf.status == 200 && pdf.body.prefix(5) == Data("%PDF-".utf8))
        // The basemap alone, as the Mapbox API allows.
        let bare = try await s.get("/static/0,20,1/200x100")
        #expect(bare.status == 200 && LoopbackHTTP.pngSize(bare.body) != nil, "\(bare.text)")
        await s.stop()
    }

    /// Real URLs of the Mapbox Static Images API's documentation, with our own coordinates
    /// and a made-up token: a client written against that API gets maps.
    @Test func mapboxDocumentationURLs() async throws {
        let s = try await TestServer.start()
        let urls: [(String, (Int, Int))] = [
            ("/styles/v1/mapbox/streets-v12/static/pin-s-l+000(4.8357,45.764)/4.8357,45.764,14/500x300?access_token=pk.test", (500, 300)),
            ("/styles/v1/mapbox/light-v11/static/pin-s+555555(13.38,52.51),pin-s+555555(13.42,52.52)/13.40,52.515,12,0/300x200@2x?access_token=pk.test", (600, 400)),
            ("/styles/v1/mapbox/streets-v12/static/geojson(%7B%22type%22%3A%22Point%22%2C%22coordinates%22%3A%5B-0.1276%2C51.5072%5D%7D)/-0.1276,51.5072,12/500x300", (500, 300)),
            ("/styles/v1/mapbox/streets-v12/static/path-5+f44-0.5(_p~iF~ps%7CU_ulLnnqC_mqNvxq%60%40)/auto/500x300", (500, 300)),
            ("/styles/v1/mapbox/streets-v12/static/[-77.043686,38.892035,-77.028923,38.904192]/400x400", (400, 400)),
            ("/styles/v1/mapbox/satellite-v9/static/-3.70,40.42,10,0,0/400x300?logo=false", (400, 300)),
        ]
        for (url, size) in urls {
            let a = try await s.get(url)
            #expect(a.status == 200, "\(url): \(a.text)")
            #expect(LoopbackHTTP.pngSize(a.body).map { [$0.0, $0.1] } == [size.0, size.1], "\(url)")
        }
        await s.stop()
    }

    @Test func badRequestsAreJSONWithTheTablesMessages() async throws {
        let s = try await TestServer.start { $0.styles = ["plain": TestPaths.repoFile("styles/default.json")] }
        func error(_ path: String) async throws -> (Int, String) {
            let a = try await s.get(path)
            #expect(a.headers["content-type"] == "application/json", "\(path)")
            return (a.status, a.error ?? "(no error: \(a.text.prefix(100)))")
        }
        // The same bad value gives the command line's message after the name.
        let cli = { (args: [(String, String)]) -> String in
            do {
                _ = try RenderOptionTable.request(commandLine: args.map { ($0.0, OptionValue(word: $0.1)) })
                return "(none)"
            } catch { return (error as! MapRenderError).message }
        }
        var e = try await error("/static/pin-s(1,2)/1,2,3/300x200?cluster-radius=abc")
        #expect(e.0 == 400 && "--" + e.1 == cli([("cluster-radius", "abc")]))
        e = try await error("/static/pin-s(1,2)/1,2,30/300x200")
        #expect(e.0 == 400 && "--" + e.1 == cli([("zoom", "30")]), "\(e.1)")
        e = try await error("/static/pin-s(1,2)/1,2,3/0x200")
        #expect(e.0 == 400 && "--" + e.1 == cli([("size", "0x200")]), "\(e.1)")
        e = try await error("/static/pin-s(1,2)/1,2,3/300x200?cluster=maybe")
        #expect(e == (400, "cluster: expected true or false, got \"maybe\""))
        e = try await error("/static/pin-s(1,2)/1,2,3/300x200?sise=3")
        #expect(e == (400, "sise: unknown option; did you mean 'size'?"))
        e = try await error("/static/pin-x(1,2)/1,2,3/300x200")
        #expect(e == (400, "overlay 1 (pin-x(1,2)): unknown overlay 'pin-x': expected pin-s, pin-l, path, geojson or url"))
        // Files on the server are never named by a request.
        e = try await error("/static/pin-s(1,2)/1,2,3/300x200?basemap=/etc/passwd")
        #expect(e == (400, "basemap: names a file or folder on the server, which a request cannot give"))
        e = try await error("/static/pin-s(1,2)/1,2,3/300x200?style=..%2F..%2Fetc%2Fpasswd")
        #expect(e == (400, "style: expected one of the server's styles: plain, got \"../../etc/passwd\""))
        e = try await error("/static/pin-s(1,2)/1,2,3/300x200?max-memory=100000")
        #expect(e == (400, "max-memory: is a setting of the server (give it when starting maprender serve), not of a request"))
        e = try await error("/static/pin-s(1,2)/1,2,3/300x200?tile-cache=/tmp")
        #expect(e.0 == 400 && e.1.hasPrefix("tile-cache: names a file"))
        e = try await error("/maps/..%2F..%2Fetc%2Fpasswd/static/auto/300x200")
        #expect(e == (404, "no data set '..%2F..%2Fetc%2Fpasswd': this server has none (--data NAME=FILE)") || e.0 == 404, "\(e)")
        e = try await error("/static/1,2,3,30/300x200")
        #expect(e.0 == 400 && e.1.hasPrefix("bearing 30 is not supported"))
        e = try await error("/static/auto/300x200")
        #expect(e.0 == 400 && e.1.hasPrefix("auto fits the view to the overlays, but there are none"))
        // A 16384² map at scale 2: the table's bound, as on the command line.
        e = try await error("/static/pin-s(1,2)/1,2,3/16384x16384@2x")
        #expect(e == (400, "the image would be more than 32767 pixels per side (size times scale)"))
        // Within the table's bounds but past the server's.
        e = try await error("/static/pin-s(1,2)/1,2,3/5000x300")
        #expect(e == (400, "the image would be 5000x300 pixels (size times scale); this server draws at most 4096 per side (--max-size)"))
        // The named style works.
        let ok = try await s.get("/static/pin-s(1,2)/1,2,3/300x200?style=plain&cluster=false&scale-bar")
        #expect(ok.status == 200, "\(ok.text)")
        #expect(try await s.get("/health").status == 200)
        await s.stop()
    }

    @Test func etagsCacheAnd304() async throws {
        let s = try await TestServer.start()
        let url = "/static/\(Self.paris)/2.33,48.85,11/240x160.png?scale-bar&cluster=false"
        let first = try await s.get(url)
        #expect(first.status == 200 && first.headers["x-maprender-cache"] == "miss")
        let etag = try #require(first.headers["etag"])
        #expect(first.headers["cache-control"] == "public, max-age=86400")
        let second = try await s.get(url)
        #expect(second.status == 200 && second.headers["x-maprender-cache"] == "hit" && second.body == first.body)
        #expect(second.headers["etag"] == etag)
        // The same query in another order is the same map.
        let reordered = try await s.get("/static/\(Self.paris)/2.33,48.85,11/240x160.png?cluster=false&scale-bar&access_token=x")
        #expect(reordered.headers["etag"] == etag && reordered.headers["x-maprender-cache"] == "hit")
        let notModified = try await s.get(url, headers: ["If-None-Match": etag])
        #expect(notModified.status == 304 && notModified.body.isEmpty && notModified.headers["etag"] == etag)
        let other = try await s.get(url, headers: ["If-None-Match": "\"something-else\""])
        #expect(other.status == 200)
        let m = try await s.get("/metrics")
        #expect(m.status == 200)
        for line in ["maprender_cache_hits_total 3", "maprender_http_requests_total{endpoint=\"static\",status=\"304\"} 1",
                     "maprender_render_queue_length", "maprender_http_requests_in_flight", "maprender_render_stage_duration_seconds_bucket{stage=\"render\"",
                     "maprender_http_request_duration_seconds_bucket{endpoint=\"static\""] {
            #expect(m.text.contains(line), "\(line)")
        }
        await s.stop()
    }

    @Test func postedJobs() async throws {
        let cities = TestPaths.repoFile("samples/world_cities.csv")
        let s = try await TestServer.start { $0.data = ["cities": cities]; $0.maxBody = 4096 }
        let job: [String: Any] = [
            "size": "320x200", "label": "name", "cluster": false,
            "data": ["type": "FeatureCollection", "features": [
                ["type": "Feature", "properties": ["name": "Lyon"], "geometry": ["type": "Point", "coordinates": [4.8357, 45.764]]],
                ["type": "Feature", "properties": ["name": "Paris"], "geometry": ["type": "Point", "coordinates": [2.35, 48.85]]],
            ]],
        ]
        let a = try await s.post("/render", try JSONSerialization.data(withJSONObject: job))
        #expect(a.status == 200 && LoopbackHTTP.pngSize(a.body).map { [$0.0, $0.1] } == [320, 200], "\(a.text)")
        let csv = try await s.post("/render", Data(#"{"size": "200x100", "data": "lat,lon,name\n48.85,2.35,Paris\n", "format": "svg"}"#.utf8))
        #expect(csv.status == 200 && csv.text.contains("<svg"), "\(csv.text.prefix(200))")
        let named = try await s.post("/render", Data(#"{"size": "300x200", "input": "cities", "bbox": "-10,35,30,60"}"#.utf8))
        #expect(named.status == 200, "\(named.text)")
        let byPath = try await s.post("/maps/cities/render", Data(#"{"size": "300x200", "bbox": "-10,35,30,60"}"#.utf8))
        #expect(byPath.status == 200 && byPath.body == named.body)
        // A batch job's checks and messages, by key.
        var e = try await s.post("/render", Data(#"{"sise": "300x200", "input": "cities"}"#.utf8))
        #expect(e.status == 400 && e.error == "sise: unknown key; did you mean 'size'?")
        e = try await s.post("/render", Data(#"{"input": "/etc/passwd"}"#.utf8))
        #expect(e.status == 400 && e.error == "input: expected one of the server's data sets: cities, got \"/etc/passwd\"")
        e = try await s.post("/render", Data(#"{"size": "300x200", "input": "cities", "basemap": "/etc/passwd"}"#.utf8))
        #expect(e.status == 400 && e.error == "basemap: names a file or folder on the server, which a request cannot give")
        e = try await s.post("/render", Data(#"{"output": "/tmp/x.png", "input": "cities"}"#.utf8))
        #expect(e.status == 400 && e.error?.hasPrefix("output: unknown key") == true)
        e = try await s.post("/render", Data(#"{"size": "300x200"}"#.utf8))
        #expect(e.status == 400 && e.error?.contains("no data: give 'data'") == true)
        e = try await s.post("/render", Data("{not json".utf8))
        #expect(e.status == 400 && e.error?.hasPrefix("not valid JSON") == true, "\(e.text)")
        e = try await s.post("/render", Data(repeating: 0x20, count: 5000))
        #expect(e.status == 413 && e.error == "the body is 5000 bytes, more than 4096 (--max-body)")
        await s.stop()
    }

    @Test func limits() async throws {
        let s = try await TestServer.start { $0.maxURL = 4096; $0.maxPoints = 3 }
        // A 1 MB URL, past what the HTTP decoder holds (4 x --max-url, at least 256 KiB): still a
        // JSON 414 (HeadOverflowHandler), counted in /metrics, and the server answers after.
        let huge = "/static/" + String(repeating: "pin-s(1,2),", count: 95_000) + "pin-s(1,2)/auto/300x200"
        let port = s.port
        let long = try await blocking { try LoopbackHTTP.request(port: port, huge) }
        #expect(long.status == 414 && long.headers["content-type"] == "application/json", "\(long.status) \(long.text.prefix(200))")
        #expect(long.error == "the request line or a header is more than 262144 bytes, far past the 4096 bytes a URL may have (--max-url); POST /render takes large data", "\(long.text.prefix(300))")
        #expect(try await s.get("/metrics").text.contains(#"maprender_http_requests_total{endpoint="other",status="414"} 1"#))
        let mid = try await s.get("/static/" + String(repeating: "pin-s(1,2),", count: 400) + "pin-s(1,2)/auto/300x200")
        #expect(mid.status == 414 && mid.error?.hasPrefix("the URL is ") == true && mid.error?.contains("(--max-url)") == true)
        let many = try await s.get("/static/pin-s(1,2),pin-s(1,3),pin-s(1,4),pin-s(1,5)/auto/300x200")
        #expect(many.status == 413 && many.error == "the request holds 4 positions, more than 3 (--max-points)")
        #expect(try await s.get("/health").status == 200)
        await s.stop()
    }

    @Test func busyAndTimeout() async throws {
        // One render thread, no queue: of several renders at once, those that find the thread
        // taken are refused at once with 503 and Retry-After; the others are drawn.
        let s = try await TestServer.start { $0.jobs = 1; $0.queue = 0 }
        let port = s.port
        let answers = try await withThrowingTaskGroup(of: LoopbackHTTP.Answer.self) { g in
            for k in 0..<6 {
                g.addTask { try await blocking { try LoopbackHTTP.request(port: port, "/static/pin-s(\(k),1)/\(k),1,3/1500x1500") } }
            }
            return try await g.reduce(into: []) { $0.append($1) }
        }
        let codes = answers.map(\.status)
        #expect(codes.allSatisfy { $0 == 200 || $0 == 503 }, "\(codes)")
        #expect(codes.contains(200) && codes.contains(503), "\(codes)")
        let busy = try #require(answers.first { $0.status == 503 })
        #expect(busy.headers["retry-after"] == "1")
        #expect(busy.error?.hasPrefix("the server is busy: 1 renders running and 0 waiting (--queue)") == true)
        await s.stop()

        let t = try await TestServer.start { $0.timeout = 0.001 }
        let late = try await t.get("/static/pin-s(1,1)/1,1,3/1500x1500")
        #expect(late.status == 503 && late.error == "the map was not ready within 0.001 s (--timeout)")
        #expect(try await t.get("/health").status == 200)
        await t.stop()
    }

    @Test func slowClientsAreDropped() async throws {
        let s = try await TestServer.start { $0.readTimeout = 0.3 }
        let port = s.port
        let closed = try await blocking { () -> Bool in
            let fd = try LoopbackHTTP.connect(port: port, timeout: 5)
            defer { close(fd) }
            // Slowloris: a header line, then nothing more.
            LoopbackHTTP.send(fd, Data("GET /health HTTP/1.1\r\nHost: x\r\n".utf8))
            let start = Date()
            var b = [UInt8](repeating: 0, count: 16)
            let n = recv(fd, &b, 16, 0)
            return n == 0 && Date().timeIntervalSince(start) < 3
        }
        #expect(closed)
        #expect(try await s.get("/health").status == 200)
        await s.stop()
    }

    @Test func manyConnectionsAtOnce() async throws {
        let s = try await TestServer.start { $0.maxConnections = 64 }
        let port = s.port
        let ok = try await blocking { () -> Int in
            // 1,000 connections open at once, each then sends a request.
            // (Past --max-connections they wait in the backlog; each is closed once answered, as
            // clients do, which frees its place.)
            var fds: [Int32] = []
            for _ in 0..<1000 { fds.append(try LoopbackHTTP.connect(port: port, timeout: 20)) }
            for fd in fds { LoopbackHTTP.send(fd, Data("GET /health HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n".utf8)) }
            var ok = 0
            for fd in fds {
                if (try? LoopbackHTTP.read(fd))??.status == 200 { ok += 1 }
                close(fd)
            }
            return ok
        }
        #expect(ok == 1000)
        #expect(try await s.get("/health").status == 200)
        await s.stop()
    }
}
