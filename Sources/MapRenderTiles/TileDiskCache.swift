import Foundation

/// Tiles on disk, one file per URL (and byte range): a JSON header line, then the bytes.
///
/// Layout: `DIR/<host>/<FNV-1a 64 of the key, hex>.tile`. A tile is written to a temporary file
/// in the same folder and renamed over the old one, so a reader (this process or another sharing
/// the folder) sees the old tile or the new one, never half of one.
struct TileDiskCache: Sendable {
    struct Entry: Codable, Equatable {
        var key: String
        /// Seconds since 1970 after which the tile must be revalidated.
        var expires: Double
        var etag: String?
        var lastModified: String?
    }

    let directory: String

    func path(for key: String, host: String) -> String {
        var h: UInt64 = 0xcbf29ce484222325
        for b in key.utf8 { h = (h ^ UInt64(b)) &* 0x100000001b3 }
        let safeHost = host.isEmpty ? "local" : String(host.map { $0.isLetter || $0.isNumber || $0 == "." || $0 == "-" ? $0 : "_" })
        return "\(directory)/\(safeHost)/\(String(h, radix: 16)).tile"
    }

    func read(key: String, host: String) -> (entry: Entry, data: Data)? {
        guard let all = FileManager.default.contents(atPath: path(for: key, host: host)),
              let nl = all.firstIndex(of: 0x0A),
              let entry = try? JSONDecoder().decode(Entry.self, from: all[all.startIndex..<nl]),
              entry.key == key else { return nil }
        return (entry, all[(nl + 1)...])
    }

    func write(_ entry: Entry, data: Data, host: String) {
        let p = path(for: entry.key, host: host)
        let folder = (p as NSString).deletingLastPathComponent
        try? FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        let enc = JSONEncoder()
        enc.outputFormatting = [.sortedKeys]
        guard var all = try? enc.encode(entry) else { return }
        all.append(0x0A)
        all.append(data)
        let tmp = "\(p).\(ProcessInfo.processInfo.processIdentifier).\(UInt64.random(in: 0...UInt64.max)).tmp"
        guard FileManager.default.createFile(atPath: tmp, contents: all) else { return }
        if rename(tmp, p) != 0 { unlink(tmp) }
    }

    /// When a response may be used until, from its headers: `Cache-Control: no-store` → nil (do
    /// not keep), `no-cache` → now, `max-age` → now + age, else `Expires`, else now + 7 days (the
    /// OpenStreetMap tile usage policy asks clients to keep tiles at least that long).
    static func expiry(headers: [String: String], now: Date) -> Double? {
        let week = 7 * 24 * 3600.0
        if let cc = headers["cache-control"]?.lowercased() {
            let parts = cc.split(separator: ",").map { $0.trimmingCharacters(in: .whitespaces) }
            if parts.contains("no-store") { return nil }
            if parts.contains("no-cache") { return now.timeIntervalSince1970 }
            for p in parts where p.hasPrefix("max-age=") {
                if let s = Double(p.dropFirst(8)) { return now.timeIntervalSince1970 + max(0, s) }
            }
        }
        if let e = headers["expires"] {
            return httpDate(e)?.timeIntervalSince1970 ?? now.timeIntervalSince1970
        }
        return now.timeIntervalSince1970 + week
    }

    static func httpDate(_ s: String) -> Date? {
        let f = DateFormatter()
        f.locale = Locale(identifier: "en_US_POSIX")
        f.timeZone = TimeZone(identifier: "GMT")
        f.dateFormat = "EEE, dd MMM yyyy HH:mm:ss zzz"
        return f.date(from: s)
    }
}
