import Foundation

/// Rendered images by ETag, least recently used evicted first, bounded in bytes (keys and
/// bodies). An image larger than an eighth of the bound is not kept.
final class ImageCache: @unchecked Sendable {
    struct Entry {
        var data: Data
        var contentType: String
        var used: UInt64
    }

    let limit: Int
    private let lock = NSLock()
    private var entries: [String: Entry] = [:]
    private var clock: UInt64 = 0
    private(set) var bytes = 0

    init(limit: Int) { self.limit = limit }

    var count: Int { lock.lock(); defer { lock.unlock() }; return entries.count }
    var size: Int { lock.lock(); defer { lock.unlock() }; return bytes }

    func get(_ key: String) -> (data: Data, contentType: String)? {
        lock.lock(); defer { lock.unlock() }
        guard var e = entries[key] else { return nil }
        clock += 1
        e.used = clock
        entries[key] = e
        return (e.data, e.contentType)
    }

    func put(_ key: String, _ data: Data, contentType: String) {
        let cost = data.count + key.utf8.count + 64
        guard limit > 0, cost <= limit / 8 else { return }
        lock.lock(); defer { lock.unlock() }
        clock += 1
        if let old = entries.updateValue(Entry(data: data, contentType: contentType, used: clock), forKey: key) {
            bytes -= old.data.count + key.utf8.count + 64
        }
        bytes += cost
        guard bytes > limit else { return }
        // Evict the least recently used down to 90 % of the bound: one sort per many puts.
        let order = entries.sorted { $0.value.used < $1.value.used }
        for (k, e) in order where bytes > limit * 9 / 10 {
            entries[k] = nil
            bytes -= e.data.count + k.utf8.count + 64
        }
    }
}
