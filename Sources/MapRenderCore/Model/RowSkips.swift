/// Rows of the input that one step derived from the rows (an arc, a circle) left out, counted by
/// reason with the first few point indexes, for one warning line:
/// `--to-lat/--to-lon: skipped 2 rows: destination latitude outside -90..90 (points 4, 9)`.
public struct RowSkips: Sendable, Equatable {
    /// What made the rows: named first in the warning (`--to-lat/--to-lon`).
    public var what: String
    public private(set) var counts: [String: Int] = [:]
    public private(set) var examples: [String: [Int]] = [:]
    /// Reasons in the order first seen.
    public private(set) var reasons: [String] = []

    public init(what: String) { self.what = what }

    public var total: Int { counts.values.reduce(0, +) }
    public var isEmpty: Bool { counts.isEmpty }

    public mutating func skip(_ reason: String, point: Int) {
        if counts[reason] == nil { reasons.append(reason) }
        counts[reason, default: 0] += 1
        if examples[reason, default: []].count < InputReport.maxExamples { examples[reason, default: []].append(point) }
    }

    /// The warning line; nil when nothing was skipped. Points are numbered from 0 in input order,
    /// as features are.
    public var message: String? {
        guard !isEmpty else { return nil }
        let parts = reasons.map { r -> String in
            let ex = examples[r] ?? []
            let more = counts[r]! > ex.count ? ", ..." : ""
            return "\(counts[r]!) \(r) (point\(ex.count == 1 ? "" : "s") \(ex.map(String.init).joined(separator: ", "))\(more))"
        }
        let n = total
        return "\(what): skipped \(n) row\(n == 1 ? "" : "s"): " + parts.joined(separator: "; ")
    }
}
