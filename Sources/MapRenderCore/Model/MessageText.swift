/// Text from files made safe to print in a one-line message.
public enum MessageText {
    /// Control characters (C0 but tab, DEL, C1) as `\u{1B}`, so bytes from a file never reach
    /// the terminal as escape sequences; a newline is escaped too unless `keepNewlines`.
    public static func escaped(_ s: String, keepNewlines: Bool = false) -> String {
        guard s.unicodeScalars.contains(where: { isControl($0) && !(keepNewlines && $0 == "\n") }) else { return s }
        var out = String.UnicodeScalarView()
        for u in s.unicodeScalars {
            if isControl(u) && !(keepNewlines && u == "\n") {
                out.append(contentsOf: "\\u{\(String(u.value, radix: 16, uppercase: true))}".unicodeScalars)
            } else {
                out.append(u)
            }
        }
        return String(out)
    }

    static func isControl(_ u: Unicode.Scalar) -> Bool {
        (u.value < 0x20 && u != "\t") || (0x7F...0x9F).contains(u.value)
    }

    /// A CSV header as shown in a message: its names (at most 30), escaped. Only when the line
    /// really looks like a CSV header — at least two fields, none longer than 100 characters —
    /// otherwise a description without content, so that a file given as input by mistake (a key,
    /// a password file) is never echoed: `the first line is not a CSV header (1 field, 23 bytes)`.
    public static func header(_ names: [String], lineBytes: Int) -> String {
        guard names.count >= 2, names.allSatisfy({ $0.count <= 100 }) else {
            return "the first line is not a CSV header (\(names.count) field\(names.count == 1 ? "" : "s"), \(lineBytes) bytes)"
        }
        var shown = names.prefix(30).map { escaped($0) }.joined(separator: ", ")
        if names.count > 30 { shown += ", ..." }
        return "header is: " + shown
    }
}
