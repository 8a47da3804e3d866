import Foundation

/// An icon marker: a PNG or SVG file drawn in place of a marker shape (`--marker-icon`, the
/// style's `marker.icon`), read and checked once (`IconLoader` in MapRenderCairo) before any
/// planning, so that its size counts in fitting the view and in the labels' collision index.
///
/// The icon's box around its anchor is defined once (`MarkerGeometry.iconRect`); every backend
/// draws the file's bytes in that box: Cairo stamps it in raster output and keeps an SVG icon
/// as vector paths in SVG and PDF output, the animated SVG references it as an `<image>`.
public final class MarkerIcon: Hashable, Sendable, CustomStringConvertible {
    public enum Format: String, Sendable { case png, svg }

    /// Which point of the icon sits on the map position (MapLibre's `icon-anchor` names).
    public enum Anchor: String, Sendable, CaseIterable {
        case center, top, bottom, left, right
        case topLeft = "top-left", topRight = "top-right", bottomLeft = "bottom-left", bottomRight = "bottom-right"

        /// The anchor as a share of the icon's width and height from its top-left corner.
        public var fraction: (x: Double, y: Double) {
            switch self {
            case .center: return (0.5, 0.5)
            case .top: return (0.5, 0)
            case .bottom: return (0.5, 1)
            case .left: return (0, 0.5)
            case .right: return (1, 0.5)
            case .topLeft: return (0, 0)
            case .topRight: return (1, 0)
            case .bottomLeft: return (0, 1)
            case .bottomRight: return (1, 1)
            }
        }
    }

    /// The file as named (resolved against the style's folder), for messages.
    public let file: String
    public let format: Format
    /// The file's bytes, as read.
    public let bytes: [UInt8]
    /// The size drawn, CSS px (the image's own size times `marker.icon-size`).
    public let width: Double
    public let height: Double
    /// The anchor used: the one the style gives, else `bottom` for a pin-like icon (`pinLike`),
    /// `center` otherwise.
    public let anchor: Anchor
    /// Whether the icon narrows to a point at its bottom centre, as map pins do (see
    /// `IconShape.isPinLike`); decides the anchor when the style gives none.
    public let pinLike: Bool
    /// A digest of `bytes`, so that backends can cache what they decode from them.
    public let digest: UInt64

    public init(file: String, format: Format, bytes: [UInt8], width: Double, height: Double, anchor: Anchor, pinLike: Bool) {
        self.file = file; self.format = format; self.bytes = bytes
        self.width = width; self.height = height; self.anchor = anchor; self.pinLike = pinLike
        var h: UInt64 = UInt64(bytes.count)
        var word: UInt64 = 0, n = 0
        for b in bytes {
            word = word << 8 | UInt64(b); n += 1
            if n == 8 { h = Hash64.mix(h ^ word); word = 0; n = 0 }
        }
        digest = Hash64.mix(h ^ word ^ UInt64(n))
    }

    public static func == (a: MarkerIcon, b: MarkerIcon) -> Bool {
        a === b || (a.file == b.file && a.format == b.format && a.width == b.width && a.height == b.height
                    && a.anchor == b.anchor && a.digest == b.digest && a.bytes == b.bytes)
    }

    public func hash(into h: inout Hasher) {
        h.combine(file); h.combine(width); h.combine(height); h.combine(anchor); h.combine(digest)
    }

    public var description: String { "icon \(file) (\(format.rawValue), \(width)x\(height) px, anchor \(anchor.rawValue))" }
}

/// The rule that chooses an icon's default anchor, on its pixels (straight alpha, rows top to
/// bottom), so that it is tested without Cairo.
public enum IconShape {
    /// Whether an icon is pin-like: its ink (pixels at least half opaque) narrows to a point at
    /// its bottom centre. Measured at the row a tenth of the ink's height above its lowest row:
    /// there the ink is at most 30% as wide as at its widest row, and the middle of that row's
    /// ink lies within 15% of the ink's width from the ink's horizontal centre. A map pin or a
    /// downward triangle is pin-like; a circle (60% there), a square or a star is not.
    public static func isPinLike(alpha: [UInt8], width: Int, height: Int) -> Bool {
        guard width > 0, height > 0, alpha.count >= width * height else { return false }
        var spans = [(lo: Int, hi: Int)?](repeating: nil, count: height)
        for y in 0..<height {
            var lo = -1, hi = -1
            for x in 0..<width where alpha[y * width + x] >= 128 {
                if lo < 0 { lo = x }
                hi = x + 1
            }
            if lo >= 0 { spans[y] = (lo, hi) }
        }
        guard let top = spans.firstIndex(where: { $0 != nil }), let bottom = spans.lastIndex(where: { $0 != nil }) else { return false }
        let inkHeight = bottom - top + 1
        guard inkHeight >= 5 else { return false }
        var left = Int.max, right = Int.min, widest = 0
        for s in spans.compactMap({ $0 }) {
            left = min(left, s.lo); right = max(right, s.hi); widest = max(widest, s.hi - s.lo)
        }
        let probe = bottom - Int((Double(inkHeight) * 0.1).rounded())
        guard let s = spans[probe] else { return false }
        let centre = Double(left + right) / 2, mid = Double(s.lo + s.hi) / 2
        return Double(s.hi - s.lo) <= 0.3 * Double(widest) && abs(mid - centre) <= 0.15 * Double(right - left)
    }
}
