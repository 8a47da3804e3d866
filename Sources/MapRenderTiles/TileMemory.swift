/// The decoded tiles a `TileService` keeps between maps, bounded in bytes: least recently used
/// first out. A tile pushed out is read again from the disk cache (or its file) when a later map
/// needs it, so a batch never sends a second request for it while the disk cache keeps it.
///
/// Not thread-safe: the service calls it under its lock.
///
/// - Complexity: `value(for:)` and `insert` are O(1) on average (a dictionary and a doubly linked
///   list threaded through flat arrays of slots).
final class TileMemory<Value> {
    /// Bytes the values may hold together (default 256 MiB: about a thousand 256-px RGBA tiles).
    private(set) var limit: Int
    /// Bytes held now.
    private(set) var bytes = 0

    private var slots: [String: Int] = [:]
    private var keys: [String] = []
    private var values: [Value?] = []
    private var costs: [Int] = []
    private var prev: [Int] = []  // towards the most recent
    private var next: [Int] = []  // towards the least recent
    private var free: [Int] = []
    private var head = -1  // most recently used
    private var tail = -1  // least recently used

    init(limit: Int = 256 << 20) { self.limit = max(0, limit) }

    var count: Int { slots.count }

    /// Sets the limit, dropping the least recently used values until the total is within it.
    func setLimit(_ newLimit: Int) {
        limit = max(0, newLimit)
        while bytes > limit, tail >= 0 { remove(tail) }
    }

    /// The value for `key`, marked as just used.
    func value(for key: String) -> Value? {
        guard let s = slots[key] else { return nil }
        moveToFront(s)
        return values[s]
    }

    /// Keeps `value` (`cost` bytes), then drops the least recently used values until the total is
    /// within the limit. A value larger than the whole limit is not kept.
    func insert(_ value: Value, for key: String, cost: Int) {
        if let s = slots[key] { remove(s) }
        guard cost <= limit else { return }
        let s: Int
        if let f = free.popLast() {
            s = f
            keys[s] = key; values[s] = value; costs[s] = cost; prev[s] = -1; next[s] = -1
        } else {
            s = keys.count
            keys.append(key); values.append(value); costs.append(cost); prev.append(-1); next.append(-1)
        }
        slots[key] = s
        bytes += cost
        link(s)
        while bytes > limit, tail >= 0 { remove(tail) }
    }

    private func link(_ s: Int) {
        prev[s] = -1; next[s] = head
        if head >= 0 { prev[head] = s }
        head = s
        if tail < 0 { tail = s }
    }

    private func unlink(_ s: Int) {
        if prev[s] >= 0 { next[prev[s]] = next[s] } else { head = next[s] }
        if next[s] >= 0 { prev[next[s]] = prev[s] } else { tail = prev[s] }
    }

    private func moveToFront(_ s: Int) {
        guard head != s else { return }
        unlink(s)
        link(s)
    }

    private func remove(_ s: Int) {
        unlink(s)
        slots.removeValue(forKey: keys[s])
        bytes -= costs[s]
        values[s] = nil
        keys[s] = ""
        free.append(s)
    }
}
