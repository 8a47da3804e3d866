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
    /// `day1.csv: duplicate id "X" (features 3 and 17)`.
    /// - Complexity: O(a.count + b.count) expected (hashing the ids).
    public static func diff(_ a: PointSet, _ b: PointSet, fileA: String, fileB: String) throws -> Transition {
        let rowsA = try index(a, file: fileA)
        let rowsB = try index(b, file: fileB)

        var tr = Transition()
        for j in 0..<b.count {
            let id = b.ids[j]
            let to = WrappedMercator.project(lon: b.lon[j], lat: b.lat[j])
            if let i = rowsA.index(of: id) {
                let from = WrappedMercator.project(lon: a.lon[i], lat: a.lat[i])
                let kind: Transition.Kind = (from.x == to.x && from.y == to.y) ? .unchanged : .moved
                tr.append(id: id, kind: kind, from: from, to: to, rowA: i, rowB: j)
            } else {
                tr.append(id: id, kind: .inserted, from: to, to: to, rowA: -1, rowB: j)
            }
        }
        for i in 0..<a.count where rowsB.index(of: a.ids[i]) == nil {
            let from = WrappedMercator.project(lon: a.lon[i], lat: a.lat[i])
            tr.append(id: a.ids[i], kind: .deleted, from: from, to: from, rowA: i, rowB: -1)
        }
        return tr
    }

    /// id → row, checking that every point has an id and no id repeats.
    private static func index(_ set: PointSet, file: String) throws -> IDTable {
        guard set.count > 0 else { return IDTable() }
        guard set.ids.count == set.count else {
            // A set read without an id column has no ids at all.
            throw MapRenderError(.inputMalformed, "\(file): feature \(set.ids.count) has no id (use --id-field)")
        }
        var rows = IDTable(expectedCount: set.count)
        for (i, id) in set.ids.enumerated() {
            switch id {
            case .missing, .null:
                throw MapRenderError(.inputMalformed, "\(file): feature \(i) has no id (use --id-field)")
            default:
                break
            }
            let (first, inserted) = rows.insert(id)
            if !inserted {
                throw MapRenderError(.inputMalformed,
                    "\(file): duplicate id \"\(id.displayText ?? "")\" (features \(first) and \(i))")
            }
        }
        return rows
    }
}
