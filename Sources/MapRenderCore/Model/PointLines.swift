/// Points joined into lines (`--line-by FIELD`): one path per value of a property, through the
/// points that have it, in input order or by another property (`--order-by`). GPS tracks by
/// device, a delivery round by stop number.
public struct PointLines: Sendable, Equatable {
    /// The property whose value names each line.
    public var field: String
    /// The property that orders each line's points (numbers ascending before text; ties and
    /// missing values keep input order); nil: input order.
    public var orderBy: String?

    public init(field: String, orderBy: String? = nil) { self.field = field; self.orderBy = orderBy }

    /// The lines, in the order their first point comes in the input, each with the properties
    /// of its first point (so a per-line `stroke` simplestyle colour applies). Points without the
    /// field, and values held by a single point, make no line. A field that is no property but
    /// the points have ids (a CSV column named `id`, GeoJSON feature ids) groups by the ids.
    /// Values are grouped by their text (`displayText`): the number 7 and the text "7" join.
    ///
    /// Flat: one group number per point (`Int32`), then the points of each group found by a
    /// counting sort into one array, so a million rows make no array or string per row. (A
    /// `String` key made per row, looked up in a `Dictionary`, and an array grown per line took
    /// 23 % of the samples of the 1M-row, 1,000-line run, more than the CSV's parsing on either
    /// of its two threads.)
    /// - Complexity: O(n) with one hash look-up per point, plus O(k log k) per line of k points
    ///   with `orderBy`.
    public func lines(from points: PointSet) -> ShapeSet {
        var out = ShapeSet()
        let column = points.properties.columnIndex(field)
        guard column != nil || !points.ids.isEmpty else { return out }
        let order = orderBy.flatMap { points.properties.columnIndex($0) }
        let n = points.count
        // 1. A group per distinct stored value, in first-seen order (`ValueGroups`).
        var groups = ValueGroups()
        var groupOfRow = [Int32](repeating: -1, count: n)
        func scan<C: RandomAccessCollection>(_ values: C) where C.Element == PropertyValue, C.Index == Int {
            for i in 0..<n {
                let v = values[i]
                switch v { case .missing, .null: continue; default: break }
                groupOfRow[i] = groups.group(of: v)
            }
        }
        if let c = column { scan(points.properties.columns[c]) } else { scan(points.ids) }
        let valueOfGroup = groups.values
        // 2. Values with the same text are one line (few values: one string each).
        var lineOfText: [String: Int32] = [:]
        var keys: [String] = []
        let lineOfGroup = valueOfGroup.map { v -> Int32 in
            let text = v.displayText ?? ""
            if let l = lineOfText[text] { return l }
            let l = Int32(keys.count)
            lineOfText[text] = l
            keys.append(text)
            return l
        }
        // 3. Each line's points, in input order, by a counting sort.
        var start = [Int](repeating: 0, count: keys.count + 1)
        for i in 0..<n where groupOfRow[i] >= 0 {
            let l = lineOfGroup[Int(groupOfRow[i])]
            groupOfRow[i] = l
            start[Int(l) + 1] += 1
        }
        for l in 0..<keys.count { start[l + 1] += start[l] }
        var fill = start
        var members = [Int](repeating: 0, count: start[keys.count])
        for i in 0..<n where groupOfRow[i] >= 0 {
            let l = Int(groupOfRow[i])
            members[fill[l]] = i
            fill[l] += 1
        }
        groupOfRow = []
        for c in points.properties.names { _ = out.properties.addColumn(c) }
        // Grouped by the ids: each line also has the id as the field's value (what names it).
        let idColumn = column == nil ? out.properties.addColumn(field) : nil
        let lon = points.lon, lat = points.lat
        for l in 0..<keys.count where start[l + 1] - start[l] >= 2 {
            if let o = order {
                let values = points.properties.columns[o]
                // (A stable order: ties keep input order, as members are ascending.)
                members[start[l]..<start[l + 1]].sort { a, b in
                    let c = Self.compare(values[a], values[b])
                    return c != 0 ? c < 0 : a < b
                }
            }
            let first = members[start[l]]
            let row = out.properties.rowCount
            out.properties.appendRow(points.properties.names.indices.map { ($0, points.properties.value(column: $0, row: first)) }
                                     + (idColumn.map { [($0, PropertyValue.string(keys[l]))] } ?? []))
            out.addRing(kind: .line, feature: first, row: row) { coords in
                // (No `reserveCapacity` here: it grows to exactly the size asked, so the whole
                // array was copied for every line; 1M rows into 1,000 lines took 7 s to read.)
                for k in start[l]..<start[l + 1] {
                    let i = members[k]
                    coords.append(lon[i]); coords.append(lat[i])
                }
                return true
            }
        }
        return out
    }

    /// Numbers ascending, then text, then anything else (missing last).
    static func compare(_ a: PropertyValue, _ b: PropertyValue) -> Int {
        func rank(_ v: PropertyValue) -> Int {
            switch v {
            case .number: return 0
            case .string: return 1
            case .missing, .null: return 3
            default: return 2
            }
        }
        let ra = rank(a), rb = rank(b)
        if ra != rb { return ra < rb ? -1 : 1 }
        switch (a, b) {
        case (.number(let x), .number(let y)): return x < y ? -1 : (x > y ? 1 : 0)
        case (.string(let x), .string(let y)): return x < y ? -1 : (x > y ? 1 : 0)
        default: return 0
        }
    }
}

/// The distinct values of a column, numbered in the order first seen, by how they are stored: a
/// number by its bits, a text hashed by its UTF-8 bytes (so -0 and 0, and mostly a text and its
/// other Unicode normal form, are two values here; `PointLines` joins values by their text after).
///
/// Open addressing over one flat array of group numbers, hashed by mixing the bits or bytes
/// (`Hash64`), not a `Dictionary`: a million look-ups of short device names spent most of their
/// time in SipHash (perf: `Hasher` about a tenth of the samples of the whole `--line-by` run).
/// - Complexity: `group(of:)` O(length of the value) expected.
struct ValueGroups {
    private(set) var values: [PropertyValue] = []
    private var hashes: [UInt64] = []
    private var slots = [Int32](repeating: 0, count: 64)   // group + 1; 0: empty

    /// The value's group, a new one when it is new.
    mutating func group(of v: PropertyValue) -> Int32 {
        let h = Self.hash(v)
        let mask = slots.count - 1
        var s = Int(truncatingIfNeeded: h) & mask
        while slots[s] != 0 {
            let g = Int(slots[s] - 1)
            if hashes[g] == h && Self.same(values[g], v) { return Int32(g) }
            s = (s + 1) & mask
        }
        precondition(values.count < Int(Int32.max) - 1, "more values than an Int32 numbers")
        let g = Int32(values.count)
        values.append(v)
        hashes.append(h)
        slots[s] = g + 1
        if 2 * values.count > slots.count { grow() }
        return g
    }

    private mutating func grow() {
        var bigger = [Int32](repeating: 0, count: 2 * slots.count)
        let mask = bigger.count - 1
        for g in values.indices {
            var s = Int(truncatingIfNeeded: hashes[g]) & mask
            while bigger[s] != 0 { s = (s + 1) & mask }
            bigger[s] = Int32(g + 1)
        }
        slots = bigger
    }

    static func hash(_ v: PropertyValue) -> UInt64 {
        switch v {
        case .missing: return Hash64.mix(1)
        case .null: return Hash64.mix(2)
        case .bool(let b): return Hash64.mix(b ? 3 : 4)
        case .number(let d): return Hash64.mix(d.bitPattern)
        case .string(let t): return bytesHash(t, seed: 5)
        case .json(let t): return bytesHash(t, seed: 6)
        }
    }

    /// FNV-1a over the bytes, then mixed (the bytes read in place: `withUTF8`).
    private static func bytesHash(_ t: String, seed: UInt64) -> UInt64 {
        var t = t
        return t.withUTF8 { bytes in
            var h: UInt64 = 0xCBF2_9CE4_8422_2325 ^ seed
            for b in bytes { h = (h ^ UInt64(b)) &* 0x100_0000_01B3 }
            return Hash64.mix(h)
        }
    }

    static func same(_ a: PropertyValue, _ b: PropertyValue) -> Bool {
        switch (a, b) {
        case (.missing, .missing), (.null, .null): return true
        case (.bool(let x), .bool(let y)): return x == y
        case (.number(let x), .number(let y)): return x.bitPattern == y.bitPattern
        // (Swift's `==`: bytes compared at once for ASCII. Texts equal in another Unicode normal
        // form hash apart and so meet here only by chance; joined or not, `lines` joins them by text.)
        case (.string(let x), .string(let y)), (.json(let x), .json(let y)): return x == y
        default: return false
        }
    }
}
