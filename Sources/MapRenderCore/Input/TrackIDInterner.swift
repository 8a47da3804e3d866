import Foundation

/// Ids as the point readers make them (a JSON-style number is a number, other text a string),
/// each given a dense index; remembers the last id's bytes, since rows of one track usually
/// come together.
struct TrackIDInterner {
    private(set) var ids: [PropertyValue] = []
    private var indexByID: [PropertyValue: Int] = [:]
    private var lastBytes: [UInt8] = []
    private var lastIndex = -1

    var count: Int { ids.count }

    /// The index of the id in these bytes, adding it when new (`isNew` tells).
    mutating func index(_ p: UnsafePointer<UInt8>, _ n: Int) -> (index: Int, isNew: Bool) {
        if lastIndex >= 0 && lastBytes.count == n && memcmp(lastBytes, p, n) == 0 {
            return (lastIndex, false)
        }
        let id: PropertyValue
        if let d = FastNumber.parseJSONStyleNumber(p, n) {
            id = .number(d)
        } else {
            id = .string(String(decoding: UnsafeBufferPointer(start: p, count: n), as: UTF8.self))
        }
        lastBytes = Array(UnsafeBufferPointer(start: p, count: n))
        if let k = indexByID[id] {
            lastIndex = k
            return (k, false)
        }
        lastIndex = ids.count
        indexByID[id] = ids.count
        ids.append(id)
        return (lastIndex, true)
    }
}
