import Foundation
import FuzzSupport
import MapRenderTiles

/// A tile server's answer headers, one `Name: value` a line, as the HTTP client reads them:
/// `Retry-After` (seconds or an HTTP date, clamped) and the cache's expiry from `Cache-Control`
/// and `Expires`. Every result must be finite: it becomes a wait and a cache record.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzz(_ bytes: UnsafePointer<UInt8>, _ count: Int) -> CInt {
    let text = String(decoding: UnsafeBufferPointer(start: bytes, count: count), as: UTF8.self)
    var headers: [String: String] = [:]
    for line in text.split(separator: "\n", omittingEmptySubsequences: true) {
        guard let colon = line.firstIndex(of: ":") else { continue }
        let name = line[..<colon].trimmingCharacters(in: .whitespaces).lowercased()
        let value = line[line.index(after: colon)...].trimmingCharacters(in: .whitespaces)
        headers[name] = value
        if let wait = TileResponseHeaders.retryAfter(value) {
            precondition(wait.isFinite && wait >= 0, "Retry-After \(value) gave \(wait)")
        }
    }
    let now = Date(timeIntervalSince1970: 1_800_000_000)
    if let until = TileResponseHeaders.expiry(headers: headers, now: now) {
        precondition(until.isFinite, "expiry \(until) from \(headers)")
    }
    return 0
}

@_cdecl("fuzz_http_headers_main")
func fuzzMain(_ argc: CInt, _ argv: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>?) -> CInt {
    FuzzDriver.run(argc, argv, fuzz)
}
