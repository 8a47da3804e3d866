/// Which member names a bubble, and which property ranks labels.
///
/// `--label-priority FIELD` ranks by FIELD, larger first. Without it, a population-like column
/// (`population`, `pop`, `pop_max`, `pop_est`, any case) ranks larger first, or else a rank-like
/// column (`scalerank`, `labelrank`, `rank`: Natural Earth's, where 0 is the most important)
/// ranks smaller first; with neither, a bubble is named after the label value most of its members
/// share when one stands out (`sharedLabel`), else it shows its count alone.
public enum BubbleNaming {
    public static let populationNames = ["population", "pop", "pop_max", "pop_est"]
    public static let rankNames = ["scalerank", "labelrank", "rank"]

    /// The property names a render should keep so that `rankColumn` can find them.
    public static var candidateNames: Set<String> {
        Set((populationNames + rankNames).flatMap { [$0, $0.uppercased(), $0.capitalized] })
    }

    public static func rankColumn(_ explicit: String?, properties: PropertyTable) -> (column: Int, smallerFirst: Bool)? {
        if let name = explicit { return properties.columnIndex(name).map { ($0, false) } }
        func find(_ names: [String]) -> Int? {
            for n in names {
                for i in properties.names.indices where properties.names[i].lowercased() == n { return i }
            }
            return nil
        }
        if let c = find(populationNames) { return (c, false) }
        if let c = find(rankNames) { return (c, true) }
        return nil
    }

    /// The member that names a bubble: the best-ranked, ties and unranked rows by input order.
    public static func representative(of members: [Int], properties: PropertyTable,
                                      rank: (column: Int, smallerFirst: Bool)?) -> Int? {
        guard var best = members.min() else { return nil }
        guard let r = rank else { return best }
        // One pass, O(members): ties go to the earlier row.
        var bestValue = -Double.infinity
        for m in members {
            let v = value(m, properties: properties, rank: r)
            if v > bestValue || (v == bestValue && m < best) { bestValue = v; best = m }
        }
        return best
    }

    /// Where a bubble is drawn, for `representative(of:...near:)`: its centre and the distance
    /// (world units) within which a member counts as lying under it.
    public struct Centre: Sendable {
        public var x: Double, y: Double
        public var reach: Double
        public init(x: Double, y: Double, reach: Double) { self.x = x; self.y = y; self.reach = reach }
    }

    /// How far from a bubble's centre its name may lie, in bubble radii: under the bubble or just
    /// beside it. (On the 34k world cities, the top members of the India and Central America
    /// bubbles, Chengdu and Lima, lie 2.1 and 2.9 radii away; Madrid and Rome, 1.3 radii from
    /// their bubbles' centres on a map of Europe, name them.)
    public static let reach = 1.5

    /// How many of the top-ranked members are considered when none lies within reach.
    public static let topMembers = 10

    /// The member that names a bubble drawn at `near`: the best-ranked member within `near.reach`
    /// of the centre; when none is, the nearest to the centre of the `topMembers` best-ranked.
    /// A cluster's weighted centre can lie far from its most important point (a cluster of India
    /// and western China whose largest city is Chengdu): the name then says where the bubble is.
    /// Ranks as `representative(of:properties:rank:)`; ties by input order. (Without a ranking a
    /// bubble is named by `sharedLabel`.)
    /// - Complexity: O(members · topMembers) at worst, one pass.
    public static func representative(of members: [Int], properties: PropertyTable,
                                      rank: (column: Int, smallerFirst: Bool),
                                      near c: Centre, x: [Double], y: [Double]) -> Int? {
        guard !members.isEmpty else { return nil }
        func distance2(_ m: Int) -> Double {
            var dx = x[m] - c.x
            dx -= dx.rounded()   // the nearer copy across the antimeridian
            let dy = y[m] - c.y
            return dx * dx + dy * dy
        }
        // (value, row) ordered best first: larger value, then earlier row.
        func better(_ a: (Double, Int), _ b: (Double, Int)) -> Bool { a.0 != b.0 ? a.0 > b.0 : a.1 < b.1 }
        let reach2 = c.reach * c.reach
        var bestNear: (Double, Int)?
        var top: [(Double, Int)] = []   // the topMembers best, best first
        top.reserveCapacity(topMembers + 1)
        for m in members {
            let v = value(m, properties: properties, rank: rank)
            let key = (v, m)
            if distance2(m) <= reach2, bestNear.map({ better(key, $0) }) ?? true { bestNear = key }
            if top.count < topMembers || better(key, top[top.count - 1]) {
                var i = top.count
                while i > 0 && better(key, top[i - 1]) { i -= 1 }
                top.insert(key, at: i)
                if top.count > topMembers { top.removeLast() }
            }
        }
        if let b = bestNear { return b.1 }
        // The nearest of the top members; equal distances go to the better-ranked.
        var pick = top[0].1, pickD = distance2(pick)
        for t in top.dropFirst() where distance2(t.1) < pickD { pick = t.1; pickD = distance2(t.1) }
        return pick
    }

    /// Without a ranking, the least share of a bubble's members that must carry one label value
    /// for it to name the bubble (`sharedLabel`).
    public static let sharedShare = 0.1

    /// Without a ranking: the member that names a bubble after the label value most of its members
    /// share (the flight table's rows at ORD name a bubble holding ORD "ORD +1392"), when it stands
    /// out: at least 2 members and a tenth of them (`sharedShare`) carry it, and no other value is
    /// carried by as many. The first such member in `members`' order; nil (the bubble shows its count
    /// alone) when no value stands out, as among 13k airports with different names.
    /// - Complexity: O(members), one dictionary of the distinct values.
    public static func sharedLabel(of members: [Int], properties: PropertyTable, column: Int) -> Int? {
        guard members.count >= 2, column >= 0, column < properties.columns.count else { return nil }
        var counts: [String: (count: Int, first: Int)] = [:]
        for m in members {
            guard let t = properties.value(column: column, row: m).displayText, !t.isEmpty else { continue }
            if let c = counts[t] { counts[t] = (c.count + 1, c.first) } else { counts[t] = (1, m) }
        }
        var best = (count: 0, first: -1), second = 0
        for c in counts.values {
            if c.count > best.count { second = best.count; best = c } else if c.count > second { second = c.count }
        }
        guard best.count >= 2, best.count > second,
              Double(best.count) >= sharedShare * Double(members.count) else { return nil }
        return best.first
    }

    /// Whether every member of a bubble carries its representative's label value (the 400 rows of
    /// one airport's routes, all "ORD"): the bubble then reads that value alone, "ORD", not
    /// "ORD +399", which would say 399 other places are under it. False without a representative
    /// or a label column, or when one member's value differs or is empty.
    /// - Complexity: O(members), stopping at the first member that differs.
    public static func allShare(_ members: [Int], representative: Int?, properties: PropertyTable, column: Int?) -> Bool {
        guard let rep = representative, let column, column >= 0, column < properties.columns.count,
              let name = properties.value(column: column, row: rep).displayText, !name.isEmpty else { return false }
        for m in members where m != rep {
            guard properties.value(column: column, row: m).displayText == name else { return false }
        }
        return true
    }

    /// A row's ranking value, larger is better; rows without a finite value rank last.
    private static func value(_ row: Int, properties: PropertyTable, rank r: (column: Int, smallerFirst: Bool)) -> Double {
        guard let v = properties.value(column: r.column, row: row).numberValue, v.isFinite else { return -.infinity }
        return r.smallerFirst ? -v : v
    }
}
