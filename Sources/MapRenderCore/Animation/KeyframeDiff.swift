/// Matches the points of two keyframes by id.
///
/// Ids match by value *and* type, as in JSON: the number `1` and the string `"1"` are
/// different ids (`1` and `1.0` are the same number). The CSV reader turns a field that is a
/// JSON-style number into a number, so `007` stays the string "007" while `7` is the number 7;
/// a CSV and a GeoJSON keyframe match when the GeoJSON ids are numbers where the CSV's look
/// like numbers. Every point needs an id (`.missing` or `null` is an error) and an id may
/// appear once per keyframe.
public enum KeyframeDiff {
    /// The transition from keyframe `a` to keyframe `b`; `fileA`/`fileB` name them in errors.
    ///
    /// Errors (`MapRenderError.inputMalformed`) give the point's index in its set, 0-based
    /// (the feature index for GeoJSON with one point per feature):
    /// `day1.csv: feature 4 has no id (use --id-field)`,
    /// `day1.csv: duplicate id "X" (features 3 and 17)`. A's errors come first, then B's, each in
    /// its points' order.
    ///
    /// One table of ids serves both keyframes: A's ids take the numbers of their rows, B's either
    /// find one of them (moved or unchanged) or get a new number (inserted), and A's rows no B id
    /// found are deleted. A table per keyframe, as before, hashed every id twice and probed two
    /// tables at random (1M ids a keyframe: 650 ms, 2.2x from 250k to 500k ids).
    /// - Complexity: O(a.count + b.count) expected (hashing the ids).
    public static func diff(_ a: PointSet, _ b: PointSet, fileA: String, fileB: String) throws -> Transition {
        try checkHasIDs(a, file: fileA)
        try checkHasIDs(b, file: fileB)
        var table = IDTable(expectedCount: a.count + b.count)
        // By id number: the row of B that has it, -1 while none has.
        var rowInB = [Int32](repeating: -1, count: a.count + b.count)
        try insertAll(a.ids, into: &table, file: fileA) { i, number, inserted in
            if !inserted {
                throw MapRenderError(.inputMalformed,
                    "\(fileA): duplicate id \"\(a.ids[i].displayText ?? "")\" (features \(number) and \(i))")
            }
        }
        var tr = Transition()
        tr.reserveCapacity(b.count)
        try insertAll(b.ids, into: &table, file: fileB) { j, number, _ in
            let first = rowInB[number]
            if first >= 0 {
                throw MapRenderError(.inputMalformed,
                    "\(fileB): duplicate id \"\(b.ids[j].displayText ?? "")\" (features \(first) and \(j))")
            }
            rowInB[number] = Int32(j)
            let to = WrappedMercator.project(lon: b.lon[j], lat: b.lat[j])
            if number < a.count {
                let from = WrappedMercator.project(lon: a.lon[number], lat: a.lat[number])
                let kind: Transition.Kind = (from.x == to.x && from.y == to.y) ? .unchanged : .moved
                tr.append(id: b.ids[j], kind: kind, from: from, to: to, rowA: number, rowB: j)
            } else {
                tr.append(id: b.ids[j], kind: .inserted, from: to, to: to, rowA: -1, rowB: j)
            }
        }
        for i in 0..<a.count where rowInB[i] < 0 {
            let from = WrappedMercator.project(lon: a.lon[i], lat: a.lat[i])
            tr.append(id: a.ids[i], kind: .deleted, from: from, to: from, rowA: i, rowB: -1)
        }
        return tr
    }

    /// A set read without an id column has no ids at all.
    private static func checkHasIDs(_ set: PointSet, file: String) throws {
        if set.count > 0 && set.ids.count != set.count {
            throw MapRenderError(.inputMalformed, "\(file): feature \(set.ids.count) has no id (use --id-field)")
        }
    }

    /// Inserts `ids` in order, checking each has an id, and calls `body` with its place, its number
    /// in the table and whether it was new. The table's slot for the id 16 places on is fetched
    /// while this one is probed (each probe is a cache miss once the table outgrows the cache).
    private static func insertAll(_ ids: IDColumn, into table: inout IDTable, file: String,
                                  _ body: (Int, Int, Bool) throws -> Void) throws {
        let ahead = 16
        let n = ids.count
        var hashes = [IDTable.Hashed](repeating: IDTable.Hashed(hash: 0, isNumber: false), count: ahead)
        for k in 0..<min(ahead, n) {
            hashes[k] = IDTable.hashed(ids[k])
            table.prefetch(hashes[k])
        }
        for i in 0..<n {
            let id = ids[i]
            switch id {
            case .missing, .null:
                throw MapRenderError(.inputMalformed, "\(file): feature \(i) has no id (use --id-field)")
            default:
                break
            }
            let h = hashes[i % ahead]
            if i + ahead < n {
                let next = IDTable.hashed(ids[i + ahead])
                hashes[i % ahead] = next
                table.prefetch(next)
            }
            let (number, inserted) = table.insert(id, hashed: h)
            try body(i, number, inserted)
        }
    }
}
