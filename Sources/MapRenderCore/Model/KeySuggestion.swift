/// "Did you mean …?" for misspelled style keys, expression operators and manifest keys.
public enum KeySuggestion {
    /// The closest candidate within a small edit distance (2, or a third of the key's length), or nil.
    public static func closest(to key: String, among candidates: [String]) -> String? {
        let scored = candidates.map { ($0, editDistance(key.lowercased(), $0.lowercased())) }.min { $0.1 < $1.1 }
        guard let (best, d) = scored, d <= max(2, key.count / 3) else { return nil }
        return best
    }

    /// Levenshtein distance, two rows.
    static func editDistance(_ a: String, _ b: String) -> Int {
        let a = Array(a), b = Array(b)
        if a.isEmpty || b.isEmpty { return max(a.count, b.count) }
        var previous = Array(0...b.count), current = [Int](repeating: 0, count: b.count + 1)
        for i in 1...a.count {
            current[0] = i
            for j in 1...b.count {
                current[j] = min(previous[j] + 1, current[j - 1] + 1, previous[j - 1] + (a[i - 1] == b[j - 1] ? 0 : 1))
            }
            swap(&previous, &current)
        }
        return previous[b.count]
    }
}
