/// Line-by-line comparison of text outputs (SVG golden files).
///
///     TextDiff.firstDifference("a\nb\n", "a\nc\n")   // (line: 2, expected: "b", actual: "c")
///
/// Lines end at any newline ("\n", "\r\n", "\r"), so line endings alone never differ.
public enum TextDiff {
    /// Shown for the missing side when one text has more lines than the other.
    public static let endOfText = "<end of text>"

    /// The first line (numbered from 1) where `expected` and `actual` differ, with both
    /// versions of it, or nil when they have the same lines.
    ///
    /// - Complexity: O(n) in the length of the shorter text up to the difference.
    public static func firstDifference(_ expected: String, _ actual: String) -> (line: Int, expected: String, actual: String)? {
        var e = expected.split(omittingEmptySubsequences: false, whereSeparator: \.isNewline).makeIterator()
        var a = actual.split(omittingEmptySubsequences: false, whereSeparator: \.isNewline).makeIterator()
        var line = 1
        while true {
            switch (e.next(), a.next()) {
            case (nil, nil):
                return nil
            case let (lhs?, rhs?):
                if lhs != rhs { return (line, String(lhs), String(rhs)) }
            case let (lhs?, nil):
                return (line, String(lhs), endOfText)
            case let (nil, rhs?):
                return (line, endOfText, String(rhs))
            }
            line += 1
        }
    }
}
