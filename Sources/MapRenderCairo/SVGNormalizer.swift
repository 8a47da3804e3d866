import Foundation

/// Renumbers the ids in Cairo's SVG output.
///
/// Cairo 1.16 takes ids (`surface12`, `glyph3-1`, `clip4`, `image7`, ...) from process-wide counters,
/// so the second SVG rendered in one process (batch, animation) differs from the first.
/// Ids are renamed in order of first appearance per prefix, so equal drawings give equal bytes.
///
/// An id is `[A-Za-z_]+[0-9][0-9-]*`. It is defined as `id="ID"`, and referenced as `#ID` (or
/// `id="ID"`) followed by a quote or a closing parenthesis: only such whole tokens are replaced.
/// - Complexity: two passes over the bytes, writing the result once into one buffer (no regular
///   expressions, no per-replacement copies: 1M `<use xlink:href="#surface5">` stay linear).
enum SVGNormalizer {
    static func normalizeIDs(_ data: Data) -> Data {
        guard String(data: data, encoding: .utf8) != nil else { return data }
        return data.withUnsafeBytes { raw -> Data in
            let b = raw.bindMemory(to: UInt8.self)
            guard let base = b.baseAddress else { return data }
            let n = b.count
            @inline(__always) func isLetter(_ c: UInt8) -> Bool { (c >= 65 && c <= 90) || (c >= 97 && c <= 122) || c == 95 }
            @inline(__always) func isDigit(_ c: UInt8) -> Bool { c >= 48 && c <= 57 }
            /// The id starting at `i`: where its number starts and where it ends, or nil.
            func token(_ i: Int) -> (number: Int, end: Int)? {
                var j = i
                while j < n && isLetter(b[j]) { j += 1 }
                guard j > i, j < n, isDigit(b[j]) else { return nil }
                let number = j
                j += 1
                while j < n && (isDigit(b[j]) || b[j] == 45) { j += 1 }
                return (number, j)
            }
            /// Whether `id="` starts at `i`.
            @inline(__always) func idQuote(_ i: Int) -> Bool {
                i + 4 <= n && b[i] == 105 && b[i + 1] == 100 && b[i + 2] == 61 && b[i + 3] == 34
            }
            func text(_ from: Int, _ to: Int) -> String {
                String(decoding: UnsafeBufferPointer(rebasing: b[from..<to]), as: UTF8.self)
            }
            // Pass 1: definitions `id="ID"`, in order of first appearance.
            var mapping: [Slice: [UInt8]] = [:]
            var counters: [String: Int] = [:]
            var glyphFonts: [String: Int] = [:]
            var i = 0
            while i < n {
                guard idQuote(i), let t = token(i + 4), t.end < n, b[t.end] == 34 else { i += 1; continue }
                let old = Slice(base: base, start: i + 4, count: t.end - i - 4)
                if mapping[old] == nil {
                    let prefix = text(i + 4, t.number), number = text(t.number, t.end)
                    if prefix == "glyph", let dash = number.firstIndex(of: "-") {
                        // glyphF-G: F is a font counter, G the glyph within the font.
                        let font = String(number[..<dash])
                        let f = glyphFonts[font] ?? { let k = glyphFonts.count; glyphFonts[font] = k; return k }()
                        mapping[old] = Array("glyph\(f)-\(number[number.index(after: dash)...])".utf8)
                    } else {
                        let k = counters[prefix, default: 0]
                        counters[prefix] = k + 1
                        mapping[old] = Array("\(prefix)\(k)".utf8)
                    }
                }
                i = t.end + 1
            }
            guard !mapping.isEmpty else { return data }
            // Pass 2: every whole token after `id="` or `#`, followed by `"` or `)`, renamed.
            var out = [UInt8]()
            out.reserveCapacity(n + n / 16)
            var copied = 0
            i = 0
            while i < n {
                let start: Int
                if idQuote(i) { start = i + 4 } else if b[i] == 35 { start = i + 1 } else { i += 1; continue }
                guard let t = token(start), t.end < n, b[t.end] == 34 || b[t.end] == 41 else { i += 1; continue }
                if let new = mapping[Slice(base: base, start: start, count: t.end - start)] {
                    out.append(contentsOf: UnsafeBufferPointer(rebasing: b[copied..<start]))
                    out.append(contentsOf: new)
                    copied = t.end
                }
                i = t.end
            }
            out.append(contentsOf: UnsafeBufferPointer(rebasing: b[copied..<n]))
            return Data(out)
        }
    }

    /// A run of bytes in the SVG text, compared and hashed by content.
    private struct Slice: Hashable {
        let base: UnsafePointer<UInt8>, start: Int, count: Int
        static func == (a: Slice, b: Slice) -> Bool {
            a.count == b.count && memcmp(a.base + a.start, b.base + b.start, a.count) == 0
        }
        func hash(into h: inout Hasher) {
            h.combine(bytes: UnsafeRawBufferPointer(start: base + start, count: count))
        }
    }
}
