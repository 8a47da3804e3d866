import Foundation
import MapRender
import MapRenderCore
import Prometheus

/// A refusal with its HTTP status, sent as `{"error": "..."}`.
public struct ServeError: Error, CustomStringConvertible, Sendable {
    public var status: Int
    public var message: String
    /// Seconds for `Retry-After` (503 when the queue is full).
    public var retryAfter: Int?

    public static let badRequest = 400, notFound = 404, tooLarge = 413, uriTooLong = 414,
                      unavailable = 503, internalError = 500, badGateway = 502, gatewayTimeout = 504

    public init(_ status: Int, _ message: String, retryAfter: Int? = nil) {
        self.status = status
        self.message = message
        self.retryAfter = retryAfter
    }

    public var description: String { message }

    /// `{"error":"..."}`.
    public var json: Data { Self.json(error: message) }

    static func json(error: String) -> Data {
        (try? JSONSerialization.data(withJSONObject: ["error": error], options: [.sortedKeys])) ?? Data("{\"error\":\"error\"}".utf8)
    }

    /// Any error a request's handling threw: a ServeError as it is, a render's by `from(_:)`,
    /// anything else ours (500).
    static func from(any error: Error) -> ServeError {
        if let e = error as? ServeError { return e }
        if let e = error as? MapRenderError { return from(e) }
        return ServeError(internalError, "\(error)")
    }

    /// The status of a render's error: the request's fault (400), a tile server's (502), ours (500).
    static func from(_ e: MapRenderError) -> ServeError {
        switch e.kind {
        case .usage, .style, .inputMalformed: return ServeError(badRequest, e.message)
        case .unavailable: return ServeError(badGateway, e.message)
        default: return ServeError(internalError, e.message)
        }
    }
}

/// A map or an answer to send.
public struct Reply: Sendable {
    public var status: Int
    public var contentType: String
    public var body: Data
    public var headers: [(String, String)] = []
    /// For the access log: `hit`, `miss`, `304`.
    public var cache: String = "-"

    static func error(_ e: ServeError) -> Reply {
        var r = Reply(status: e.status, contentType: "application/json", body: e.json)
        if let s = e.retryAfter { r.headers.append(("Retry-After", String(s))) }
        return r
    }
}

/// The maps of `maprender serve`, apart from HTTP: static map URLs and posted jobs become a
/// `RenderRequest` through the one options table, answered from the cache or rendered by
/// `MapRenderer` (the CLI's pipeline) on the render pool, within the limits.
public final class MapService: @unchecked Sendable {
    public let configuration: ServeConfiguration
    let names: RequestNames
    let files = OptionFiles()
    let pool: RenderPool
    let cache: ImageCache
    let metrics = ServeMetrics()
    let urlMarkers: URLMarkerImages
    /// A hash of the server's data, styles, tile sources and version: part of every ETag.
    public let dataVersion: String

    /// Checks the named files (each readable, each style valid) before listening.
    public init(configuration c: ServeConfiguration) throws {
        configuration = c
        names = c.requestNames
        var hash = StableHash()
        hash.add("maprender \(MapRenderVersion.long)")
        for (kind, table) in [("data", c.data), ("style", c.styles), ("tiles", c.tiles)] {
            for name in table.keys.sorted() {
                let path = table[name]!
                hash.add("\(kind) \(name)=\(path)")
                if kind == "tiles" {
                    _ = try TileSourceSpec.parse(path, options: TileOptions())
                    continue
                }
                let full = try files.readableFile(path)
                if kind == "style" { _ = try files.style(full) }
                guard let bytes = FileManager.default.contents(atPath: full) else {
                    throw MapRenderError(.inputUnreadable, "cannot read \(full)")
                }
                hash.add(bytes)
            }
        }
        dataVersion = hash.hex
        pool = RenderPool(jobs: c.jobs, queue: c.queue)
        cache = ImageCache(limit: c.cacheBytes)
        urlMarkers = URLMarkerImages(configuration: c)
    }

    deinit { pool.stop() }

    // MARK: - Static maps by URL

    /// `GET [/maps/{data}][/styles/v1/{user}/{style}]/static/...`.
    /// - Parameters:
    ///   - segments: the path's segments after `static`, still percent-encoded.
    ///   - dataSet: `/maps/{name}/`'s name; `style`: a Mapbox style id from `/styles/v1/{user}/{style}/`
    ///     (the server's style of that name, else the default style).
    public func staticMap(segments: [Substring], query: String?, dataSet: String?, mapboxStyle: String?,
                          ifNoneMatch: String?) async -> Reply {
        let key = "GET \(dataSet ?? "")|\(mapboxStyle ?? "")|\(segments.joined(separator: "/"))?\(Self.normalisedQuery(query))"
        let build = { () throws -> (RenderRequest, [Overlay]) in
            try self.staticRequest(segments: segments, query: query, dataSet: dataSet, mapboxStyle: mapboxStyle)
        }
        // `url-` markers: their images are fetched (or found in memory) before the cache is
        // asked, and each one's digest joins the key, so a changed image is a new ETag.
        guard segments.count == 3, segments[0].contains("url-") else {
            return await answer(key: key, ifNoneMatch: ifNoneMatch) { try build().0 }
        }
        let prepared: RenderRequest
        var digests = ""
        do {
            var (r, overlays) = try build()
            let icons = try await urlMarkers.icons(for: overlays, scale: r.scale)
            if !icons.isEmpty {
                let urls = overlays.compactMap { o -> String? in if case .urlMarker(let m) = o { return m.url } else { return nil } }
                r.style.marker.icon = StyleExpression.matchingProperty(Overlay.markerURLProperty, keys: urls, fallback: r.style.marker.icon)
                for (url, icon) in icons { r.style.marker.icons[url] = icon }
                digests = urls.map { icons[$0].map { String($0.digest, radix: 16) } ?? "-" }.joined(separator: ",")
            }
            prepared = r
        } catch {
            return .error(ServeError.from(any: error))
        }
        return await answer(key: key + "|markers " + digests, ifNoneMatch: ifNoneMatch) { prepared }
    }

    /// A static map URL as a render request, with its overlays.
    func staticRequest(segments: [Substring], query: String?, dataSet: String?, mapboxStyle: String?) throws -> (RenderRequest, [Overlay]) {
        let url = try StaticURL(segments: segments, query: query)
        var options = url.options
        if let s = mapboxStyle, self.names.named["style"]?[s] != nil, !options.contains(where: { $0.name == "style" }) {
            options.append(("style", [s]))
        }
        if Overlay.hasLabels(url.overlays), !options.contains(where: { $0.name == "label" }) {
            options.append(("label", ["label"]))
        }
        var r = try self.request(options)
        r.format = url.format
        var positions = 0
        if let name = dataSet {
            r.inputs = [try self.dataSetPath(name)]
        }
        if let fc = Overlay.featureCollection(url.overlays) {
            r.inlineInputs.append(.init(name: "overlays.geojson", data: Data(fc.utf8)))
        }
        for (n, o) in url.overlays.enumerated() {
            positions += o.positionCount
            if case .geoJSON(let text) = o {
                r.inlineInputs.append(.init(name: "overlay \(n + 1) (geojson).geojson", data: Data(text.utf8)))
            }
        }
        try self.checkPoints(positions)
        if r.inputs.isEmpty && r.inlineInputs.isEmpty {
            guard !url.auto else {
                throw ServeError(ServeError.badRequest, "auto fits the view to the overlays, but there are none: give LON,LAT,ZOOM or [W,S,E,N]")
            }
            // A map with nothing on it (Mapbox allows one): the basemap alone.
            r.inlineInputs = [.init(name: "no-overlays.geojson", data: Data(#"{"type":"FeatureCollection","features":[]}"#.utf8))]
            r.allowEmpty = true
        }
        return (r, url.overlays)
    }

    // MARK: - Posted jobs

    /// `POST /render`: a batch job's keys as JSON, with `data` or `input`.
    public func postedMap(body: Data, dataSet: String?, ifNoneMatch: String?) async -> Reply {
        var hash = StableHash()
        hash.add(body)
        let key = "POST \(dataSet ?? "")|\(hash.hex)"
        return await answer(key: key, ifNoneMatch: ifNoneMatch) {
            var r: RenderRequest
            do {
                r = try BatchManifest.requestJob(json: body, names: self.names, files: self.files,
                                                 inputs: try dataSet.map { [try self.dataSetPath($0)] } ?? [])
            } catch let e as BatchManifestError {
                let kind = e.issues.first?.kind ?? .usage
                let status = kind == .inputUnreadable ? ServeError.internalError : ServeError.badRequest
                throw ServeError(status, e.issues.map(\.message).joined(separator: "; "))
            }
            try self.checkPoints(r.inlineInputs.reduce(0) { n, i in
                n + (i.name.hasSuffix(".csv") ? i.data.reduce(0) { $0 + ($1 == 0x0A ? 1 : 0) } : Overlay.countPositions(String(decoding: i.data, as: UTF8.self)))
            })
            try self.checkSize(r)
            return r
        }
    }

    // MARK: - The common path

    /// Cache key and ETag, then 304, a cached image, or a render.
    func answer(key: String, ifNoneMatch: String?, build: @escaping () throws -> RenderRequest) async -> Reply {
        var h = StableHash()
        h.add(key)
        h.add(dataVersion)
        let etag = "\"\(h.hex)\""
        let caching = [("ETag", etag), ("Cache-Control", "public, max-age=\(configuration.maxAge)")]
        if let inm = ifNoneMatch, inm.split(separator: ",").contains(where: {
            let t = $0.trimmingCharacters(in: .whitespaces)
            return t == etag || t == "W/" + etag || t == "*"
        }) {
            var r = Reply(status: 304, contentType: "", body: Data(), headers: caching)
            r.cache = "304"
            return r
        }
        if let hit = cache.get(etag) {
            metrics.cacheHits.increment()
            var r = Reply(status: 200, contentType: hit.contentType, body: hit.data, headers: caching)
            r.cache = "hit"
            return r
        }
        metrics.cacheMisses.increment()
        do {
            var request = try build()
            try checkSize(request)
            request.threads = 1
            request.maxMemory = min(request.maxMemory, 2 << 30)
            let job = request
            let result: RenderResult
            do {
                result = try await pool.run(timeout: configuration.timeout) { try MapRenderer.render(job) }
            } catch RenderPool.Failure.full {
                throw ServeError(ServeError.unavailable, "the server is busy: \(configuration.jobs) renders running and \(configuration.queue) waiting (--queue); try again shortly", retryAfter: 1)
            } catch RenderPool.Failure.timedOut {
                throw ServeError(ServeError.unavailable, "the map was not ready within \(PropertyValue.format(number: configuration.timeout)) s (--timeout)", retryAfter: 1)
            }
            metrics.stages(result.summary.timings)
            let type = Self.contentType(request.format)
            cache.put(etag, result.data, contentType: type)
            metrics.cacheBytes.set(Double(cache.size))
            metrics.cacheEntries.set(Double(cache.count))
            var headers = caching
            if !result.warnings.isEmpty {
                headers.append(("X-Maprender-Warnings", String(result.warnings.count)))
            }
            var r = Reply(status: 200, contentType: type, body: result.data, headers: headers)
            r.cache = "miss"
            return r
        } catch {
            return .error(ServeError.from(any: error))
        }
    }

    /// The table's options from a request.
    func request(_ options: [(name: String, values: [String])]) throws -> RenderRequest {
        var settings = RenderSettings()
        try RenderOptionTable.apply(request: options, names: names, files: files, to: &settings)
        return settings.request()
    }

    func dataSetPath(_ name: String) throws -> String {
        guard let path = configuration.data[name] else {
            let known = configuration.data.keys.sorted()
            throw ServeError(ServeError.notFound, known.isEmpty ? "no data set '\(name)': this server has none (--data NAME=FILE)"
                                : "no data set '\(name)': this server has \(known.joined(separator: ", "))")
        }
        return try files.readableFile(path)
    }

    func checkPoints(_ n: Int) throws {
        guard n <= configuration.maxPoints else {
            throw ServeError(ServeError.tooLarge, "the request holds \(n) positions, more than \(configuration.maxPoints) (--max-points)")
        }
    }

    /// The server's bound on image sides, in device pixels (the table's bounds come first).
    func checkSize(_ r: RenderRequest) throws {
        let w = Int((r.width * r.scale).rounded(.up)), h = Int((r.height * r.scale).rounded(.up))
        let m = configuration.maxSize
        guard w <= m, h <= m else {
            throw ServeError(ServeError.badRequest, "the image would be \(w)x\(h) pixels (size times scale); this server draws at most \(m) per side (--max-size)")
        }
    }

    static func contentType(_ f: OutputFormat) -> String {
        switch f {
        case .png: return "image/png"
        case .svg: return "image/svg+xml"
        case .pdf: return "application/pdf"
        case .jpeg: return "image/jpeg"
        case .webp: return "image/webp"
        }
    }

    /// The query's parameters sorted by name (values of one name keep their order), without
    /// the ignored ones: `?b=1&a=2` and `?a=2&b=1` are one map.
    static func normalisedQuery(_ q: String?) -> String {
        guard let q, !q.isEmpty else { return "" }
        let pairs = q.split(separator: "&").filter { p in
            !StaticURL.ignoredQuery.contains(String(p.split(separator: "=", maxSplits: 1).first ?? ""))
        }
        return pairs.enumerated().sorted {
            let a = $0.element.split(separator: "=", maxSplits: 1).first ?? "", b = $1.element.split(separator: "=", maxSplits: 1).first ?? ""
            return a != b ? a < b : $0.offset < $1.offset
        }.map { String($0.element) }.joined(separator: "&")
    }

    // MARK: - Health and metrics

    public func health() -> Reply {
        let body = "{\"status\":\"ok\",\"version\":\"\(MapRenderVersion.current)\",\"data_version\":\"\(dataVersion)\","
            + "\"renders_running\":\(pool.busy),\"renders_waiting\":\(pool.waiting)}"
        return Reply(status: 200, contentType: "application/json", body: Data(body.utf8))
    }

    public func metricsText() -> Reply {
        metrics.queueLength.set(Double(pool.waiting))
        metrics.rendering.set(Double(pool.busy))
        return Reply(status: 200, contentType: "text/plain; version=0.0.4", body: Data(metrics.text().utf8))
    }

    /// For the HTTP layer's counting.
    func record(endpoint: String, status: Int, seconds: Double) {
        metrics.request(endpoint: endpoint, status: status, seconds: seconds)
    }

    var inFlight: ServeMetricsGauge { ServeMetricsGauge(gauge: metrics.inFlight) }
}

struct ServeMetricsGauge {
    let gauge: Prometheus.Gauge
    func up() { gauge.increment() }
    func down() { gauge.decrement() }
}

/// FNV-1a, 128 bits as two 64-bit lanes of different offsets: stable across processes and
/// machines (Swift's `Hasher` is seeded per process), for ETags and the data version.
struct StableHash {
    private var a: UInt64 = 0xcbf2_9ce4_8422_2325
    private var b: UInt64 = 0x8422_2325_cbf2_9ce4

    mutating func add(_ s: String) { add(Data(s.utf8)); add(Data([0])) }

    mutating func add(_ d: Data) {
        for byte in d {
            a = (a ^ UInt64(byte)) &* 0x100_0000_01b3
            b = (b ^ UInt64(byte ^ 0x5c)) &* 0x100_0000_01b3
        }
    }

    var hex: String { String(format: "%016llx%016llx", a, b) }
}
