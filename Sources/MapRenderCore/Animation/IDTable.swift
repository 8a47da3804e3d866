import CPrefetch

/// Ids, each stored once, numbered in the order first inserted: matching the points of keyframes
/// by id, and giving every id one dense number across all keyframes.
///
/// A `Dictionary<PropertyValue, Int>` did this before. On 1M ids per keyframe it spent about
/// 1.5 s of a 2.7 s read hashing (SipHash for every number id), probing 32-byte buckets and
/// rehashing as it grew. Here the table is open addressing over one flat array sized up front: a
/// slot holds an id's number and its hash, so a probe compares ids only when the hashes match,
/// and number ids (the usual case) are hashed by mixing their bits and never compared at all.
///
/// Ids are equal exactly as `PropertyValue`s are (`1` and `1.0` are the same number, the number 1
/// and the string "1" are not, strings compare as Swift strings): strings are hashed with Swift's
/// own hasher, which agrees with its equality (canonically equivalent strings hash alike).
///
/// ```swift
/// var table = IDTable(expectedCount: ids.count)
/// for id in ids { _ = table.insert(id) }
/// table.index(of: .number(7))   // its number, or nil
/// ```
///
/// - Complexity: `insert` and `index(of:)` O(1) expected.
public struct IDTable: Sendable {
    /// The ids, by their number.
    public private(set) var ids: [PropertyValue] = []
    /// One slot: an id's number + 1 (0: empty) and its whole hash, side by side (a probe reads
    /// one cache line). For a number id the hash is a bijection of its bits, so an equal hash is
    /// an equal number and the id itself is not read.
    private struct Slot {
        var hash: UInt64 = 0
        var index: Int32 = 0
        var isNumber = false
    }
    private var slots: [Slot]
    private var mask: Int

    /// A table that holds `expectedCount` ids without growing.
    public init(expectedCount: Int = 0) {
        let capacity = Self.capacity(for: expectedCount)
        slots = [Slot](repeating: Slot(), count: capacity)
        mask = capacity - 1
        ids.reserveCapacity(expectedCount)
    }

    public var count: Int { ids.count }

    /// An id's hash, computed once for `prefetch` and `insert(_:hashed:)`.
    public struct Hashed: Sendable {
        var hash: UInt64
        var isNumber: Bool
    }

    public static func hashed(_ id: PropertyValue) -> Hashed {
        let (h, number) = hash(id)
        return Hashed(hash: h, isNumber: number)
    }

    /// Starts fetching the slot where a search for the id begins (an insert of it comes soon).
    @inline(__always)
    public func prefetch(_ h: Hashed) {
        slots.withUnsafeBufferPointer { mr_prefetch($0.baseAddress! + (Int(truncatingIfNeeded: h.hash) & mask)) }
    }

    /// The id's number, inserting it (with the next number) when new.
    public mutating func insert(_ id: PropertyValue) -> (index: Int, inserted: Bool) {
        insert(id, hashed: Self.hashed(id))
    }

    /// `insert(_:)` with the id's hash from `hashed(_:)`.
    public mutating func insert(_ id: PropertyValue, hashed: Hashed) -> (index: Int, inserted: Bool) {
        let h = hashed.hash, number = hashed.isNumber
        if let found = find(id, h, number) { return (found, false) }
        precondition(ids.count < Int(Int32.max) - 1, "more ids than an Int32 numbers")
        if 2 * (ids.count + 1) > slots.count { grow() }
        let index = ids.count
        ids.append(id)
        place(index, h, number)
        return (index, true)
    }

    /// The id's number, or nil.
    public func index(of id: PropertyValue) -> Int? {
        let (h, number) = Self.hash(id)
        return find(id, h, number)
    }

    private func find(_ id: PropertyValue, _ h: UInt64, _ number: Bool) -> Int? {
        var s = Int(truncatingIfNeeded: h) & mask
        return slots.withUnsafeBufferPointer { slots in
            while true {
                let slot = slots[s]
                if slot.index == 0 { return nil }
                if slot.hash == h && slot.isNumber == number && (number || ids[Int(slot.index) - 1] == id) {
                    return Int(slot.index) - 1
                }
                s = (s + 1) & mask
            }
        }
    }

    private mutating func place(_ index: Int, _ h: UInt64, _ number: Bool) {
        var s = Int(truncatingIfNeeded: h) & mask
        while slots[s].index != 0 { s = (s + 1) & mask }
        slots[s] = Slot(hash: h, index: Int32(index + 1), isNumber: number)
    }

    private mutating func grow() {
        let capacity = 2 * slots.count
        slots = [Slot](repeating: Slot(), count: capacity)
        mask = capacity - 1
        for (k, id) in ids.enumerated() {
            let (h, number) = Self.hash(id)
            place(k, h, number)
        }
    }

    /// Slots for `n` ids: a power of two, at most half full.
    private static func capacity(for n: Int) -> Int {
        var c = 16
        while c < 2 * n && c < 1 << 40 { c <<= 1 }
        return c
    }

    /// A 64-bit hash that agrees with `PropertyValue`'s equality, and whether it stands for the
    /// number itself (numbers but NaN, which equals nothing: compared as ids, never matched).
    static func hash(_ id: PropertyValue) -> (hash: UInt64, isNumber: Bool) {
        switch id {
        case .number(let d):
            // 0 and -0 are equal numbers: one bit pattern for both.
            return (Hash64.mix(d == 0 ? 0 : d.bitPattern), !d.isNaN)
        case .string(let s): return (Hash64.mix(UInt64(bitPattern: Int64(s.hashValue)) &+ 1), false)
        case .json(let s): return (Hash64.mix(UInt64(bitPattern: Int64(s.hashValue)) &+ 2), false)
        case .bool(let b): return (Hash64.mix(b ? 3 : 4), false)
        case .null: return (Hash64.mix(5), false)
        case .missing: return (Hash64.mix(6), false)
        }
    }
}
