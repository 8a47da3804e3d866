import Foundation
#if canImport(Glibc)
import Glibc
#endif

/// A small blocking HTTP/1.1 client on loopback sockets, for the server tests: it sends bytes
/// exactly as given (a 1 MB URL, a slow header, a half request) and reads the answer as it comes.
public enum LoopbackHTTP {
    public struct Answer: Sendable {
        public var status: Int
        public var headers: [String: String]   // lower-cased names
        public var body: Data
        public var text: String { String(decoding: body, as: UTF8.self) }
        /// The `error` of a JSON body, if any.
        public var error: String? {
            (try? JSONSerialization.jsonObject(with: body) as? [String: Any])?["error"] as? String
        }
    }

    public struct Failure: Error, CustomStringConvertible {
        public var description: String
        public init(description: String) { self.description = description }
    }

    /// A connected socket to 127.0.0.1:`port` with send and receive timeouts.
    public static func connect(port: Int, timeout: Double = 10) throws -> Int32 {
        let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        guard fd >= 0 else { throw Failure(description: "socket: \(errno)") }
        var tv = timeval(tv_sec: Int(timeout), tv_usec: Int((timeout - Double(Int(timeout))) * 1e6))
        setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &tv, socklen_t(MemoryLayout<timeval>.size))
        setsockopt(fd, SOL_SOCKET, SO_SNDTIMEO, &tv, socklen_t(MemoryLayout<timeval>.size))
        var addr = sockaddr_in()
        addr.sin_family = sa_family_t(AF_INET)
        addr.sin_port = in_port_t(UInt16(port).bigEndian)
        addr.sin_addr.s_addr = inet_addr("127.0.0.1")
        let r = withUnsafePointer(to: &addr) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { Glibc.connect(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) }
        }
        guard r == 0 else { let e = errno; close(fd); throw Failure(description: "connect: errno \(e)") }
        return fd
    }

    /// Sends all of `bytes`; false when the peer closed.
    @discardableResult
    public static func send(_ fd: Int32, _ bytes: Data) -> Bool {
        var sent = 0
        return bytes.withUnsafeBytes { raw -> Bool in
            while sent < raw.count {
                let n = Glibc.send(fd, raw.baseAddress! + sent, raw.count - sent, Int32(MSG_NOSIGNAL))
                if n <= 0 { return false }
                sent += n
            }
            return true
        }
    }

    /// Reads one answer (by Content-Length, else to the close); nil when the connection closed
    /// before a status line.
    public static func read(_ fd: Int32) throws -> Answer? {
        var buffer = Data()
        var chunk = [UInt8](repeating: 0, count: 65536)
        func more() -> Bool {
            let n = recv(fd, &chunk, chunk.count, 0)
            if n > 0 { buffer.append(contentsOf: chunk[0..<n]); return true }
            return false
        }
        let separator = Data("\r\n\r\n".utf8)
        var headEnd: Range<Data.Index>?
        while true {
            headEnd = buffer.range(of: separator)
            if headEnd != nil { break }
            guard more() else { return nil }
        }
        let head = String(decoding: buffer[..<headEnd!.lowerBound], as: UTF8.self)
        var lines = head.components(separatedBy: "\r\n")
        let statusLine = lines.removeFirst().split(separator: " ")
        guard statusLine.count >= 2, let status = Int(statusLine[1]) else { throw Failure(description: "bad status line: \(head.prefix(80))") }
        var headers: [String: String] = [:]
        for l in lines {
            guard let colon = l.firstIndex(of: ":") else { continue }
            headers[l[..<colon].lowercased()] = l[l.index(after: colon)...].trimmingCharacters(in: .whitespaces)
        }
        var body = Data(buffer[headEnd!.upperBound...])
        if status == 304 || status == 204 { return Answer(status: status, headers: headers, body: Data()) }
        if let lengthText = headers["content-length"], let length = Int(lengthText) {
            while body.count < length {
                let n = recv(fd, &chunk, chunk.count, 0)
                guard n > 0 else { break }
                body.append(contentsOf: chunk[0..<n])
            }
        } else if headers["transfer-encoding"]?.lowercased() == "chunked" {
            var raw = body
            var decoded = Data()
            while true {
                if let lineEnd = raw.range(of: Data("\r\n".utf8)) {
                    let size = Int(String(decoding: raw[..<lineEnd.lowerBound], as: UTF8.self), radix: 16) ?? 0
                    if size == 0 { break }
                    let start = lineEnd.upperBound
                    if raw.count - (start - raw.startIndex) >= size + 2 {
                        decoded.append(raw[start..<(start + size)])
                        raw = Data(raw[(start + size + 2)...])
                        continue
                    }
                }
                let n = recv(fd, &chunk, chunk.count, 0)
                guard n > 0 else { break }
                raw.append(contentsOf: chunk[0..<n])
            }
            body = decoded
        } else {
            while true {
                let n = recv(fd, &chunk, chunk.count, 0)
                guard n > 0 else { break }
                body.append(contentsOf: chunk[0..<n])
            }
        }
        return Answer(status: status, headers: headers, body: body)
    }

    /// One request on a new connection: `GET path` (or `method` with `body`), then the answer.
    public static func request(port: Int, _ path: String, headers: [String: String] = [:], timeout: Double = 20) throws -> Answer {
        try request(port: port, "GET", path, headers: headers, timeout: timeout)
    }

    public static func request(port: Int, _ method: String, _ path: String, body: Data? = nil,
                               headers: [String: String] = [:], timeout: Double = 20) throws -> Answer {
        let fd = try connect(port: port, timeout: timeout)
        defer { close(fd) }
        var head = "\(method) \(path) HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n"
        for (k, v) in headers { head += "\(k): \(v)\r\n" }
        if let body { head += "Content-Length: \(body.count)\r\nContent-Type: application/json\r\n" }
        head += "\r\n"
        var bytes = Data(head.utf8)
        if let body { bytes.append(body) }
        send(fd, bytes)
        guard let a = try read(fd) else { throw Failure(description: "the connection closed without an answer") }
        return a
    }

    /// Width and height of a PNG (its IHDR).
    public static func pngSize(_ d: Data) -> (Int, Int)? {
        guard d.count > 24, d.prefix(8) == Data([0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A]) else { return nil }
        let b = [UInt8](d.prefix(24))
        func be(_ i: Int) -> Int { Int(b[i]) << 24 | Int(b[i + 1]) << 16 | Int(b[i + 2]) << 8 | Int(b[i + 3]) }
        return (be(16), be(20))
    }
}
