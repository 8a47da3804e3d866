/// Label text as it is drawn: at most `maxCharacters` characters, then an ellipsis, so that
/// measuring, wrapping and placing a label costs the same for a 10 MB property as for a name.
public enum LabelText {
    /// Characters (grapheme clusters) of a label drawn before it is cut with "…".
    public static let maxCharacters = 200

    /// `text` when it is short enough, else its first `maxCharacters` characters and "…".
    ///
    /// - Complexity: O(min(length, maxCharacters)) beyond the O(1) UTF-8 count of a native string.
    public static func truncated(_ text: String) -> String {
        guard text.utf8.count > maxCharacters else { return text }
        var end = text.startIndex, n = 0
        while end < text.endIndex && n < maxCharacters {
            text.formIndex(after: &end)
            n += 1
        }
        return end == text.endIndex ? text : String(text[..<end]) + "…"
    }
}
