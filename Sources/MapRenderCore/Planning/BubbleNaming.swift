/// Which member names a bubble, and which property ranks labels.
///
/// `--label-priority FIELD` ranks by FIELD, larger first. Without it, a population-like column
/// (`population`, `pop`, `pop_max`, `pop_est`, any case) ranks larger first, or else a rank-like
/// column (`scalerank`, `labelrank`, `rank`: Natural Earth's, where 0 is the most important)
/// ranks smaller first; with neither, input order decides (the first member names the bubble).
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
            guard var v = properties.value(column: r.column, row: m).numberValue, v.isFinite else { continue }
            if r.smallerFirst { v = -v }
            if v > bestValue || (v == bestValue && m < best) { bestValue = v; best = m }
        }
        return best
    }
}
