/// A colour with straight (not premultiplied) alpha, components in 0...1.
public struct RGBA: Hashable, Sendable, CustomStringConvertible {
    public var r: Double, g: Double, b: Double, a: Double
    public init(_ r: Double, _ g: Double, _ b: Double, _ a: Double = 1) {
        self.r = r; self.g = g; self.b = b; self.a = a
    }

    public static let black = RGBA(0, 0, 0)
    public static let white = RGBA(1, 1, 1)
    public static let clear = RGBA(0, 0, 0, 0)

    public func withAlpha(_ alpha: Double) -> RGBA { RGBA(r, g, b, a * alpha) }

    /// `#rrggbb` or `#rrggbbaa`.
    public var description: String {
        func h(_ v: Double) -> String {
            let i = Int((min(max(v, 0), 1) * 255).rounded())
            return String(i, radix: 16).leftPad(2)
        }
        return "#" + h(r) + h(g) + h(b) + (a < 1 ? h(a) : "")
    }

    /// Parses `#rgb`, `#rgba`, `#rrggbb`, `#rrggbbaa`, `rgb(r,g,b)`, `rgba(r,g,b,a)`, `hsl(h,s%,l%)`,
    /// `hsla(h,s%,l%,a)` (as MapLibre styles write them) and CSS basic names.
    /// `#rgb`, `#rgba`, `#rrggbb` or `#rrggbbaa` in ASCII, perhaps between spaces or tabs,
    /// without Foundation: the same values as the general path, which a simplestyle column of
    /// hex colours reaches once a feature per map (4% of a served map's time went to trimming).
    /// Nil for anything else, which the general path then reads.
    static func parseASCIIHex(_ text: String) -> RGBA? {
        var nibbles: UInt64 = 0  // the digits, 4 bits each, first digit highest
        var n = 0, seenHash = false, ended = false
        for b in text.utf8 {
            if b == 0x20 || b == 0x09 {
                if seenHash { ended = true }
                continue
            }
            if ended { return nil }
            if !seenHash {
                guard b == 0x23 else { return nil }
                seenHash = true
                continue
            }
            let d: UInt8
            switch b {
            case 0x30...0x39: d = b - 0x30
            case 0x61...0x66: d = b - 0x61 + 10
            case 0x41...0x46: d = b - 0x41 + 10
            default: return nil
            }
            guard n < 8 else { return nil }
            nibbles = nibbles << 4 | UInt64(d)
            n += 1
        }
        func v(_ i: Int) -> Double { Double((nibbles >> UInt64(4 * (n - 1 - i))) & 0xf) }
        switch n {
        case 3, 4: return RGBA(v(0) / 15, v(1) / 15, v(2) / 15, n == 4 ? v(3) / 15 : 1)
        case 6, 8:
            func p(_ i: Int) -> Double { (v(i) * 16 + v(i + 1)) / 255 }
            return RGBA(p(0), p(2), p(4), n == 8 ? p(6) : 1)
        default: return nil
        }
    }

    public static func parse(_ text: String) -> RGBA? {
        parseASCIIHex(text) ?? parseGeneral(text)
    }

    /// Every form `parse` reads, through Foundation.
    static func parseGeneral(_ text: String) -> RGBA? {
        let s = text.trimmingCharacters(in: .whitespaces).lowercased()
        if s.hasPrefix("#") {
            let hex = Array(s.dropFirst())
            guard hex.allSatisfy(\.isHexDigit) else { return nil }
            let v = hex.map { Double(Int(String($0), radix: 16)!) }
            switch hex.count {
            case 3, 4:
                return RGBA(v[0] / 15, v[1] / 15, v[2] / 15, hex.count == 4 ? v[3] / 15 : 1)
            case 6, 8:
                func p(_ i: Int) -> Double { (v[i] * 16 + v[i + 1]) / 255 }
                return RGBA(p(0), p(2), p(4), hex.count == 8 ? p(6) : 1)
            default: return nil
            }
        }
        if s.hasPrefix("rgb"), let open = s.firstIndex(of: "("), s.hasSuffix(")") {
            let inner = s[s.index(after: open)..<s.index(before: s.endIndex)]
            let parts = inner.split(separator: ",").map { Double($0.trimmingCharacters(in: .whitespaces)) }
            guard parts.count == 3 || parts.count == 4, parts.allSatisfy({ $0 != nil }) else { return nil }
            let p = parts.map { $0! }
            guard p[0...2].allSatisfy({ (0...255).contains($0) }) else { return nil }
            let a = p.count == 4 ? p[3] : 1
            guard (0...1).contains(a) else { return nil }
            return RGBA(p[0] / 255, p[1] / 255, p[2] / 255, a)
        }
        if s.hasPrefix("hsl"), let open = s.firstIndex(of: "("), s.hasSuffix(")") {
            let inner = s[s.index(after: open)..<s.index(before: s.endIndex)]
            let parts = inner.split(separator: ",").map { Double($0.trimmingCharacters(in: .whitespaces).replacingOccurrences(of: "%", with: "")) }
            guard parts.count == 3 || parts.count == 4, parts.allSatisfy({ $0 != nil }) else { return nil }
            let p = parts.map { $0! }
            guard p.allSatisfy(\.isFinite), (0...100).contains(p[1]), (0...100).contains(p[2]) else { return nil }
            let a = p.count == 4 ? p[3] : 1
            guard (0...1).contains(a) else { return nil }
            // CSS Color 3's HSL to RGB.
            let h = (p[0].truncatingRemainder(dividingBy: 360) + 360).truncatingRemainder(dividingBy: 360) / 360
            let sat = p[1] / 100, l = p[2] / 100
            let m2 = l <= 0.5 ? l * (sat + 1) : l + sat - l * sat, m1 = l * 2 - m2
            func hue(_ t: Double) -> Double {
                let t = t < 0 ? t + 1 : t > 1 ? t - 1 : t
                if t * 6 < 1 { return m1 + (m2 - m1) * t * 6 }
                if t * 2 < 1 { return m2 }
                if t * 3 < 2 { return m1 + (m2 - m1) * (2.0 / 3 - t) * 6 }
                return m1
            }
            return RGBA(hue(h + 1.0 / 3), hue(h), hue(h - 1.0 / 3), a)
        }
        return namedColors[s]
    }

    static let namedColors: [String: RGBA] = [
        "black": RGBA(0, 0, 0), "white": RGBA(1, 1, 1), "red": RGBA(1, 0, 0),
        "green": RGBA(0, 128.0 / 255, 0), "blue": RGBA(0, 0, 1), "yellow": RGBA(1, 1, 0),
        "orange": RGBA(1, 165.0 / 255, 0), "purple": RGBA(128.0 / 255, 0, 128.0 / 255),
        "gray": RGBA(0.5, 0.5, 0.5), "grey": RGBA(0.5, 0.5, 0.5), "transparent": RGBA(0, 0, 0, 0),
    ]
}

extension String {
    func leftPad(_ n: Int, with c: Character = "0") -> String {
        count >= n ? self : String(repeating: c, count: n - count) + self
    }
}

import Foundation
