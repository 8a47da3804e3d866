import Foundation

/// Renumbers the ids in Cairo's SVG output.
///
/// Cairo 1.16 takes ids (`surface12`, `glyph3-1`, `clip4`, `image7`, ...) from process-wide counters,
/// so the second SVG rendered in one process (batch, animation) differs from the first.
/// Ids are renamed in order of first appearance per prefix, so equal drawings give equal bytes.
enum SVGNormalizer {
    static func normalizeIDs(_ data: Data) -> Data {
        guard var text = String(data: data, encoding: .utf8) else { return data }
        let idPattern = try! NSRegularExpression(pattern: #"id="([A-Za-z_]+)([0-9][0-9-]*)""#)
        let ns = text as NSString
        var mapping: [String: String] = [:]
        var counters: [String: Int] = [:]
        var glyphFonts: [String: Int] = [:]
        for m in idPattern.matches(in: text, range: NSRange(location: 0, length: ns.length)) {
            let prefix = ns.substring(with: m.range(at: 1))
            let number = ns.substring(with: m.range(at: 2))
            let old = prefix + number
            guard mapping[old] == nil else { continue }
            if prefix == "glyph", let dash = number.firstIndex(of: "-") {
                // glyphF-G: F is a font counter, G the glyph within the font.
                let font = String(number[..<dash])
                let f = glyphFonts[font] ?? { let n = glyphFonts.count; glyphFonts[font] = n; return n }()
                mapping[old] = "glyph\(f)-\(number[number.index(after: dash)...])"
            } else {
                let n = counters[prefix, default: 0]
                counters[prefix] = n + 1
                mapping[old] = "\(prefix)\(n)"
            }
        }
        guard !mapping.isEmpty else { return data }
        // Replace whole tokens only: an id followed by a quote or a closing parenthesis.
        let refPattern = try! NSRegularExpression(pattern: #"(id="|#)([A-Za-z_]+[0-9][0-9-]*)(?=[")])"#)
        let result = NSMutableString(string: text)
        for m in refPattern.matches(in: text, range: NSRange(location: 0, length: ns.length)).reversed() {
            let old = ns.substring(with: m.range(at: 2))
            if let new = mapping[old] { result.replaceCharacters(in: m.range(at: 2), with: new) }
        }
        text = result as String
        return Data(text.utf8)
    }
}
