import Foundation

/// The text of a MapLibre symbol layer: what to write at each point feature and how.
/// Every value is an expression (constants folded), evaluated per feature and zoom.
public struct SymbolStyle: Sendable {
    /// `text-field`: `"{name}"` tokens become `["get", "name"]`; nil: the layer writes nothing.
    public var field: StyleExpression?
    public var size = StyleExpression(constant: .number(16))
    public var color = StyleExpression(constant: .color(RGBA(0, 0, 0, 1)))
    public var haloColor = StyleExpression(constant: .color(RGBA(0, 0, 0, 0)))
    public var haloWidth = StyleExpression(constant: .number(0))
    public var opacity = StyleExpression(constant: .number(1))
    /// `text-halo-blur`, px.
    public var haloBlur = StyleExpression(constant: .number(0))
    /// `text-letter-spacing`, ems.
    public var letterSpacing = StyleExpression(constant: .number(0))
    public var sortKey: StyleExpression?
    /// `text-font`'s first font stack entry mapped to a fontconfig family and weight (`font(_:)`).
    public var font = FontSpec(family: "DejaVu Sans", size: 16, weight: .normal)
    /// `text-anchor`: which side of the text sits on the point (by zoom and by feature).
    public var anchor = StyleExpression(constant: .string("center"))
    /// `text-justify`: `left`, `center`, `right` or `auto` (by the anchor): how the lines of a
    /// wrapped label sit on each other.
    public var justify = "center"
    /// `text-translate`: the text moved by this many px (right, down) after it is placed.
    public var translate = (x: 0.0, y: 0.0)
    /// `text-rotation-alignment: viewport` on a line-placed layer: the text level, centred on the
    /// points along the line where MapLibre would lay it.
    public var lineLevel = false
    /// `text-offset` in ems.
    public var offset = (x: 0.0, y: 0.0)
    /// `text-transform`.
    public var transform = "none"
    /// `text-max-width` in ems: longer text wraps, lines centred (MapLibre's default 10).
    public var maxWidth = 10.0
    /// `symbol-placement: line` or `line-center`: the text laid along the feature's lines
    /// (`LineLabelPlacement`); `line-center` once, at the middle of each line.
    public var placementLine = false
    public var placementLineCenter = false
    /// `symbol-spacing`: between repeated labels along a line, CSS px (MapLibre's default 250).
    public var spacing = 250.0
    /// `text-max-angle`: the most a line may turn under its label, degrees (default 45).
    public var maxAngle = 45.0

    /// `icon-image`: a sprite image's name (`{token}`s and expressions); nil: no icon.
    public var iconImage: StyleExpression?
    /// `icon-size`: times the image's own size.
    public var iconSize = StyleExpression(constant: .number(1))
    public var iconOpacity = StyleExpression(constant: .number(1))
    /// `icon-anchor`: which side of the icon sits on the point.
    public var iconAnchor = "center"
    /// `icon-offset`: px, times `icon-size`.
    public var iconOffset = (x: 0.0, y: 0.0)
    /// `icon-allow-overlap`: the icon is drawn where it collides (and still holds its place).
    public var iconAllowOverlap = false
    /// `icon-color`, `icon-halo-color`, `icon-halo-width`, `icon-halo-blur`: the paint of a
    /// signed-distance-field icon (`"sdf": true` in the sprite); other icons keep their pixels.
    public var iconColor = StyleExpression(constant: .color(RGBA(0, 0, 0, 1)))
    public var iconHaloColor = StyleExpression(constant: .color(RGBA(0, 0, 0, 0)))
    public var iconHaloWidth = StyleExpression(constant: .number(0))
    public var iconHaloBlur = StyleExpression(constant: .number(0))
    /// `icon-text-fit`: `none`, `width`, `height` or `both`: the icon stretched over its text's
    /// box in that direction, grown by `icon-text-fit-padding` (top, right, bottom, left, px).
    public var iconTextFit = "none"
    public var iconTextFitPadding = (top: 0.0, right: 0.0, bottom: 0.0, left: 0.0)
    /// `text-optional`, `icon-optional`: the symbol is shown without its text (icon) when only
    /// its icon (text) fits.
    public var textOptional = false
    public var iconOptional = false

    public init() {}

    /// Layout and paint keys drawn.
    static let drawn: Set<String> = ["text-field", "text-size", "text-font", "text-color", "text-halo-color", "text-halo-width",
                                     "text-opacity", "text-halo-blur", "text-letter-spacing", "text-anchor", "text-offset", "text-transform", "symbol-sort-key",
                                     "text-justify", "text-translate", "text-translate-anchor",
                                     "symbol-placement", "text-max-width", "symbol-spacing", "text-max-angle",
                                     "text-rotation-alignment", "text-pitch-alignment", "text-keep-upright",
                                     "icon-image", "icon-size", "icon-opacity", "icon-anchor", "icon-offset", "icon-allow-overlap",
                                     "text-optional", "icon-optional", "icon-color", "icon-halo-color", "icon-halo-width",
                                     "icon-halo-blur", "icon-text-fit", "icon-text-fit-padding"]

    /// `"{name} ({ele})"` → `["concat", ["get", "name"], " (", ["get", "ele"], ")"]`.
    static func tokens(_ s: String) -> Any {
        guard s.contains("{") else { return s }
        var parts: [Any] = []
        var rest = Substring(s)
        while let open = rest.firstIndex(of: "{"), let close = rest[open...].firstIndex(of: "}") {
            if open > rest.startIndex { parts.append(String(rest[..<open])) }
            parts.append(["to-string", ["get", String(rest[rest.index(after: open)..<close])]] as [Any])
            rest = rest[rest.index(after: close)...]
        }
        if !rest.isEmpty { parts.append(String(rest)) }
        return parts.count == 1 ? parts[0] : ["concat"] + parts
    }

    /// A MapLibre font stack's first name ("Noto Sans Bold", "Metropolis Medium Italic") → a
    /// fontconfig family (the name without its style words: "Noto Sans", "Metropolis") and the
    /// weight the style words say, then DejaVu Sans: Pango takes the first of the two that
    /// fontconfig has (with the pinned fonts, DejaVu Sans), so a stack naming fonts this machine
    /// lacks still draws.
    static func font(_ names: [String]) -> FontSpec {
        let words = (names.first ?? "").split(separator: " ").map(String.init)
        let styles: Set<String> = ["regular", "bold", "semibold", "extrabold", "black", "heavy", "medium", "light", "extralight",
                                   "thin", "italic", "oblique", "condensed", "narrow", "book", "roman"]
        var family = words
        while let last = family.last, styles.contains(last.lowercased()) { family.removeLast() }
        let lower = words.map { $0.lowercased() }
        let bold = lower.contains { ["bold", "semibold", "extrabold", "black", "heavy", "medium"].contains($0) }
        // DejaVu Sans after it: fontconfig's own substitute for an unknown family may be any
        // installed font (with the pinned ones, Lohit Devanagari).
        let name = family.joined(separator: " ")
        return FontSpec(family: name.isEmpty || name == "DejaVu Sans" ? "DejaVu Sans" : "\(name),DejaVu Sans", size: 16, weight: bold ? .bold : .normal)
    }

    static func read(layout: [String: Any], paint: [String: Any], file: String, path: String, notes: inout [String]) -> SymbolStyle {
        var s = SymbolStyle()
        func expr(_ m: [String: Any], _ key: String, _ t: ExpressionType, _ where_: String) -> StyleExpression? {
            guard var v = m[key] else { return nil }
            if key == "text-field", let str = v as? String { v = tokens(str) }
            if key == "text-field", let o = v as? [String: Any], let stops = o["stops"] as? [[Any]] {
                // A legacy function of token strings.
                var copy = o
                copy["stops"] = stops.map { pair in pair.count == 2 ? [pair[0], (pair[1] as? String).map(tokens) ?? pair[1]] : pair }
                v = copy
            }
            do { return try StyleExpression.parseProperty(v, file: file, path: "\(path).\(where_).\(key)", expecting: t) }
            catch { notes.append("\(key) (an expression not read)"); return nil }
        }
        s.field = expr(layout, "text-field", .string, "layout")
        if let v = layout["icon-image"] {
            // `{token}`s as text-field's.
            var raw: Any = v
            if let str = v as? String { raw = tokens(str) }
            do { s.iconImage = try StyleExpression.parseProperty(raw, file: file, path: "\(path).layout.icon-image", expecting: .string) }
            catch { notes.append("icon-image (an expression not read)") }
        }
        if let e = expr(layout, "icon-size", .number, "layout") { s.iconSize = e }
        if let e = expr(paint, "icon-color", .color, "paint") { s.iconColor = e }
        if let e = expr(paint, "icon-halo-color", .color, "paint") { s.iconHaloColor = e }
        if let e = expr(paint, "icon-halo-width", .number, "paint") { s.iconHaloWidth = e }
        if let e = expr(paint, "icon-halo-blur", .number, "paint") { s.iconHaloBlur = e }
        if let f = layout["icon-text-fit"] {
            if let v = f as? String, ["none", "width", "height", "both"].contains(v) { s.iconTextFit = v }
            else { notes.append("icon-text-fit (not one of none, width, height, both)") }
        }
        if let p = layout["icon-text-fit-padding"] {
            if let n = MapLibreStyleReader.numbers(p), n.count == 4, n.allSatisfy(\.isFinite) {
                s.iconTextFitPadding = (n[0], n[1], n[2], n[3])
            } else {
                notes.append("icon-text-fit-padding (not 4 constant numbers)")
            }
        }
        if let e = expr(paint, "icon-opacity", .number, "paint") { s.iconOpacity = e }
        if let a = layout["icon-anchor"] {
            if let v = a as? String { s.iconAnchor = v } else { notes.append("icon-anchor (not constant)") }
        }
        if let o = layout["icon-offset"] {
            if let n = MapLibreStyleReader.numbers(o), n.count == 2 { s.iconOffset = (n[0], n[1]) } else { notes.append("icon-offset (not constant)") }
        }
        for (key, set) in [("icon-allow-overlap", { (s: inout SymbolStyle, b: Bool) in s.iconAllowOverlap = b }),
                           ("text-optional", { (s: inout SymbolStyle, b: Bool) in s.textOptional = b }),
                           ("icon-optional", { (s: inout SymbolStyle, b: Bool) in s.iconOptional = b })] {
            guard let v = layout[key] else { continue }
            if let b = v as? Bool { set(&s, b) } else { notes.append("\(key) (not constant)") }
        }
        if let e = expr(layout, "text-size", .number, "layout") { s.size = e }
        if let e = expr(layout, "symbol-sort-key", .number, "layout") { s.sortKey = e }
        if let e = expr(paint, "text-color", .color, "paint") { s.color = e }
        if let e = expr(paint, "text-halo-color", .color, "paint") { s.haloColor = e }
        if let e = expr(paint, "text-halo-width", .number, "paint") { s.haloWidth = e }
        if let e = expr(paint, "text-opacity", .number, "paint") { s.opacity = e }
        if let e = expr(paint, "text-halo-blur", .number, "paint") { s.haloBlur = e }
        if let e = expr(layout, "text-letter-spacing", .number, "layout") { s.letterSpacing = e }
        if let f = layout["text-font"] {
            var raw = f
            if let a = f as? [Any], a.count == 2, a[0] as? String == "literal" { raw = a[1] }
            if let names = raw as? [String] { s.font = font(names) } else { notes.append("text-font (not a constant list)") }
        }
        if let e = expr(layout, "text-anchor", .string, "layout") { s.anchor = e }
        if let j = layout["text-justify"] {
            if let v = j as? String, ["left", "center", "right", "auto"].contains(v) { s.justify = v }
            else { notes.append("text-justify (not one of left, center, right, auto)") }
        }
        if let t = paint["text-translate"] {
            if let n = MapLibreStyleReader.numbers(t), n.count == 2, n.allSatisfy({ abs($0) <= 1000 }) { s.translate = (n[0], n[1]) }
            else { notes.append("text-translate (not 2 constant numbers)") }
        }
        if let o = layout["text-offset"] {
            if let n = MapLibreStyleReader.numbers(o), n.count == 2 { s.offset = (n[0], n[1]) } else { notes.append("text-offset (not constant)") }
        }
        if let t = layout["text-transform"] {
            if let v = t as? String { s.transform = v } else { notes.append("text-transform (not constant)") }
        }
        if let m = layout["text-max-width"] {
            if let v = m as? NSNumber, v.doubleValue > 0, v.doubleValue.isFinite { s.maxWidth = v.doubleValue } else { notes.append("text-max-width (not a constant)") }
        }
        if let p = layout["symbol-placement"] {
            switch p as? String {
            case "point"?: break
            case "line"?: s.placementLine = true
            case "line-center"?: s.placementLine = true; s.placementLineCenter = true
            default: notes.append("symbol-placement: \(p)")
            }
        }
        if let v = layout["symbol-spacing"] {
            if let n = v as? NSNumber, n.doubleValue >= 1, n.doubleValue.isFinite { s.spacing = n.doubleValue } else { notes.append("symbol-spacing (not a constant)") }
        }
        if let v = layout["text-max-angle"] {
            if let n = v as? NSNumber, n.doubleValue >= 0, n.doubleValue.isFinite { s.maxAngle = n.doubleValue } else { notes.append("text-max-angle (not a constant)") }
        }
        // Drawn as MapLibre draws them on a flat map with their defaults (text along the line,
        // upright); other values are not.
        if let v = layout["text-keep-upright"], (v as? NSNumber)?.boolValue != true { notes.append("text-keep-upright: false") }
        if let v = layout["text-rotation-alignment"] {
            if !["auto", "map", "viewport"].contains(v as? String ?? "") { notes.append("text-rotation-alignment: \(v)") }
            s.lineLevel = s.placementLine && v as? String == "viewport"
        }
        return s
    }
}
