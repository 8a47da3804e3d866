import CHTTP
import Foundation

/// One HTTP GET through libcurl (`CHTTP`), bounded as it streams in: the tile client's requests
/// and the server's `url-` marker images go through it. Three clocks from the start (the answer
/// must begin within `firstByte`, each later byte follow the last within `stall`, the whole be in
/// within `total`), the body stops at `maxBody` bytes (after Content-Encoding is undone), http
/// and https only. Connections and DNS answers are shared by the requests of one client.
public final class HTTPGetClient: @unchecked Sendable {
    public struct Limits: Sendable {
        /// Seconds.
        public var firstByte: Double
        public var stall: Double
        public var total: Double
        /// Bytes of body kept at most.
        public var maxBody: Int
        /// Redirects libcurl follows; 0: a 3xx is returned with its `location` header.
        public var maxRedirects: Int

        public init(firstByte: Double, stall: Double, total: Double, maxBody: Int, maxRedirects: Int) {
            self.firstByte = firstByte; self.stall = stall; self.total = total
            self.maxBody = maxBody; self.maxRedirects = maxRedirects
        }
    }

    /// What one request gave.
    public enum Sent: Sendable {
        /// An HTTP answer: its status, headers (names in lower case) and whole body (at most `maxBody`).
        case answer(Data, status: Int, headers: [String: String])
        /// No answer within `firstByte`, no byte for `stall`, or not whole within `total`: which, in words.
        case timedOut(String)
        /// Content-Length (when that was the reason) or the body past `maxBody`.
        case tooLarge(contentLength: Int64?)
        /// Anything else (refused connection, no HTTP, TLS): why, in words.
        case failed(String)
    }

    private let lock = NSLock()
    private var made: OpaquePointer?

    public init() {}

    deinit { mr_http_client_free(made) }

    /// libcurl's shared state, made at the first request.
    var client: OpaquePointer? {
        lock.lock(); defer { lock.unlock() }
        if made == nil { made = mr_http_client_new() }
        return made
    }

    /// Makes the request on the calling thread, which it blocks until the answer or a clock ends.
    public func get(_ url: String, headers: [String] = [], userAgent: String, limits: Limits) -> Sent {
        guard let client else { return .failed(mr_http_problem().map { String(cString: $0) } ?? "libcurl could not be set up") }
        let ms = { (s: Double) in Int(min(s * 1000, 1e12).rounded(.up)) }
        var response = mr_http_response()
        let cHeaders = headers.map { strdup($0) }
        defer { cHeaders.forEach { free($0) } }
        url.withCString { cURL in
            userAgent.withCString { ua in
                cHeaders.map { UnsafePointer($0) }.withUnsafeBufferPointer { list in
                    var q = mr_http_request(url: cURL, headers: list.baseAddress, header_count: Int32(list.count), user_agent: ua,
                                            first_byte_ms: ms(limits.firstByte), stall_ms: ms(limits.stall),
                                            total_ms: ms(limits.total), max_body: limits.maxBody, max_redirects: limits.maxRedirects)
                    mr_http_get(client, &q, &response)
                }
            }
        }
        defer { mr_http_free(response.body); mr_http_free(response.headers) }
        let error = withUnsafeBytes(of: response.error) { String(decoding: $0.prefix { $0 != 0 }, as: UTF8.self) }
        switch response.outcome {
        case Int32(MR_HTTP_ANSWER.rawValue):
            let body = response.body.map { Data(bytes: $0, count: response.body_length) } ?? Data()
            var fields: [String: String] = [:]
            if let h = response.headers {
                let text = String(decoding: UnsafeRawBufferPointer(start: h, count: response.headers_length), as: UTF8.self)
                for line in text.split(whereSeparator: { $0 == "\r\n" || $0 == "\n" || $0 == "\r" }) {
                    guard let colon = line.firstIndex(of: ":") else { continue }
                    let name = line[..<colon].trimmingCharacters(in: .whitespaces).lowercased()
                    let value = line[line.index(after: colon)...].trimmingCharacters(in: .whitespaces)
                    fields[name] = fields[name].map { $0 + ", " + value } ?? value
                }
            }
            return .answer(body, status: Int(response.status), headers: fields)
        case Int32(MR_HTTP_TIMED_OUT.rawValue):
            return .timedOut(error)
        case Int32(MR_HTTP_TOO_LARGE.rawValue):
            return .tooLarge(contentLength: response.content_length > Int64(limits.maxBody) ? response.content_length : nil)
        default:
            return .failed(error)
        }
    }
}
