import Foundation

/// Tiles on disk, one file per URL (and byte range): a JSON header line, then the bytes.
///
/// Layout: `DIR/<host>/<FNV-1a 64 of the key, hex>.tile`. A tile is written to a temporary file
/// in the same folder (`<name>.<pid>.<random>.tmp`) and renamed over the old one, so a reader
/// (this process or another sharing the folder) sees the old tile or the new one, never half of one.
///
/// Bounded: an entry holds at most `maxEntryBytes` (larger answers are not kept, and a larger
/// file is not read); with `maxBytes` the least recently used tiles (access time, set at each
/// read) are removed once the folder holds more. At the first write of a run, temporary files
/// left by a run that was killed (its process gone, or older than an hour) are removed. A folder
/// that cannot be used (a file, read-only) is said once (`takeProblem`), not at every tile.
final class TileDiskCache: @unchecked Sendable {
    struct Entry: Codable, Equatable {
        var key: String
        /// Seconds since 1970 after which the tile must be revalidated.
        var expires: Double
        var etag: String?
        var lastModified: String?
    }

    let directory: String
    let maxBytes: Int?
    /// The largest tile file read or written: a 16 MiB body (`TileOptions.maxBodyBytes`) and its header.
    static let maxEntryBytes = (16 << 20) + (64 << 10)

    private let lock = NSLock()
    private var prepared = false
    private var problem: String?
    private var problemTaken = false
    /// Bytes written since the folder's size was last brought under `maxBytes`.
    private var writtenSinceTrim = 0

    init(directory: String, maxBytes: Int? = nil) {
        self.directory = directory
        self.maxBytes = maxBytes
    }

    func path(for key: String, host: String) -> String {
        var h: UInt64 = 0xcbf29ce484222325
        for b in key.utf8 { h = (h ^ UInt64(b)) &* 0x100000001b3 }
        let safeHost = host.isEmpty ? "local" : String(host.map { $0.isLetter || $0.isNumber || $0 == "." || $0 == "-" ? $0 : "_" })
        return "\(directory)/\(safeHost)/\(String(h, radix: 16)).tile"
    }

    func read(key: String, host: String) -> (entry: Entry, data: Data)? {
        let p = path(for: key, host: host)
        var st = stat()
        guard stat(p, &st) == 0, (st.st_mode & S_IFMT) == S_IFREG, st.st_size <= Self.maxEntryBytes else { return nil }
        guard let all = FileManager.default.contents(atPath: p), all.count <= Self.maxEntryBytes,
              let nl = all.firstIndex(of: 0x0A),
              let entry = try? JSONDecoder().decode(Entry.self, from: all[all.startIndex..<nl]),
              entry.key == key else { return nil }
        if maxBytes != nil { touch(p) }
        return (entry, all[(nl + 1)...])
    }

    func write(_ entry: Entry, data: Data, host: String) {
        prepare()
        let p = path(for: entry.key, host: host)
        let folder = (p as NSString).deletingLastPathComponent
        let enc = JSONEncoder()
        enc.outputFormatting = [.sortedKeys]
        guard var all = try? enc.encode(entry) else { return }
        all.append(0x0A)
        all.append(data)
        guard all.count <= Self.maxEntryBytes else { return }
        do { try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true) }
        catch { return unusable("its folder cannot be made") }
        let tmp = "\(p).\(ProcessInfo.processInfo.processIdentifier).\(UInt64.random(in: 0...UInt64.max)).tmp"
        guard FileManager.default.createFile(atPath: tmp, contents: all) else {
            unlink(tmp)
            return unusable(access(folder, W_OK) != 0 ? "it is not writable" : "a tile cannot be written")
        }
        if rename(tmp, p) != 0 { unlink(tmp); return }
        guard let max = maxBytes else { return }
        lock.lock()
        writtenSinceTrim += all.count
        let due = writtenSinceTrim > Swift.max(max / 16, 1 << 20) || writtenSinceTrim > max
        if due { writtenSinceTrim = 0 }
        lock.unlock()
        if due { trim(to: max) }
    }

    /// Why the cache folder cannot be used, the first time it is asked after that was found.
    func takeProblem() -> String? {
        lock.lock(); defer { lock.unlock() }
        guard let p = problem, !problemTaken else { return nil }
        problemTaken = true
        return p
    }

    private func unusable(_ why: String) {
        lock.lock(); defer { lock.unlock() }
        if problem == nil {
            problem = "tile cache '\(directory)' cannot be used (\(why)): tiles are fetched again on every run"
        }
    }

    /// Once per run, before the first write: the folder made (or found unusable), temporary files
    /// of killed runs removed, and the folder brought under `maxBytes`.
    private func prepare() {
        lock.lock()
        if prepared { lock.unlock(); return }
        prepared = true
        lock.unlock()
        var isDir: ObjCBool = false
        if FileManager.default.fileExists(atPath: directory, isDirectory: &isDir), !isDir.boolValue {
            return unusable("it is not a folder")
        }
        do { try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true) }
        catch { return unusable("it cannot be made") }
        if access(directory, W_OK) != 0 { return unusable("it is not writable") }
        sweepTemporaryFiles()
        if let max = maxBytes { trim(to: max) }
    }

    /// Removes `*.tmp` files whose writer is gone (its process id no longer runs) or that are over an hour old.
    func sweepTemporaryFiles() {
        let fm = FileManager.default
        let now = Date().timeIntervalSince1970
        for host in (try? fm.contentsOfDirectory(atPath: directory)) ?? [] {
            let folder = "\(directory)/\(host)"
            for name in (try? fm.contentsOfDirectory(atPath: folder)) ?? [] where name.hasSuffix(".tmp") {
                let parts = name.split(separator: ".")
                let pid = parts.count >= 4 ? Int32(parts[parts.count - 3]) : nil
                let p = "\(folder)/\(name)"
                var st = stat()
                guard lstat(p, &st) == 0, (st.st_mode & S_IFMT) == S_IFREG else { continue }
                let gone = pid.map { kill($0, 0) != 0 && errno == ESRCH } ?? true
                if gone || now - Double(st.st_mtim.tv_sec) > 3600 { unlink(p) }
            }
        }
    }

    /// Removes the least recently used tiles (oldest access time first) until the folder holds at most `max` bytes.
    func trim(to max: Int) {
        let fm = FileManager.default
        var files: [(path: String, size: Int, used: Double)] = []
        var total = 0
        for host in (try? fm.contentsOfDirectory(atPath: directory)) ?? [] {
            let folder = "\(directory)/\(host)"
            for name in (try? fm.contentsOfDirectory(atPath: folder)) ?? [] where name.hasSuffix(".tile") {
                let p = "\(folder)/\(name)"
                var st = stat()
                guard lstat(p, &st) == 0, (st.st_mode & S_IFMT) == S_IFREG else { continue }
                let used = Double(st.st_atim.tv_sec) + Double(st.st_atim.tv_nsec) / 1e9
                files.append((p, Int(st.st_size), used))
                total += Int(st.st_size)
            }
        }
        guard total > max else { return }
        for f in files.sorted(by: { $0.used < $1.used }) {
            if total <= max { break }
            if unlink(f.path) == 0 { total -= f.size }
        }
    }

    /// Sets `p`'s access time to now (its modification time kept): the cache's order of use,
    /// whatever the mount's atime policy.
    private func touch(_ p: String) {
        var times = [timespec(tv_sec: 0, tv_nsec: (1 << 30) - 1 /* UTIME_NOW */), timespec(tv_sec: 0, tv_nsec: (1 << 30) - 2 /* UTIME_OMIT */)]
        _ = utimensat(AT_FDCWD, p, &times, 0)
    }

    /// When a response may be used until, from its headers: `Cache-Control: no-store` → nil (do
    /// not keep), `no-cache` → now, `max-age` → now + age, else `Expires`, else now + 7 days (the
    /// OpenStreetMap tile usage policy asks clients to keep tiles at least that long). Always
    /// finite: an age that is not digits is ignored, and ages are capped at a year.
    static func expiry(headers: [String: String], now: Date) -> Double? {
        let week = 7 * 24 * 3600.0
        if let cc = headers["cache-control"]?.lowercased() {
            let parts = cc.split(separator: ",").map { $0.trimmingCharacters(in: .whitespaces) }
            if parts.contains("no-store") { return nil }
            if parts.contains("no-cache") { return now.timeIntervalSince1970 }
            for p in parts where p.hasPrefix("max-age=") {
                // Digits only (`inf`, `nan`, `1e999` are not an age), at most a year.
                let age = p.dropFirst(8)
                if !age.isEmpty, age.utf8.allSatisfy({ $0 >= 0x30 && $0 <= 0x39 }), let s = Double(age) {
                    return now.timeIntervalSince1970 + min(s, 365 * 24 * 3600)
                }
            }
        }
        if let e = headers["expires"] {
            return httpDate(e)?.timeIntervalSince1970 ?? now.timeIntervalSince1970
        }
        return now.timeIntervalSince1970 + week
    }

    static func httpDate(_ s: String) -> Date? {
        // An HTTP-date is printable ASCII (RFC 9110 5.6.7), at most about 30 bytes. Anything
        // else is refused before Foundation's DateFormatter sees it: given
        // "Fri, 21\u{ECB}\u{FFFD}y-999 2:49:59 GMT" (a Retry-After the header fuzzer made) it
        // stops the process ("Incorrect range CFRange").
        guard s.utf8.count <= 64, s.utf8.allSatisfy({ $0 >= 0x20 && $0 < 0x7F }) else { return nil }
        let f = DateFormatter()
        f.locale = Locale(identifier: "en_US_POSIX")
        f.timeZone = TimeZone(identifier: "GMT")
        f.dateFormat = "EEE, dd MMM yyyy HH:mm:ss zzz"
        return f.date(from: s)
    }
}
