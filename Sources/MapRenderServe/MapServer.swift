import Foundation
import Hummingbird
import HummingbirdCore
import HTTPTypes
import Logging
import MapRender
import NIOCore
import NIOHTTP1
import NIOHTTPTypes
import ServiceLifecycle

/// `maprender serve`: the HTTP side of `MapService` on Hummingbird.
///
/// Endpoints: `GET /static/...` (and `/maps/{data}/static/...`, `/styles/v1/{user}/{style}/static/...`
/// for Mapbox URLs as they are), `POST /render` (and `/maps/{data}/render`), `GET /health`,
/// `GET /metrics`. Every refusal is JSON, `{"error": "..."}`, with its status.
public enum MapServer {
    /// The Hummingbird application; `onListening` gets the bound port (for `port: 0`).
    public static func application(_ service: MapService, logger: Logger? = nil,
                                   onListening: @escaping @Sendable (Int) async -> Void = { _ in })
        -> some ApplicationProtocol {
        let c = service.configuration
        let router = Router(context: BasicRequestContext.self)
        router.add(middleware: ServeMiddleware(service: service))
        router.get("/health") { _, _ in response(service.health()) }
        router.get("/metrics") { _, _ in response(service.metricsText()) }
        router.get("/static/**") { request, _ in
            await staticMap(service, request, skip: 1, dataSet: nil, style: nil)
        }
        router.get("/maps/:name/static/**") { request, context in
            await staticMap(service, request, skip: 3, dataSet: context.parameters.get("name"), style: nil)
        }
        router.get("/styles/v1/:user/:style/static/**") { request, context in
            await staticMap(service, request, skip: 5, dataSet: nil, style: context.parameters.get("style"))
        }
        router.post("/render") { request, _ in await posted(service, request, dataSet: nil) }
        router.post("/maps/:name/render") { request, context in
            await posted(service, request, dataSet: context.parameters.get("name"))
        }
        var log = logger ?? Logger(label: "maprender-serve")
        if logger == nil { log.logLevel = .warning }
        let timeout = TimeAmount.nanoseconds(Int64(c.readTimeout * 1e9))
        // The decoder holds the request line with the headers: a URL up to 4 x --max-url (at
        // least 256 KiB) reaches the middleware, which answers 414 with its length; past that the
        // HTTP decoder stops reading (holding no more of it) and `HeadOverflowHandler` answers
        // 414 in JSON and closes the connection.
        let head = max(4 * c.maxURL, 256 << 10)
        var http = HTTP1Channel.Configuration(additionalChannelHandlers: [HeadOverflowHandler(service: service, limit: head),
                                                                         ReadDeadlineHandler(timeout: timeout)],
                                              idleTimeout: nil)
        http.httpDecoder = .init(maxHeaderFieldSize: head, maxHeaderListSize: head + 65536, maxHeaderFieldCount: 200)
        return Application(
            router: router,
            server: .http1(configuration: http),
            configuration: .init(address: .hostname(c.host, port: c.port), serverName: "maprender/\(MapRenderVersion.current)",
                                 backlog: 1024, availableConnectionsDelegate: MaximumAvailableConnections(c.maxConnections)),
            onServerRunning: { channel in await onListening(channel.localAddress?.port ?? c.port) },
            logger: log
        )
    }

    /// Serves until SIGTERM or SIGINT, then stops accepting connections, lets the requests in
    /// flight finish, and returns.
    public static func run(_ service: MapService, onListening: @escaping @Sendable (Int) async -> Void) async throws {
        var logger = Logger(label: "maprender-serve")
        logger.logLevel = .warning
        let app = application(service, logger: logger, onListening: onListening)
        let group = ServiceGroup(configuration: .init(services: [app], gracefulShutdownSignals: [.sigterm, .sigint], logger: logger))
        try await group.run()
    }

    // MARK: - Handlers

    static func staticMap(_ service: MapService, _ request: Request, skip: Int, dataSet: String?, style: String?) async -> Response {
        let segments = request.uri.path.split(separator: "/", omittingEmptySubsequences: false).dropFirst().dropFirst(skip)
        return response(await service.staticMap(segments: Array(segments), query: request.uri.query, dataSet: dataSet,
                                                mapboxStyle: style, ifNoneMatch: request.headers[.ifNoneMatch]))
    }

    static func posted(_ service: MapService, _ request: Request, dataSet: String?) async -> Response {
        let max = service.configuration.maxBody
        if let length = request.headers[.contentLength].flatMap(Int.init), length > max {
            return response(.error(ServeError(ServeError.tooLarge, "the body is \(length) bytes, more than \(max) (--max-body)")))
        }
        var req = request
        let body: ByteBuffer
        do {
            body = try await req.collectBody(upTo: max)
        } catch {
            return response(.error(ServeError(ServeError.tooLarge, "the body is more than \(max) bytes (--max-body)")))
        }
        return response(await service.postedMap(body: Data(body.readableBytesView), dataSet: dataSet,
                                                ifNoneMatch: request.headers[.ifNoneMatch]))
    }

    static func response(_ r: Reply) -> Response {
        var headers = HTTPFields()
        if !r.contentType.isEmpty { headers[.contentType] = r.contentType }
        for (k, v) in r.headers {
            if let name = HTTPField.Name(k) { headers[name] = v }
        }
        headers[cacheStatus] = r.cache
        return Response(status: .init(code: r.status), headers: headers,
                        body: r.status == 304 ? ResponseBody() : ResponseBody(byteBuffer: ByteBuffer(bytes: r.body)))
    }

    static let cacheStatus = HTTPField.Name("X-Maprender-Cache")!
}

/// Counts every request (in flight, by status, latency), answers a URL past the limit with 414,
/// turns the router's own errors (404, 405) into JSON, and writes the access log line.
struct ServeMiddleware: RouterMiddleware {
    typealias Context = BasicRequestContext
    let service: MapService

    func handle(_ request: Request, context: Context, next: (Request, Context) async throws -> Response) async throws -> Response {
        let start = DispatchTime.now().uptimeNanoseconds
        service.inFlight.up()
        defer { service.inFlight.down() }
        let uri = request.uri.description
        var response: Response
        if uri.utf8.count > service.configuration.maxURL {
            response = MapServer.response(.error(ServeError(ServeError.uriTooLong,
                "the URL is \(uri.utf8.count) bytes, more than \(service.configuration.maxURL) (--max-url); POST /render takes large data")))
        } else {
            do {
                response = try await next(request, context)
            } catch let e as HTTPError {
                let message = e.status.code == 404 ? "no such endpoint: \(request.method) \(request.uri.path.prefix(200)) (GET /static/..., /maps/NAME/static/..., POST /render, GET /health, GET /metrics)"
                    : (e.body ?? e.status.reasonPhrase)
                response = MapServer.response(.error(ServeError(e.status.code, message)))
            } catch {
                response = MapServer.response(.error(ServeError(ServeError.internalError, "\(error)")))
            }
        }
        let seconds = Double(DispatchTime.now().uptimeNanoseconds - start) / 1e9
        let path = request.uri.path
        let endpoint = path == "/health" ? "health" : path == "/metrics" ? "metrics"
            : request.method == .post ? "render" : path.contains("/static/") ? "static" : "other"
        service.record(endpoint: endpoint, status: response.status.code, seconds: seconds)
        if service.configuration.accessLog {
            AccessLog.write(method: request.method.rawValue, uri: uri, status: response.status.code,
                            bytes: response.body.contentLength, seconds: seconds,
                            cache: response.headers[MapServer.cacheStatus] ?? "-")
        }
        return response
    }
}

/// One line per request on standard error:
/// `2026-11-28T10:30:00Z GET /static/pin-s(2.35,48.85)/auto/600x400.png 200 12345 8.1ms cache=miss`.
enum AccessLog {
    private static let lock = NSLock()

    static func write(method: String, uri: String, status: Int, bytes: Int?, seconds: Double, cache: String) {
        let shown = uri.utf8.count > 2048 ? String(uri.prefix(2048)) + "...(\(uri.utf8.count) bytes)" : uri
        let clean = String(shown.unicodeScalars.map { $0.value < 0x20 || $0 == " " ? "_" : Character($0) })
        let line = "\(timestamp()) \(method) \(clean) \(status) \(bytes.map(String.init) ?? "-") "
            + String(format: "%.1fms", seconds * 1000) + " cache=\(cache)\n"
        lock.lock(); defer { lock.unlock() }
        // Never Foundation's trapping FileHandle.write: a closed stderr must not stop the server.
        StandardStreams.writeError(line)
    }

    static func timestamp() -> String {
        var t = time(nil), tm = tm()
        gmtime_r(&t, &tm)
        return String(format: "%04d-%02d-%02dT%02d:%02d:%02dZ", tm.tm_year + 1900, tm.tm_mon + 1, tm.tm_mday, tm.tm_hour, tm.tm_min, tm.tm_sec)
    }
}

/// Drops a connection that has not sent a whole request (head and body) within `timeout` of
/// its start, or of the end of the previous response on a kept-alive connection: slow clients
/// (slowloris) cannot hold connections open. The timer stops while a request is answered.
final class ReadDeadlineHandler: ChannelDuplexHandler, RemovableChannelHandler {
    typealias InboundIn = HTTPRequestPart
    typealias InboundOut = HTTPRequestPart
    typealias OutboundIn = HTTPResponsePart
    typealias OutboundOut = HTTPResponsePart

    let timeout: TimeAmount
    private var timer: Scheduled<Void>?

    init(timeout: TimeAmount) { self.timeout = timeout }

    func handlerAdded(context: ChannelHandlerContext) { arm(context) }

    func handlerRemoved(context: ChannelHandlerContext) {
        timer?.cancel()
        timer = nil
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        if case .end = unwrapInboundIn(data) {
            timer?.cancel()
            timer = nil
        }
        context.fireChannelRead(data)
    }

    func write(context: ChannelHandlerContext, data: NIOAny, promise: EventLoopPromise<Void>?) {
        if case .end = unwrapOutboundIn(data) { arm(context) }
        context.write(data, promise: promise)
    }

    private func arm(_ context: ChannelHandlerContext) {
        timer?.cancel()
        let channel = context.channel
        timer = context.eventLoop.scheduleTask(in: timeout) {
            channel.close(promise: nil)
        }
    }
}

/// Answers a request whose head (request line and headers) is past the HTTP decoder's limit
/// with a JSON 414, counted and logged as other requests are, and closes the connection.
///
/// NIO's decoder reports the overflow as `HTTPParserError.headerOverflow`, the same for a URL
/// and for a header field; Hummingbird 2 (`HTTPChannelHandler.handleHTTP`) answers any parser
/// error with a bare 400 and no body, and offers no hook for it. This handler sits between
/// Hummingbird's codec and its channel (`additionalChannelHandlers`), so it sees the error
/// first: it writes the answer itself, does not pass the error on (Hummingbird would write its
/// 400 after ours), and closes the connection's output. What the client still sends is read
/// and dropped (the decoder keeps none of it), so the client, still sending its URL, is not
/// reset before it reads the answer; `ReadDeadlineHandler` closes the connection within
/// --read-timeout if the client does not. Other parser errors keep Hummingbird's 400. The status is 414 whether a long URL or a huge header field
/// overflowed (the decoder does not say which); the message says both.
final class HeadOverflowHandler: ChannelDuplexHandler, RemovableChannelHandler {
    typealias InboundIn = HTTPRequestPart
    typealias InboundOut = HTTPRequestPart
    typealias OutboundIn = HTTPResponsePart
    typealias OutboundOut = HTTPResponsePart

    let service: MapService
    let limit: Int
    private var answering = false
    private var overflowed = false
    private var start = DispatchTime.now().uptimeNanoseconds

    init(service: MapService, limit: Int) { self.service = service; self.limit = limit }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        if case .head = unwrapInboundIn(data) { answering = true }
        context.fireChannelRead(data)
    }

    func write(context: ChannelHandlerContext, data: NIOAny, promise: EventLoopPromise<Void>?) {
        if case .end = unwrapOutboundIn(data) {
            answering = false
            start = DispatchTime.now().uptimeNanoseconds
        }
        context.write(data, promise: promise)
    }

    func errorCaught(context: ChannelHandlerContext, error: Error) {
        // The rest of the long head, arriving after the answer: dropped.
        if overflowed, error is ByteToMessageDecoderError { return }
        guard let e = error as? HTTPParserError, case .headerOverflow = e, !answering else {
            context.fireErrorCaught(error)
            return
        }
        let maxURL = service.configuration.maxURL
        let reply = Reply.error(ServeError(ServeError.uriTooLong,
            "the request line or a header is more than \(limit) bytes, far past the \(maxURL) bytes a URL may have (--max-url); POST /render takes large data"))
        let response = MapServer.response(reply)
        var fields = response.headers
        fields[.connection] = "close"
        fields[.contentLength] = String(reply.body.count)
        context.write(wrapOutboundOut(.head(HTTPResponse(status: response.status, headerFields: fields))), promise: nil)
        context.write(wrapOutboundOut(.body(ByteBuffer(bytes: reply.body))), promise: nil)
        let done = context.eventLoop.makePromise(of: Void.self)
        context.writeAndFlush(wrapOutboundOut(.end(nil)), promise: done)
        overflowed = true
        let channel = context.channel
        done.futureResult.whenComplete { _ in channel.close(mode: .output, promise: nil) }
        let seconds = Double(DispatchTime.now().uptimeNanoseconds - start) / 1e9
        service.record(endpoint: "other", status: ServeError.uriTooLong, seconds: seconds)
        if service.configuration.accessLog {
            AccessLog.write(method: "-", uri: "(a request head over \(limit) bytes)", status: ServeError.uriTooLong,
                            bytes: reply.body.count, seconds: seconds, cache: "-")
        }
    }
}
