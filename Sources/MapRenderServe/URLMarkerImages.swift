import Foundation
import MapRender
import MapRenderCairo
import MapRenderCore
import MapRenderTiles

/// The images of `url-{URL}(lon,lat)` markers, fetched only from the hosts the server was started
/// with (`--url-markers HOST,...`) and kept in memory.
///
/// As the Mapbox Static Images API draws them: the image is centred on the position, and drawn
/// pixel for pixel, not scaled for `@2x` (a 40-pixel image covers 40 device pixels of a `@2x`
/// map); PNG and JPEG (and WebP, and SVG, which is drawn at its own size in CSS px, so crisp at
/// `@2x`). Its format is read from its bytes, not from Content-Type.
///
/// Bounds: `maxBytes` a body (libcurl stops the transfer there), `maxSide` pixels a side read
/// from the header before any pixel is decoded (the one image codec's probe and size policy),
/// `maxRedirects` redirects each to an allowed host, the server's `--timeout` for the whole fetch
/// (a first byte within `firstByte` s). Kept `cacheBytes` in all (least recently used first out),
/// each as long as its Cache-Control or Expires says, within `minKeep...maxKeep` seconds.
final class URLMarkerImages: @unchecked Sendable {
    static let maxBytes = 1 << 20
    static let maxSide = 1024
    static let maxRedirects = 3
    static let maxPerRequest = 16
    static let firstByte = 5.0
    static let cacheBytes = 32 << 20
    static let minKeep = 60.0, maxKeep = 86400.0, defaultKeep = 3600.0

    /// A checked image, ready to draw.
    struct Entry {
        var icon: MarkerIcon
        var cost: Int
        var expires: Double
        var used: UInt64
    }

    let configuration: ServeConfiguration
    private let http = HTTPGetClient()
    private let lock = NSLock()
    private var entries: [String: Entry] = [:]
    private var bytes = 0
    private var clock: UInt64 = 0
    /// Fetches made (tests count them).
    private(set) var fetches = 0

    init(configuration: ServeConfiguration) { self.configuration = configuration }

    /// The icons of a request's `url-` markers by URL, each fetched or from memory, for a map at
    /// `scale`. Throws the refusal naming the first marker that cannot be drawn: 400 when the
    /// server takes no `url-` markers or not from that host, 502 when its image cannot be had or
    /// used, 504 when its server is too slow.
    func icons(for overlays: [Overlay], scale: Double) async throws -> [String: MarkerIcon] {
        var out: [String: MarkerIcon] = [:]
        for (n, o) in overlays.enumerated() {
            guard case .urlMarker(let m) = o, out[m.url] == nil else { continue }
            let name = "overlay \(n + 1) (url-\(m.url.count > 60 ? String(m.url.prefix(57)) + "..." : m.url))"
            guard !configuration.urlMarkerHosts.isEmpty else {
                throw ServeError(ServeError.badRequest, "\(name): url- markers are not enabled on this server (maprender serve --url-markers HOST,...); use pin-s or pin-l")
            }
            guard configuration.allowsMarkerHost(m.host) else {
                throw ServeError(ServeError.badRequest, "\(name): the host '\(m.host)' is not one this server fetches marker images from (\(configuration.urlMarkerHosts.joined(separator: ", ")))")
            }
            guard out.count < Self.maxPerRequest else {
                throw ServeError(ServeError.badRequest, "\(name): more than \(Self.maxPerRequest) marker image URLs in one request")
            }
            out[m.url] = try await icon(m.url, scale: scale, name: name)
        }
        return out
    }

    func icon(_ url: String, scale: Double, name: String) async throws -> MarkerIcon {
        let key = "\(url)\u{0}\(scale)"
        let now = Date().timeIntervalSince1970
        lock.lock()
        if var e = entries[key], e.expires > now {
            clock += 1
            e.used = clock
            entries[key] = e
            lock.unlock()
            return e.icon
        }
        lock.unlock()
        // libcurl blocks its thread: off the server's event loops and task threads.
        let result: Result<(MarkerIcon, Double), ServeError> = await withCheckedContinuation { c in
            DispatchQueue.global().async {
                do {
                    c.resume(returning: .success(try self.fetch(url, scale: scale, name: name)))
                } catch let e as ServeError {
                    c.resume(returning: .failure(e))
                } catch {
                    c.resume(returning: .failure(ServeError(ServeError.badGateway, "\(name): \(error)")))
                }
            }
        }
        let (icon, keep) = try result.get()
        put(key, icon, expires: now + keep)
        return icon
    }

    private func put(_ key: String, _ icon: MarkerIcon, expires: Double) {
        let cost = icon.bytes.count + key.utf8.count + 256
        guard cost <= Self.cacheBytes / 8 else { return }
        lock.lock(); defer { lock.unlock() }
        clock += 1
        if let old = entries.updateValue(Entry(icon: icon, cost: cost, expires: expires, used: clock), forKey: key) {
            bytes -= old.cost
        }
        bytes += cost
        guard bytes > Self.cacheBytes else { return }
        for (k, e) in entries.sorted(by: { $0.value.used < $1.value.used }) where bytes > Self.cacheBytes * 9 / 10 {
            entries[k] = nil
            bytes -= e.cost
        }
    }

    var cachedBytes: Int { lock.lock(); defer { lock.unlock() }; return bytes }

    /// One image: the request and its redirects (each to an allowed host), the answer's checks,
    /// the icon; with the seconds it may be kept.
    private func fetch(_ start: String, scale: Double, name: String) throws -> (MarkerIcon, Double) {
        var url = start
        let c = configuration
        let limits = HTTPGetClient.Limits(firstByte: min(Self.firstByte, c.timeout), stall: min(Self.firstByte, c.timeout),
                                          total: c.timeout, maxBody: Self.maxBytes, maxRedirects: 0)
        lock.lock(); fetches += 1; lock.unlock()
        for hop in 0...Self.maxRedirects {
            switch http.get(url, userAgent: "\(MapRenderVersion.userAgent) (static map server; url- marker)", limits: limits) {
            case .timedOut(let why):
                throw ServeError(ServeError.gatewayTimeout, "\(name): the marker image did not arrive: \(why) (--timeout \(PropertyValue.format(number: c.timeout)) s)")
            case .tooLarge:
                throw ServeError(ServeError.badGateway, "\(name): the marker image is larger than \(Self.maxBytes >> 20) MB")
            case .failed(let why):
                throw ServeError(ServeError.badGateway, "\(name): the marker image could not be fetched: \(why)")
            case .answer(let body, let status, let headers):
                if (300...399).contains(status), let location = headers["location"] {
                    guard hop < Self.maxRedirects else {
                        throw ServeError(ServeError.badGateway, "\(name): more than \(Self.maxRedirects) redirects")
                    }
                    guard let next = URL(string: location, relativeTo: URL(string: url))?.absoluteURL,
                          let scheme = next.scheme?.lowercased(), scheme == "http" || scheme == "https",
                          let host = next.host?.lowercased() else {
                        throw ServeError(ServeError.badGateway, "\(name): redirected to '\(location.prefix(100))', not an http or https URL")
                    }
                    let hostPort = next.port.map { "\(host):\($0)" } ?? host
                    guard c.allowsMarkerHost(hostPort) else {
                        throw ServeError(ServeError.badGateway, "\(name): redirected to host '\(hostPort)', not one this server fetches marker images from")
                    }
                    url = next.absoluteString
                    continue
                }
                guard status == 200 else {
                    throw ServeError(ServeError.badGateway, "\(name): the marker image's server answered HTTP \(status)")
                }
                let icon = try Self.icon(body, url: start, scale: scale, name: name)
                let now = Date()
                let expires = TileResponseHeaders.expiry(headers: headers, now: now).map { $0 - now.timeIntervalSince1970 } ?? Self.defaultKeep
                return (icon, min(max(expires, Self.minKeep), Self.maxKeep))
            }
        }
        throw ServeError(ServeError.badGateway, "\(name): more than \(Self.maxRedirects) redirects")
    }

    /// The fetched bytes as an icon centred on its position: an SVG as it is (its size in CSS
    /// px); a PNG, JPEG or WebP checked from its header (at most `maxSide` pixels a side) before
    /// any pixel is decoded, JPEG and WebP decoded and kept as PNG (Cairo draws PNG), drawn at
    /// 1/scale CSS px a pixel.
    static func icon(_ body: Data, url: String, scale: Double, name: String) throws -> MarkerIcon {
        let bytes = [UInt8](body)
        do {
            if IconLoader.looksLikeSVG(bytes) {
                return try IconLoader.icon(bytes: bytes, name: url, size: 1, anchor: .center, maxDrawn: Double(maxSide))
            }
            let header: ImageCodec.Header
            do {
                header = try ImageCodec.probe(body)
            } catch {
                throw ServeError(ServeError.badGateway, "\(name): the marker image is not a PNG, JPEG, WebP or SVG image (\(error))")
            }
            if let why = ImageCodec.sizeProblem(header, .init(maxSide: maxSide)) {
                throw ServeError(ServeError.badGateway, "\(name): the marker image is too large: \(why)")
            }
            var png = bytes
            if header.format != .png {
                let d = try ImageCodec.decode(body, limits: .init(maxSide: maxSide))
                png = [UInt8](try ImageCodec.encodePNG(rgba: d.rgba, width: d.width, height: d.height))
            }
            return try IconLoader.icon(bytes: png, name: url, size: 1 / scale, anchor: .center, maxDrawn: Double(maxSide))
        } catch let e as ServeError {
            throw e
        } catch let e as MapRenderError {
            throw ServeError(ServeError.badGateway, "\(name): \(e.message)")
        } catch {
            throw ServeError(ServeError.badGateway, "\(name): the marker image cannot be drawn: \(error)")
        }
    }
}
