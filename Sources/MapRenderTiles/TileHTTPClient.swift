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
    /// Receives each request's answer as it arrives: its headers (a `Content-Length` past
    /// `maxBodyBytes` is refused there), its bytes (counted, stopped past the limit, each one a
    /// sign of progress for the stall timeout), its end.
    private let delegate: SessionDelegate
    private var session: URLSession {
        lock.lock(); defer { lock.unlock() }
        if let s = madeSession { return s }
        let config = URLSessionConfiguration.ephemeral
        // `HostQueue` keeps to `connectionsPerHost` requests in flight. libcurl's own cap is set
        // higher: a request given up while the server stalls it is cancelled, but its connection
        // can stay counted for seconds, and at an equal cap the next requests waited behind it.
        config.httpMaximumConnectionsPerHost = options.connectionsPerHost * 3
        // The timeouts are kept by `send`; these only stop a transfer that outlives them.
        config.timeoutIntervalForRequest = (options.timeout + 2).rounded(.up)
        config.timeoutIntervalForResource = (options.timeout + 2).rounded(.up)
        config.requestCachePolicy = .reloadIgnoringLocalCacheData
        config.urlCache = nil
        config.httpAdditionalHeaders = ["User-Agent": options.fullUserAgent]
        let s = URLSession(configuration: config, delegate: delegate, delegateQueue: nil)
        madeSession = s
        return s
    }
    private var hostQueues: [String: HostQueue] = [:]
    /// Per host: no request before this time (seconds since 1970), set by a Retry-After.
    private var hostNotBefore: [String: Double] = [:]
    private let lock = NSLock()
    /// Requests sent to servers (tests count them).
    private(set) var requestsSent = 0

    init(options: TileOptions) {
        self.options = options
        cache = TileDiskCache(directory: options.resolvedCacheDirectory, maxBytes: options.cacheMaxBytes)
        delegate = SessionDelegate(limit: options.maxBodyBytes)
    }

    /// Makes the session on another thread now, while the map's input is read, so that the tile
    /// stage's first request does not wait for it (~16M instructions, ~5-10 ms). A request made
    /// before it is ready waits for it (`session` holds the lock while making it).
    func warmUp() {
        guard !options.offline else { return }
        Thread.detachNewThread { [self] in _ = session }
    }

    deinit { madeSession?.invalidateAndCancel() }

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

        var request = URLRequest(url: u, timeoutInterval: (options.timeout + 2).rounded(.up))
        request.setValue(options.fullUserAgent, forHTTPHeaderField: "User-Agent")
        if let r = range { request.setValue("bytes=\(r.lowerBound)-\(r.upperBound)", forHTTPHeaderField: "Range") }
        if let c = cached {
            if let e = c.entry.etag { request.setValue(e, forHTTPHeaderField: "If-None-Match") }
            if let m = c.entry.lastModified { request.setValue(m, forHTTPHeaderField: "If-Modified-Since") }
        }
        let http: HTTPURLResponse, data: Data
        switch send(request, host: host) {
        case .answer(let d, let r): data = d; http = r
        case .timedOut(let why):
            guard attempt < options.retries else {
                return .failed("\(url): timed out after \(attempt + 1) attempt\(attempt == 0 ? "" : "s") (\(why))")
            }
            return .retry(after: backoff(attempt), attempt: attempt + 1)
        case .failed(let why): return .failed("\(url): \(why)")
        }
        var headers: [String: String] = [:]
        for (k, v) in http.allHeaderFields { headers[String(describing: k).lowercased()] = String(describing: v) }
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
        /// An HTTP answer and its whole body (at most `maxBodyBytes`).
        case answer(Data, HTTPURLResponse)
        /// No answer within `connectTimeout`, no byte for `stallTimeout`, or not whole within
        /// `timeout`: which, in words. Worth another attempt.
        case timedOut(String)
        /// Anything else (refused connection, a body past the limit, no HTTP): why, in words.
        case failed(String)
    }

    /// One request, holding one of the host's connection slots while it is in flight. When the
    /// host's slots are all taken, the request waits in the host's queue, and the request that
    /// frees a slot starts it from its own completion handler: on a cold map every request after
    /// the first two starts that way, with no thread woken in between (waking a waiting worker to
    /// start it cost ~1-2 ms a request on this 2-core VM, 21 times in a row for 42 tiles).
    ///
    /// Three clocks of our own, from the start (FoundationNetworking rounds the session's down to
    /// whole seconds, and its request timeout restarts with every byte, so a server dripping a
    /// byte a second would never time out): the answer must begin within `connectTimeout`, each
    /// later byte follow the last within `stallTimeout`, and the whole be in within `timeout`.
    func send(_ request: URLRequest, host: String) -> Sent {
        let call = HostCall()
        let queue = hostQueue(host)
        let start = { [self] in
            lock.lock(); requestsSent += 1; lock.unlock()
            let task = session.dataTask(with: request)
            call.began = DispatchTime.now().uptimeNanoseconds
            call.task = task
            delegate.register(task, call) {
                // The connection is free: the host's next request starts here, on this thread.
                if call.finish() { queue.next() }
                call.done.signal()
            }
            call.started.signal()
            task.resume()
        }
        queue.submit(start)
        call.started.wait()
        let seconds = { (s: Double) in UInt64(s * 1e9) }
        while true {
            let (firstByte, lastByte) = call.progress()
            let total = call.began + seconds(options.timeout)
            let progress = firstByte ? lastByte + seconds(options.stallTimeout) : call.began + seconds(options.connectTimeout)
            // In slices of at most 0.1 s: an answer refused for its size ends the request at once
            // (FoundationNetworking goes on reading a cancelled body for a while).
            let end = min(total, progress, DispatchTime.now().uptimeNanoseconds + 100_000_000)
            if call.done.wait(timeout: DispatchTime(uptimeNanoseconds: end)) == .success { break }
            if let refused = call.refusal() {
                delegate.forget(call.task)
                if call.finish() { queue.next() }
                if let task = call.task { delegate.cancel(task) }
                return .failed(refused)
            }
            // Progress may have been made while we slept: look again before giving up.
            let (f, l) = call.progress()
            let now = DispatchTime.now().uptimeNanoseconds
            let why: String
            if now >= total { why = "not whole within \(Self.format(options.timeout)) s" }
            else if !f, now >= call.began + seconds(options.connectTimeout) { why = "no answer within \(Self.format(options.connectTimeout)) s" }
            else if f, now >= l + seconds(options.stallTimeout) { why = "no byte for \(Self.format(options.stallTimeout)) s" }
            else { continue }
            delegate.forget(call.task)
            if call.finish() { queue.next() }
            // Cancelled on another thread: FoundationNetworking's cancel waits for the transfer's
            // queue, which a stalled transfer can hold, and this thread must not wait for it.
            if let task = call.task { delegate.cancel(task) }
            return .timedOut(why)
        }
        let (data, response, error, refused) = call.result()
        if let refused { return .failed(refused) }
        if let error {
            let why = Self.describe(error)
            return why == "timed out" ? .timedOut(why) : .failed(why)
        }
        guard let http = response as? HTTPURLResponse else { return .failed("no HTTP response") }
        return .answer(data, http)
    }

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

/// One request's state, shared by the thread that waits for it and the session's delegate. Its
/// slot is given back once (`finish`): when the request ends, or by `send` when it timed out,
/// whichever comes first.
private final class HostCall: @unchecked Sendable {
    let started = DispatchSemaphore(value: 0)
    let done = DispatchSemaphore(value: 0)
    var task: URLSessionDataTask?
    /// When the request started (`DispatchTime` nanoseconds).
    var began: UInt64 = 0
    private var data = Data()
    private var response: URLResponse?
    private var error: Error?
    /// Why the answer was refused (a body past the limit), when it was.
    private var refused: String?
    private var firstByte = false
    private var lastByte: UInt64 = 0
    private var finished = false
    private let lock = NSLock()

    /// True the first time only.
    func finish() -> Bool {
        lock.lock(); defer { lock.unlock() }
        if finished { return false }
        finished = true
        return true
    }

    /// Whether the answer has begun, and when its last byte came.
    func progress() -> (Bool, UInt64) {
        lock.lock(); defer { lock.unlock() }
        return (firstByte, lastByte)
    }

    func received(_ r: URLResponse) {
        lock.lock(); defer { lock.unlock() }
        response = r
        firstByte = true
        lastByte = DispatchTime.now().uptimeNanoseconds
    }

    /// Adds `d` to the body; false (and the body dropped) once it would pass `limit` bytes.
    func received(_ d: Data, limit: Int) -> Bool {
        lock.lock(); defer { lock.unlock() }
        firstByte = true
        lastByte = DispatchTime.now().uptimeNanoseconds
        if refused != nil { return false }
        guard data.count + d.count <= limit else {
            refused = "the body is larger than the \(HostCall.mib(limit)) maprender takes for a tile"
            data = Data()
            return false
        }
        data.append(d)
        return true
    }

    func refusal() -> String? {
        lock.lock(); defer { lock.unlock() }
        return refused
    }

    func refuse(_ why: String) {
        lock.lock(); defer { lock.unlock() }
        if refused == nil { refused = why }
    }

    func completed(_ e: Error?) {
        lock.lock(); defer { lock.unlock() }
        error = e
    }

    func result() -> (Data, URLResponse?, Error?, String?) {
        lock.lock(); defer { lock.unlock() }
        return (data, response, error, refused)
    }

    static func mib(_ n: Int) -> String { n % (1 << 20) == 0 ? "\(n >> 20) MiB" : "\(n) bytes" }
}

/// The session's delegate: hands each task's events to its `HostCall`.
private final class SessionDelegate: NSObject, URLSessionDataDelegate, @unchecked Sendable {
    let limit: Int
    private var calls: [Int: (HostCall, () -> Void)] = [:]
    private let lock = NSLock()
    init(limit: Int) { self.limit = limit }

    func register(_ task: URLSessionTask, _ call: HostCall, ended: @escaping () -> Void) {
        lock.lock(); calls[task.taskIdentifier] = (call, ended); lock.unlock()
    }

    /// Tasks that have ended, and tasks cancelled once: FoundationNetworking traps ("a task that
    /// is not in the registry") when a task is cancelled after it ended, so each is cancelled at
    /// most once and never after its end. (An id stays in `ended` for the session's life: ids
    /// are never reused, and a map asks a few hundred tiles.)
    private var ended = Set<Int>()
    private var cancelled = Set<Int>()

    /// Cancels `task` once, unless it has ended; on another thread, since FoundationNetworking's
    /// cancel waits for the transfer's queue, which a stalled transfer can hold.
    func cancel(_ task: URLSessionTask) {
        guard markCancelled(task) else { return }
        DispatchQueue.global().async { [self] in
            lock.lock()
            let over = ended.contains(task.taskIdentifier)
            lock.unlock()
            if !over { task.cancel() }
        }
    }

    /// False when `task` was cancelled before or has ended.
    @discardableResult
    func markCancelled(_ task: URLSessionTask) -> Bool {
        lock.lock(); defer { lock.unlock() }
        if ended.contains(task.taskIdentifier) { return false }
        return cancelled.insert(task.taskIdentifier).inserted
    }

    func forget(_ task: URLSessionTask?) {
        guard let task else { return }
        lock.lock(); calls.removeValue(forKey: task.taskIdentifier); lock.unlock()
    }

    private func call(_ task: URLSessionTask) -> HostCall? {
        lock.lock(); defer { lock.unlock() }
        return calls[task.taskIdentifier]?.0
    }

    func urlSession(_ session: URLSession, dataTask: URLSessionDataTask, didReceive response: URLResponse,
                    completionHandler: @Sendable @escaping (URLSession.ResponseDisposition) -> Void) {
        guard let call = call(dataTask) else { completionHandler(.cancel); return }
        call.received(response)
        // Content-Length says the size of the body as sent (compressed or not): refused at once.
        if let http = response as? HTTPURLResponse,
           let cl = http.value(forHTTPHeaderField: "Content-Length").flatMap({ Int64($0.trimmingCharacters(in: .whitespaces)) }),
           cl > Int64(limit) {
            call.refuse("Content-Length \(cl) is larger than the \(HostCall.mib(limit)) maprender takes for a tile")
            // (.cancel ends the task: cancelling it again once it has ended traps in FoundationNetworking.)
            markCancelled(dataTask)
            completionHandler(.cancel)
            return
        }
        completionHandler(.allow)
    }

    func urlSession(_ session: URLSession, dataTask: URLSessionDataTask, didReceive data: Data) {
        guard let call = call(dataTask) else { return }
        // Counted as it comes, after decompression: a gzip bomb stops at the limit too.
        // Cancelled from another thread: cancel waits for the transfer's queue.
        if !call.received(data, limit: limit) { cancel(dataTask) }
    }

    func urlSession(_ session: URLSession, task: URLSessionTask, didCompleteWithError error: Error?) {
        lock.lock()
        ended.insert(task.taskIdentifier)
        cancelled.remove(task.taskIdentifier)
        let entry = calls.removeValue(forKey: task.taskIdentifier)
        lock.unlock()
        guard let (call, ended) = entry else { return }
        call.completed(error)
        ended()
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
