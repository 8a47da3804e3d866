import CHTTP
import Foundation
import MapRenderCore

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
/// libcurl directly (`CHTTP`), not Foundation's URLSession: FoundationNetworking buffers a body
/// with no backpressure (a gzip bomb took 330 MB while its delegate was refusing it), where
/// libcurl's write callback stops the transfer at the limit, so no more than `maxBodyBytes` of a
/// body is ever held. HTTP/1.1 and HTTP/2 with TLS; a synchronous tile stage needs no event loop.
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
    /// libcurl's shared connections and DNS answers, made at the first request: a map from a
    /// local file or a warm cache sends none.
    private let http = HTTPGetClient()
    private var hostQueues: [String: HostQueue] = [:]
    /// Per host: no request before this time (seconds since 1970), set by a Retry-After.
    private var hostNotBefore: [String: Double] = [:]
    private let lock = NSLock()
    /// Requests sent to servers (tests count them).
    private(set) var requestsSent = 0

    init(options: TileOptions) {
        self.options = options
        cache = TileDiskCache(directory: options.resolvedCacheDirectory, maxBytes: options.cacheMaxBytes)
    }

    /// Sets libcurl up on another thread now, while the map's input is read, so that the tile
    /// stage's first request does not wait for it. A request made before it is ready waits for
    /// it (`http` holds the lock while making it).
    func warmUp() {
        guard !options.offline else { return }
        Thread.detachNewThread { [self] in _ = http.client }
    }

    private func hostQueue(_ host: String) -> HostQueue {
        lock.lock(); defer { lock.unlock() }
        if let q = hostQueues[host] { return q }
        let q = HostQueue(slots: options.connectionsPerHost)
        hostQueues[host] = q
        return q
    }

    /// The wait before attempt `attempt + 1` when the server gave no Retry-After: 0.5 s, 1 s, 2 s, ...
    func backoff(_ attempt: Int) -> Double { options.retryBase * pow(2, Double(attempt)) }

    /// Fetches `url` (bytes `range` of it when given) through the cache, blocking the calling
    /// thread through retries: for the few reads that open a PMTiles archive.
    /// Retries end once they would pass `maxRetryWait` seconds after the first attempt.
    func getWaiting(_ url: String, range: ClosedRange<UInt64>? = nil) -> Outcome {
        var attempt = 0
        let started = Date().timeIntervalSince1970
        while true {
            let o = get(url, range: range, attempt: attempt)
            guard case .retry(let after, let next) = o else { return o }
            if let why = retryBudgetSpent(started: started, wait: after, attempts: attempt + 1) { return .failed("\(url): \(why)") }
            Thread.sleep(forTimeInterval: after)
            attempt = next
        }
    }

    /// Why a tile waits no longer: waiting `wait` more seconds would end more than `maxRetryWait`
    /// seconds after its first attempt at `started` (seconds since 1970). Nil while it may wait.
    func retryBudgetSpent(started: Double, wait: Double, attempts: Int) -> String? {
        let total = Date().timeIntervalSince1970 - started + wait
        guard total > options.maxRetryWait else { return nil }
        return "still unavailable after \(attempts) attempt\(attempts == 1 ? "" : "s"); waiting again would take it past the \(String(format: "%g", options.maxRetryWait)) s maprender waits for a tile"
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

        var request: [String] = []
        if let r = range { request.append("Range: bytes=\(r.lowerBound)-\(r.upperBound)") }
        if let c = cached {
            // (Values from a server's earlier answer: no line breaks into the request.)
            let clean = { (v: String) in v.filter { $0 != "\r" && $0 != "\n" } }
            if let e = c.entry.etag { request.append("If-None-Match: " + clean(e)) }
            if let m = c.entry.lastModified { request.append("If-Modified-Since: " + clean(m)) }
        }
        let http: (statusCode: Int, headers: [String: String]), data: Data
        switch send(url, headers: request, host: host) {
        case .answer(let d, let status, let h): data = d; http = (status, h)
        case .timedOut(let why):
            guard attempt < options.retries else {
                return .failed("\(url): timed out after \(attempt + 1) attempt\(attempt == 0 ? "" : "s") (\(why))")
            }
            return .retry(after: backoff(attempt), attempt: attempt + 1)
        case .failed(let why): return .failed("\(url): \(why)")
        }
        let headers = http.headers
        switch http.statusCode {
        case 200, 206:
            let body = data
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
            let retryAfter = headers["retry-after"].flatMap(Self.retryAfter)
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

    /// What one request gave.
    enum Sent {
        /// An HTTP answer: its status, headers (names in lower case) and whole body (at most `maxBodyBytes`).
        case answer(Data, status: Int, headers: [String: String])
        /// No answer within `connectTimeout`, no byte for `stallTimeout`, or not whole within
        /// `timeout`: which, in words. Worth another attempt.
        case timedOut(String)
        /// Anything else (refused connection, a body past the limit, no HTTP): why, in words.
        case failed(String)
    }

    /// One request, holding one of the host's connection slots while it is in flight (a request
    /// finding them all taken waits in the host's queue). Three clocks from the start, kept by
    /// `mr_http_get`: the answer must begin within `connectTimeout`, each later byte follow the
    /// last within `stallTimeout`, and the whole be in within `timeout`. The body is bounded as it
    /// streams in (after Content-Encoding is undone): past `maxBodyBytes` the transfer stops.
    func send(_ url: String, headers: [String], host: String) -> Sent {
        let started = DispatchSemaphore(value: 0)
        let queue = hostQueue(host)
        queue.submit { started.signal() }
        started.wait()
        defer { queue.next() }
        lock.lock(); requestsSent += 1; lock.unlock()
        let limit = options.maxBodyBytes
        let limits = HTTPGetClient.Limits(firstByte: options.connectTimeout, stall: options.stallTimeout, total: options.timeout,
                                          maxBody: limit, maxRedirects: 5)
        switch http.get(url, headers: headers, userAgent: options.fullUserAgent, limits: limits) {
        case .answer(let body, let status, let fields): return .answer(body, status: status, headers: fields)
        case .timedOut(let why): return .timedOut(why)
        case .tooLarge(let length?):
            return .failed("Content-Length \(length) is larger than the \(Self.mib(limit)) maprender takes for a tile")
        case .tooLarge(nil):
            return .failed("the body is larger than the \(Self.mib(limit)) maprender takes for a tile")
        case .failed(let why): return .failed(why)
        }
    }

    static func mib(_ n: Int) -> String { n % (1 << 20) == 0 ? "\(n >> 20) MiB" : "\(n) bytes" }

    static func format(_ s: Double) -> String { String(format: "%g", s) }

    /// The longest Retry-After taken at its word (seconds, about 31 years): longer ones are
    /// clamped to it, so the number always converts to an integer for a message.
    static let retryAfterLimit = 1e9

    /// Seconds to wait, from a Retry-After value: delay-seconds (digits, a decimal fraction
    /// tolerated) or an HTTP-date, clamped to 0...`retryAfterLimit`. Nil for anything else, which
    /// is treated as no Retry-After: `inf`, `nan`, `1e30`, `-5`, text.
    static func retryAfter(_ v: String) -> Double? {
        let t = v.trimmingCharacters(in: .whitespaces)
        let parts = t.split(separator: ".", maxSplits: 1, omittingEmptySubsequences: false)
        let digits = { (p: Substring) in !p.isEmpty && p.utf8.allSatisfy { $0 >= 0x30 && $0 <= 0x39 } }
        if !parts.isEmpty, parts.allSatisfy(digits) {
            guard let s = Double(t), s.isFinite else { return retryAfterLimit }  // digits past Double's range
            return min(s, retryAfterLimit)
        }
        guard let date = TileDiskCache.httpDate(t) else { return nil }
        let s = date.timeIntervalSinceNow
        return s.isFinite ? min(max(0, s), retryAfterLimit) : nil
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
        return try answer(client.getWaiting(name, range: range(offset, length)), offset: offset, length: length).data
    }

    /// Leaf directories and tiles: one attempt; a wait is thrown as `TileRetry`.
    func read(offset: UInt64, length: UInt64, attempt: Int) throws -> RangeRead {
        guard length > 0 else { return RangeRead(data: Data(), fromCache: false) }
        return try answer(client.get(name, range: range(offset, length), attempt: attempt), offset: offset, length: length)
    }

    /// The bytes `offset..<offset + length` (length > 0), refused when the end passes 2^63.
    private func range(_ offset: UInt64, _ length: UInt64) throws -> ClosedRange<UInt64> {
        let (end, overflow) = offset.addingReportingOverflow(length)
        guard !overflow, end <= UInt64(Int64.max) else {
            throw TileReadError("\(name): bytes at offset \(offset), length \(length) are out of range")
        }
        return offset...(end - 1)
    }

    private func answer(_ o: TileHTTPClient.Outcome, offset: UInt64, length: UInt64) throws -> RangeRead {
        switch o {
        case .ok(let d, let fromCache, _):
            if d.count <= Int(length) { return RangeRead(data: d, fromCache: fromCache) }
            // A server that ignores Range sends the whole file.
            if d.count >= Int(offset + length) {
                // `range` checked offset + length against 2^63 before the request.
                return RangeRead(data: d.subdata(in: d.startIndex + Int(offset)..<d.startIndex + Int(offset + length)), fromCache: fromCache)
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

/// A host's connection slots and the requests waiting for one, in order. A request is started
/// (`submit`) when a slot is free, else queued; `next` frees the slot of a finished request and
/// starts the first waiting one in it, on the calling thread.
private final class HostQueue: @unchecked Sendable {
    private var free: Int
    private var waiting: [() -> Void] = []
    private var head = 0
    private let lock = NSLock()
    init(slots: Int) { free = max(1, slots) }

    func submit(_ start: @escaping () -> Void) {
        lock.lock()
        if free > 0 {
            free -= 1
            lock.unlock()
            start()
        } else {
            waiting.append(start)
            lock.unlock()
        }
    }

    func next() {
        lock.lock()
        guard head < waiting.count else {
            free += 1
            lock.unlock()
            return
        }
        let start = waiting[head]
        head += 1
        if head == waiting.count { waiting.removeAll(keepingCapacity: true); head = 0 }
        lock.unlock()
        start()
    }
}

/// How maprender reads a tile server's answer headers: how long to wait before asking again, and
/// until when a tile may be used from the cache. (Public for the HTTP fuzz target and tools.)
public enum TileResponseHeaders {
    /// Seconds to wait from a `Retry-After` value (see `TileHTTPClient.retryAfter`); nil: ignored.
    public static func retryAfter(_ value: String) -> Double? { TileHTTPClient.retryAfter(value) }
    /// Seconds since 1970 until which a response may be used, from its headers (lower-cased
    /// names); nil: not to be kept (see `TileDiskCache.expiry`).
    public static func expiry(headers: [String: String], now: Date) -> Double? { TileDiskCache.expiry(headers: headers, now: now) }
}
