/// Label text as it is drawn: at most `maxCharacters` characters, then an ellipsis, so that
/// measuring, wrapping and placing a label costs the same for a 10 MB property as for a name.
public enum LabelText {
    /// Characters (grapheme clusters) of a label drawn before it is cut with "…".
    public static let maxCharacters = 200

    /// `text` when it is short enough, else its first `maxCharacters` characters and "…".
    ///
    /// - Complexity: O(min(length, maxCharacters)) beyond the O(1) UTF-8 count of a native string.
    /// Unicode noncharacters (U+FFFE, U+FFFF, U+FDD0–U+FDEF and U+nFFFE/U+nFFFF of every
    /// plane) are drawn as U+FFFD: Cairo's PDF writer refuses text holding them ("input string
    /// not valid UTF-8"), so every backend draws the same replacement.
    public static func truncated(_ text: String) -> String {
        let text = hasNoncharacter(text) ? replacingNoncharacters(text) : text
        guard text.utf8.count > maxCharacters else { return text }
        var end = text.startIndex, n = 0
        while end < text.endIndex && n < maxCharacters {
            text.formIndex(after: &end)
            n += 1
        }
        return end == text.endIndex ? text : String(text[..<end]) + "…"
    }

    /// Whether `text` holds a Unicode noncharacter. Every one is encoded with a lead byte of
    /// 0xEF (U+FDD0–U+FFFF) or 0xF0–0xF4 (the other planes), so text without those bytes (most
    /// Latin text) is passed over in one byte scan.
    public static func hasNoncharacter(_ text: String) -> Bool {
        guard text.utf8.contains(where: { $0 >= 0xEF }) else { return false }
        return text.unicodeScalars.contains(where: isNoncharacter)
    }

    static func isNoncharacter(_ u: Unicode.Scalar) -> Bool {
        (0xFDD0...0xFDEF).contains(u.value) || u.value & 0xFFFE == 0xFFFE
    }

    static func replacingNoncharacters(_ text: String) -> String {
        var out = String.UnicodeScalarView()
        for u in text.unicodeScalars { out.append(isNoncharacter(u) ? "\u{FFFD}" : u) }
        return String(out)
    }
}
