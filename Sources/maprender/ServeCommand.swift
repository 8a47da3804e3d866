import ArgumentParser
import Foundation
import MapRender
import MapRenderServe

struct Serve: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "serve",
        abstract: "Serve static maps over HTTP: Mapbox Static Images URLs and posted batch jobs.",
        discussion: """
        Endpoints:
          GET  /static/{overlays}/{lon},{lat},{zoom}/{w}x{h}[@2x][.png|.svg|.pdf]
               ({lon},{lat},{zoom} may be auto or [west,south,east,north]; overlays: \
        pin-s-a+f00(lon,lat), pin-l(lon,lat), path-5+f44-0.5(polyline), geojson(...), url-{URL}(lon,lat) with \
        --url-markers, comma-separated; \
        the query takes render options by their manifest names: ?cluster=false&label=name&style=dark)
          GET  /maps/{data}/static/...      the same over a data set named with --data
          GET  /styles/v1/{user}/{style}/static/...   Mapbox URLs as they are (the style by name if the server has it)
          POST /render, /maps/{data}/render  a batch job's keys as JSON, with "data" (GeoJSON or CSV) or "input" (a data set)
          GET  /health, /metrics            status as JSON; Prometheus text
        Refusals are JSON {"error": "..."}: 400 bad request, 404 unknown data set or endpoint, 413 body or points \
        over the limit, 414 URL too long, 503 busy (with Retry-After) or past --timeout; a url- marker's image \
        that cannot be had or used 502, its server too slow 504. Options that name files \
        on the server (style, tiles, input) take the names given here; the others (basemap, tile-cache) and the \
        server's own settings (max-memory, tile fetching) are refused in requests. SIGTERM stops accepting \
        connections and finishes the requests in flight. Exit codes: 0 after SIGTERM or SIGINT; 64 bad option; \
        66 a named file not readable; 69 the port cannot be bound; 78 bad --config file or style.
        """
    )

    @Option(help: ArgumentHelp("YAML file with the same keys as these options (host, port, data: {NAME: FILE}, ...); options given here win.", valueName: "file"))
    var config: String?
    @Option(help: ArgumentHelp("Address to listen on (default: 127.0.0.1; 0.0.0.0 for every interface).", valueName: "address")) var host: String?
    @Option(help: ArgumentHelp("TCP port (default: 8080; 0 picks a free one, printed on standard error).", valueName: "n")) var port: Int?
    @Option(help: ArgumentHelp("Renders at once, one thread each (default: the cores).", valueName: "n")) var jobs: Int?
    @Option(help: ArgumentHelp("Renders waiting for a thread at most; more get 503 with Retry-After (default: 64).", valueName: "n")) var queue: Int?
    @Option(help: ArgumentHelp("Seconds a map may wait and render before a 503 (default: 10).", valueName: "seconds")) var timeout: Double?
    @Option(help: ArgumentHelp("Connections open at once at most; more wait in the backlog (default: 512).", valueName: "n")) var maxConnections: Int?
    @Option(help: ArgumentHelp("Seconds a client has to send a whole request, from when it connects or the previous answer ends; slower clients are disconnected (default: 10).", valueName: "seconds"))
    var readTimeout: Double?
    @Option(help: ArgumentHelp("Longest URL in bytes; longer gets 414 (default: 16384).", valueName: "bytes")) var maxURL: Int?
    @Option(help: ArgumentHelp("Largest POST body in bytes; larger gets 413 (default: 8388608).", valueName: "bytes")) var maxBody: Int?
    @Option(help: ArgumentHelp("Most positions (pins, vertices, coordinates, CSV rows) a request may hold; more gets 413 (default: 100000).", valueName: "n"))
    var maxPoints: Int?
    @Option(help: ArgumentHelp("Largest image side in pixels, size times scale (default: 4096).", valueName: "px")) var maxSize: Int?
    @Option(help: ArgumentHelp("Megabytes of rendered images kept for repeated requests (default: 256; 0: none).", valueName: "MB")) var cacheMB: Int?
    @Option(help: ArgumentHelp("Cache-Control max-age of maps, seconds (default: 86400).", valueName: "seconds")) var maxAge: Int?
    @Option(help: ArgumentHelp("A data set requests may name: /maps/NAME/static/..., \"input\": \"NAME\" (repeatable).", valueName: "NAME=FILE"))
    var data: [String] = []
    @Option(help: ArgumentHelp("A style requests may name: ?style=NAME, \"style\": \"NAME\" (repeatable).", valueName: "NAME=FILE"))
    var style: [String] = []
    @Option(help: ArgumentHelp("A tile source requests may name: ?tiles=NAME (repeatable; a preset, URL template or file).", valueName: "NAME=SOURCE"))
    var tiles: [String] = []
    @Option(help: ArgumentHelp("Hosts url-{URL}(lon,lat) marker images may come from, comma-separated: example.com (any port), example.com:8443, *.example.com (default: none, url- markers refused).", valueName: "HOST,..."))
    var urlMarkers: String?
    @Flag(help: "Write no access log line per request (default: one on standard error).") var noAccessLog = false

    func validate() throws {
        do { _ = try configurationFromFlags(ServeConfiguration()) } catch let e as MapRenderError where e.kind == .usage {
            throw ValidationError(e.message)
        }
    }

    /// The configuration: the file's (or the defaults), then each option given.
    func configurationFromFlags(_ base: ServeConfiguration) throws -> ServeConfiguration {
        var c = base
        func check<T: Comparable>(_ v: T?, _ range: ClosedRange<T>, _ flag: String, _ set: (T) -> Void) throws {
            guard let v else { return }
            guard range.contains(v) else {
                throw MapRenderError(.usage, "--\(flag) must be in \(range.lowerBound)...\(range.upperBound), got \(v)")
            }
            set(v)
        }
        if let h = host { c.host = h }
        try check(port, 0...65535, "port") { c.port = $0 }
        try check(jobs, 1...256, "jobs") { c.jobs = $0 }
        try check(queue, 0...100_000, "queue") { c.queue = $0 }
        try check(timeout, 0.001...3600, "timeout") { c.timeout = $0 }
        try check(maxConnections, 1...1_000_000, "max-connections") { c.maxConnections = $0 }
        try check(readTimeout, 0.001...3600, "read-timeout") { c.readTimeout = $0 }
        try check(maxURL, 256...(64 << 20), "max-url") { c.maxURL = $0 }
        try check(maxBody, 0...(1 << 30), "max-body") { c.maxBody = $0 }
        try check(maxPoints, 1...100_000_000, "max-points") { c.maxPoints = $0 }
        try check(maxSize, 1...32767, "max-size") { c.maxSize = $0 }
        try check(cacheMB, 0...1_000_000, "cache-mb") { c.cacheBytes = $0 << 20 }
        try check(maxAge, 0...31_536_000, "max-age") { c.maxAge = $0 }
        for d in data { let (n, f) = try ServeConfiguration.parseNamed(d, flag: "data"); c.data[n] = f }
        for s in style { let (n, f) = try ServeConfiguration.parseNamed(s, flag: "style"); c.styles[n] = f }
        for t in tiles { let (n, f) = try ServeConfiguration.parseNamed(t, flag: "tiles"); c.tiles[n] = f }
        if let u = urlMarkers { c.urlMarkerHosts = try ServeConfiguration.parseHosts(u) }
        if noAccessLog { c.accessLog = false }
        return c
    }

    func run() throws {
        try runReportingErrors {
            let base = try config.map { try ServeConfiguration.load(path: $0) } ?? ServeConfiguration()
            let c = try configurationFromFlags(base)
            let service = try MapService(configuration: c)
            let done = DispatchSemaphore(value: 0)
            nonisolated(unsafe) var failure: Error?
            Task.detached {
                do {
                    try await MapServer.run(service) { port in
                        StandardStreams.writeError("maprender serve: listening on http://\(c.host):\(port)\n")
                    }
                } catch {
                    failure = error
                }
                done.signal()
            }
            done.wait()
            if let e = failure {
                throw MapRenderError(.unavailable, "cannot serve on \(c.host):\(c.port): \(e)")
            }
            StandardStreams.writeError("maprender serve: stopped\n")
        }
    }
}
