import Foundation
import MapRenderCore
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// HTTP for tiles, the way tile servers ask (the OSMF tile usage policy):
/// - a User-Agent naming maprender and its version (plus the user's contact);
/// - at most `connectionsPerHost` requests in flight per host;
/// - retries with exponential backoff on 429, 5xx and timeouts, waiting what Retry-After says; a
///   Retry-After holds back every request to that host until it has passed, and one longer than
///   `maxRetryWait` fails the tile at once rather than stalling the map;
/// - a timeout per request;
/// - a disk cache honouring Cache-Control, Expires and ETag/Last-Modified revalidation.
///
/// `get` makes one attempt and never sleeps: when the request must be tried again later it says
/// when (`.retry`), and the tile stage queues the attempt for then, so a wait holds neither a
/// worker thread nor a connection slot and other hosts' and other tiles' requests go on.
///
/// Foundation's URLSession (FoundationNetworking, libcurl underneath on Linux): it ships with
/// Swift, does HTTP/1.1 and HTTP/2 with TLS, and a synchronous tile stage needs no event loop.
final class TileHTTPClient: @unchecked Sendable {
    enum Outcome {
        case ok(Data, fromCache: Bool, revalidated: Bool)
        case notFound
        case failed(String)
        /// Try again in `after` seconds as attempt number `attempt` (0 is the first).
        case retry(after: Double, attempt: Int)
    }

    let options: TileOptions
    let cache: TileDiskCache
    /// Made at the first request (`session`): a map from a local file or a warm cache sends none,
    /// and making one costs ~16M instructions (FoundationNetworking's configuration and libcurl).
    private var madeSession: URLSession?
    private var session: URLSession {
        lock.lock(); defer { lock.unlock() }
        if let s = madeSession { return s }
        let config = URLSessionConfiguration.ephemeral
        config.httpMaximumConnectionsPerHost = options.connectionsPerHost
        // The timeout is kept by `send`; these only stop a transfer that outlives it.
        config.timeoutIntervalForRequest = (options.timeout + 2).rounded(.up)
        config.timeoutIntervalForResource = (options.timeout + 2).rounded(.up)
        config.requestCachePolicy = .reloadIgnoringLocalCacheData
        config.urlCache = nil
        config.httpAdditionalHeaders = ["User-Agent": options.fullUserAgent]
        let s = URLSession(configuration: config)
        madeSession = s
        return s
    }
    private var hostSlots: [String: DispatchSemaphore] = [:]
    /// Per host: no request before this time (seconds since 1970), set by a Retry-After.
    private var hostNotBefore: [String: Double] = [:]
    private let lock = NSLock()
    /// Requests sent to servers (tests count them).
    private(set) var requestsSent = 0

    init(options: TileOptions) {
        self.options = options
        cache = TileDiskCache(directory: options.resolvedCacheDirectory)
    }

    deinit { madeSession?.invalidateAndCancel() }

    private func slot(_ host: String) -> DispatchSemaphore {
        lock.lock(); defer { lock.unlock() }
        if let s = hostSlots[host] { return s }
        let s = DispatchSemaphore(value: options.connectionsPerHost)
        hostSlots[host] = s
        return s
    }

    /// The wait before attempt `attempt + 1` when the server gave no Retry-After: 0.5 s, 1 s, 2 s, ...
    func backoff(_ attempt: Int) -> Double { options.retryBase * pow(2, Double(attempt)) }

    /// Fetches `url` (bytes `range` of it when given) through the cache, blocking the calling
    /// thread through retries: for the few reads that open a PMTiles archive.
    func getWaiting(_ url: String, range: ClosedRange<UInt64>? = nil) -> Outcome {
        var attempt = 0
        while true {
            let o = get(url, range: range, attempt: attempt)
            guard case .retry(let after, let next) = o else { return o }
            Thread.sleep(forTimeInterval: after)
            attempt = next
        }
    }

    /// Attempt `attempt` at fetching `url` (bytes `range` of it when given), through the cache.
    /// Blocks only while the request is in flight; a wait before a retry is returned, not slept.
    func get(_ url: String, range: ClosedRange<UInt64>? = nil, attempt: Int = 0) -> Outcome {
        guard let u = URL(string: url), let host = u.host else { return .failed("\(url): not a valid URL") }
        let key = range.map { "\(url)#bytes=\($0.lowerBound)-\($0.upperBound)" } ?? url
        let cached = cache.read(key: key, host: host)
        let now = Date().timeIntervalSince1970
        if let c = cached, options.offline || c.entry.expires > now {
            return .ok(Data(c.data), fromCache: true, revalidated: false)
        }
        if options.offline { return .failed("\(url): not in the tile cache (--offline)") }
        // The host asked everyone to wait (Retry-After): this request waits too, without using an attempt.
        lock.lock()
        let notBefore = hostNotBefore[host] ?? 0
        lock.unlock()
        if notBefore > now { return .retry(after: notBefore - now, attempt: attempt) }

        var request = URLRequest(url: u, timeoutInterval: (options.timeout + 2).rounded(.up))
        request.setValue(options.fullUserAgent, forHTTPHeaderField: "User-Agent")
        if let r = range { request.setValue("bytes=\(r.lowerBound)-\(r.upperBound)", forHTTPHeaderField: "Range") }
        if let c = cached {
            if let e = c.entry.etag { request.setValue(e, forHTTPHeaderField: "If-None-Match") }
            if let m = c.entry.lastModified { request.setValue(m, forHTTPHeaderField: "If-Modified-Since") }
        }
        let (data, response, error) = send(request, host: host)
        if let error {
            let why = Self.describe(error)
            if why == "timed out" {
                guard attempt < options.retries else { return .failed("\(url): timed out after \(attempt + 1) attempts") }
                return .retry(after: backoff(attempt), attempt: attempt + 1)
            }
            return .failed("\(url): \(why)")
        }
        guard let http = response as? HTTPURLResponse else { return .failed("\(url): no HTTP response") }
        var headers: [String: String] = [:]
        for (k, v) in http.allHeaderFields { headers[String(describing: k).lowercased()] = String(describing: v) }
        switch http.statusCode {
        case 200, 206:
            let body = data ?? Data()
            if let exp = TileDiskCache.expiry(headers: headers, now: Date()) {
                cache.write(.init(key: key, expires: exp, etag: headers["etag"], lastModified: headers["last-modified"]),
                            data: body, host: host)
            }
            return .ok(body, fromCache: false, revalidated: false)
        case 304:
            guard let c = cached else { return .failed("\(url): 304 Not Modified without a cached tile") }
            var entry = c.entry
            entry.expires = TileDiskCache.expiry(headers: headers, now: Date()) ?? Date().timeIntervalSince1970
            if let e = headers["etag"] { entry.etag = e }
            cache.write(entry, data: Data(c.data), host: host)
            return .ok(Data(c.data), fromCache: true, revalidated: true)
        case 204, 404, 410:
            return .notFound
        case 429, 500...599:
            let retryAfter = headers["retry-after"].flatMap(Self.retryAfter).map { max(0, $0) }
            if let ra = retryAfter, ra > options.maxRetryWait {
                return .failed("\(url): HTTP \(http.statusCode) asking to wait \(Int(ra.rounded())) s, more than the \(Int(options.maxRetryWait)) s maprender waits")
            }
            guard attempt < options.retries else {
                return .failed("\(url): HTTP \(http.statusCode) after \(attempt + 1) attempts")
            }
            if let ra = retryAfter {
                let until = Date().timeIntervalSince1970 + ra
                lock.lock(); hostNotBefore[host] = max(hostNotBefore[host] ?? 0, until); lock.unlock()
                return .retry(after: ra, attempt: attempt + 1)
            }
            return .retry(after: backoff(attempt), attempt: attempt + 1)
        default:
            return .failed("\(url): HTTP \(http.statusCode)")
        }
    }

/// One request, holding one of the host's connection slots while it is in flight.
    private func send(_ request: URLRequest, host: String) -> (Data?, URLResponse?, Error?) {
        let hold = HostSlot(slot(host))
        hold.take()
        lock.lock(); requestsSent += 1; lock.unlock()
        let done = DispatchSemaphore(value: 0)
        let box = Box<(Data?, URLResponse?, Error?)>((nil, nil, nil))
        let task = session.dataTask(with: request) { d, r, e in
            // The connection is free: the host's next request starts from here, without waiting
            // for this worker to wake first (a thread switch a request, ~21 in a row on a cold map).
            hold.release()
            box.value = (d, r, e)
            done.signal()
        }
        task.resume()
        // Our own clock for the timeout: FoundationNetworking rounds the session's down to whole seconds.
        if done.wait(timeout: .now() + options.timeout) == .timedOut {
            task.cancel()
            hold.release()
            return (nil, nil, NSError(domain: NSURLErrorDomain, code: NSURLErrorTimedOut))
        }
        return box.value
    }

    static func retryAfter(_ v: String) -> Double? {
        if let s = Double(v.trimmingCharacters(in: .whitespaces)) { return s }
        return TileDiskCache.httpDate(v).map { $0.timeIntervalSinceNow }
    }

    static func describe(_ error: Error) -> String {
        let e = error as NSError
        if e.domain == NSURLErrorDomain && e.code == NSURLErrorTimedOut { return "timed out" }
        return e.localizedDescription
    }
}

/// A tile server with a URL template.
final class URLTileSource: TileSource, @unchecked Sendable {
    let name: String
    let template: TileURLTemplate
    let minZoom: Int, maxZoom: Int
    let attribution: String?
    let client: TileHTTPClient
    var hasRetina: Bool { template.hasRetina }

    init(spec: TileSourceSpec, template: TileURLTemplate, client: TileHTTPClient) {
        name = spec.text; self.template = template; self.client = client
        minZoom = spec.minZoom; maxZoom = spec.maxZoom; attribution = spec.attribution
    }

    func fetch(_ t: TileID, retina: Bool, attempt: Int) -> TileFetch {
        switch client.get(template.url(t, retina: retina), attempt: attempt) {
        case .ok(let d, let fromCache, _): return .data(d, fromCache: fromCache)
        case .notFound: return .missing
        case .failed(let why): return .failed(why)
        case .retry(let after, let next): return .retry(after: after, attempt: next)
        }
    }
}

/// A PMTiles archive over HTTP: each directory and tile one Range request, each cached on disk.
final class HTTPRangeReader: RangeReader, @unchecked Sendable {
    let name: String
    let client: TileHTTPClient
    init(url: String, client: TileHTTPClient) { name = url; self.client = client }

    /// Opening the archive (header, root directory, metadata): waits through retries.
    func read(offset: UInt64, length: UInt64) throws -> Data {
        guard length > 0 else { return Data() }
        return try answer(client.getWaiting(name, range: offset...(offset + length - 1)), offset: offset, length: length).data
    }

    /// Leaf directories and tiles: one attempt; a wait is thrown as `TileRetry`.
    func read(offset: UInt64, length: UInt64, attempt: Int) throws -> RangeRead {
        guard length > 0 else { return RangeRead(data: Data(), fromCache: false) }
        return try answer(client.get(name, range: offset...(offset + length - 1), attempt: attempt), offset: offset, length: length)
    }

    private func answer(_ o: TileHTTPClient.Outcome, offset: UInt64, length: UInt64) throws -> RangeRead {
        switch o {
        case .ok(let d, let fromCache, _):
            if d.count <= Int(length) { return RangeRead(data: d, fromCache: fromCache) }
            // A server that ignores Range sends the whole file.
            if d.count >= Int(offset + length) {
                return RangeRead(data: d.subdata(in: Int(offset)..<Int(offset + length)), fromCache: fromCache)
            }
            return RangeRead(data: d.prefix(Int(length)), fromCache: fromCache)
        case .notFound: throw TileReadError("\(name): 404 Not Found")
        case .failed(let why): throw TileReadError(why)
        case .retry(let after, let next): throw TileRetry(after: after, attempt: next)
        }
    }
}

/// A read that must be tried again later (Retry-After, backoff): thrown by `HTTPRangeReader`.
struct TileRetry: Error {
    var after: Double
    var attempt: Int
}

struct TileReadError: Error, CustomStringConvertible {
    var description: String
    init(_ d: String) { description = d }
}

/// One request's hold on a host's connection slot, given back once: by the completion handler,
/// or by `send` when the request timed out (whichever comes first).
private final class HostSlot: @unchecked Sendable {
    private let semaphore: DispatchSemaphore
    private var held = false
    private let lock = NSLock()
    init(_ s: DispatchSemaphore) { semaphore = s }
    func take() { semaphore.wait(); held = true }
    func release() {
        lock.lock()
        let was = held
        held = false
        lock.unlock()
        if was { semaphore.signal() }
    }
}

/// A value handed from a completion handler to the thread waiting for it (a semaphore orders the two).
final class Box<T>: @unchecked Sendable {
    var value: T
    init(_ v: T) { value = v }
}
