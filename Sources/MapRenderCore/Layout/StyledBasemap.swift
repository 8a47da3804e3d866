import Foundation

/// A MapLibre style's layers (`MapLibreStyle`) over their decoded sources, as map layers: each
/// fill and line layer becomes a `MapLayer.shapes` over its source layer's polygons or lines, so
/// it goes through ShapeLayout and the one scene like every basemap and data layer.
public enum StyledBasemap {
    /// The decoded data of one source: vector tiles by source layer, or GeoJSON shapes and
    /// points (the points' rows are rows of the shapes' property table).
    public enum SourceData: Sendable {
        case vector([String: VectorLayerData])
        case shapes(ShapeSet, points: PointFeatures)
        case raster([RasterMark])
    }

    /// The layers to draw at `zoom`, in the style's order, and the background colour (the last
    /// visible background layer's), if any. `sprite`: the style's images, for icons and patterns.
    public static func layers(style: MapLibreStyle, sources: [String: SourceData], zoom: Double,
                              sprite: Sprite? = nil) -> (layers: [MapLayer], background: RGBA?) {
        var out: [MapLayer] = []
        var background: RGBA?
        for l in style.layers where l.style.shows(atZoom: zoom) {
            switch l.type {
            case "background":
                if var c = l.style.fillColor.constantValue?.colorValue {
                    c.a *= min(max(l.style.fillOpacity.constantValue?.numberValue ?? 1, 0), 1)
                    background = c
                }
            case "fill", "line":
                guard let s = l.source, let data = sources[s] else { continue }
                let polygons: ShapeSet, lines: ShapeSet
                switch data {
                case .vector(let byLayer):
                    guard let name = l.sourceLayer, let d = byLayer[name] else { continue }
                    polygons = d.polygons; lines = d.lines
                case .shapes(let set, _):
                    polygons = set; lines = set
                case .raster:
                    continue
                }
                if l.type == "line" {
                    guard !lines.isEmpty else { continue }
                    var l = l
                    if l.style.linePattern != nil { l.style.sprite = sprite }
                    out += offsetLayers(l, lines: lines, zoom: zoom)
                    continue
                }
                var fill = l.style
                fill.fillOutlineColor = nil
                if fill.fillPattern != nil { fill.sprite = sprite }
                if !polygons.isEmpty { out.append(.shapes(fill, polygons)) }
                if let outline = l.style.fillOutlineColor {
                    // MapLibre's outline: 1 px, the fill's opacity, along the rings inside each tile.
                    var line = StyleLayer(id: l.id + " (outline)", type: .line, source: .basemap)
                    line.fromBasemapStyle = true
                    line.lineColor = outline
                    line.lineOpacity = l.style.fillOpacity
                    line.lineWidth = StyleExpression(constant: .number(1))
                    line.lineCap = .butt; line.lineJoin = .miter
                    if case .vector = data {
                        line.filter = StyleExpression.all(l.style.filter, StyleExpression.geometryType("Polygon"))
                        if !lines.isEmpty { out.append(.shapes(line, lines)) }
                    } else {
                        line.filter = l.style.filter
                        if !polygons.isEmpty { out.append(.shapes(line, polygons)) }
                    }
                }
            case "circle":
                guard let circle = l.circle, let s = l.source else { continue }
                let points: PointFeatures, properties: PropertyTable
                switch sources[s] {
                case .vector(let byLayer)?:
                    guard let name = l.sourceLayer, let d = byLayer[name] else { continue }
                    points = PointFeatures(coords: d.pointCoords, rows: d.pointRows); properties = d.properties
                case .shapes(let set, let p)?:
                    points = p; properties = set.properties
                default:
                    continue
                }
                guard points.count > 0 else { continue }
                let (shapes, layer) = circles(circle, style: l.style, points: points, properties: properties, zoom: zoom)
                if !shapes.isEmpty { out.append(.shapes(layer, shapes)) }
            case "symbol":
                guard var symbol = l.symbol, let s = l.source, let data = sources[s] else { continue }
                if sprite == nil { symbol.iconImage = nil }
                guard symbol.field != nil || symbol.iconImage != nil else { continue }
                switch data {
                case .vector(let byLayer):
                    guard let name = l.sourceLayer, let d = byLayer[name] else { continue }
                    if symbol.placementLine {
                        // Along the layer's lines (and its polygons' outlines, as MapLibre lays them).
                        guard !d.lines.isEmpty else { continue }
                        var symbols = BasemapSymbols(layer: l.style, symbol: symbol, order: out.count, coords: [], rows: [],
                                                     properties: d.properties)
                        symbols.lines = d.lines
                        symbols.sprite = sprite
                        out.append(.symbols(symbols))
                        continue
                    }
                    // At the points, and at each polygon's pole of inaccessibility (MapLibre's
                    // point placement over polygons: one per polygon of a tile).
                    guard d.pointCount > 0 || !d.polygons.isEmpty else { continue }
                    var symbols = BasemapSymbols(layer: l.style, symbol: symbol, order: out.count,
                                                 coords: d.pointCoords, rows: d.pointRows, properties: d.properties)
                    symbols.polygons = d.polygons
                    symbols.sprite = sprite
                    out.append(.symbols(symbols))
                case .shapes(let set, let points):
                    // A GeoJSON source: along its lines and polygons' outlines, or at its points
                    // and its polygons' poles.
                    var symbols = BasemapSymbols(layer: l.style, symbol: symbol, order: out.count, coords: points.coords,
                                                 rows: points.rows, properties: set.properties)
                    symbols.sprite = sprite
                    if symbol.placementLine {
                        guard !set.isEmpty else { continue }
                        symbols.coords = []; symbols.rows = []
                        symbols.lines = set
                    } else {
                        guard points.count > 0 || set.kinds.contains(.polygon) else { continue }
                        symbols.polygons = set
                    }
                    out.append(.symbols(symbols))
                case .raster:
                    continue
                }
            case "raster":
                guard let s = l.source, case .raster(let marks)? = sources[s], !marks.isEmpty else { continue }
                out.append(.raster(marks))
            default:
                continue
            }
        }
        return (out, background)
    }
}

extension StyledBasemap {
    /// A line layer as map layers: its lines as they are, or, with `line-offset` or
    /// `line-gap-width` (each by zoom and by feature), moved sideways by each feature's offset, and
    /// where a feature has a gap, drawn twice, each line its width out from the gap's edge (a
    /// casing, as MapLibre draws it): one layer of the lines left of their gaps (and those without
    /// a gap), one of those right of it.
    static func offsetLayers(_ l: MapLibreStyle.Layer, lines: ShapeSet, zoom: Double) -> [MapLayer] {
        guard l.lineOffset != nil || l.lineGapWidth != nil else { return [.shapes(l.style, lines)] }
        let p = lines.properties
        let offsetOf = l.lineOffset?.bind(to: p), gapOf = l.lineGapWidth?.bind(to: p), widthOf = l.style.lineWidth.bind(to: p)
        func number(_ e: BoundExpression?, _ row: Int?, _ fallback: Double, _ range: ClosedRange<Double>) -> Double {
            guard let d = e?.evaluate(row: row, zoom: zoom).numberValue, d.isFinite else { return fallback }
            return min(max(d, range.lowerBound), range.upperBound)
        }
        var left = [Double](repeating: 0, count: lines.shapeCount), right: [Double?] = Array(repeating: nil, count: lines.shapeCount)
        var moved = false
        for s in 0..<lines.shapeCount {
            let row = lines.propertyRow(of: s)
            let offset = number(offsetOf, row, 0, -500...500), gap = number(gapOf, row, 0, 0...500)
            if gap > 0 {
                let width = number(widthOf, row, 1, 0...100)
                left[s] = offset - gap / 2 - width / 2
                right[s] = offset + gap / 2 + width / 2
            } else {
                left[s] = offset
            }
            if left[s] != 0 || right[s] != nil { moved = true }
        }
        guard moved else { return [.shapes(l.style, lines)] }
        var out: [MapLayer] = [.shapes(l.style, offsetLines(lines, zoom: zoom) { left[$0] })]
        let cased = (0..<lines.shapeCount).filter { right[$0] != nil }
        if !cased.isEmpty {
            out.append(.shapes(l.style, offsetLines(lines.selecting(cased), zoom: zoom) { right[cased[$0]]! }))
        }
        return out
    }

    /// `lines` with each shape moved sideways by `px(shape)` CSS pixels at `zoom` (positive: to
    /// the right of the line's direction, as MapLibre's `line-offset`), each vertex along the mean
    /// of its segments' normals, lengthened at joins up to twice the offset (a miter limit of 2).
    static func offsetLines(_ lines: ShapeSet, zoom: Double, by px: (Int) -> Double) -> ShapeSet {
        var out = lines
        let world = Viewport.tileSize * Foundation.pow(2, zoom)
        for s in 0..<lines.shapeCount {
            let d = px(s) / world
            guard d != 0 else { continue }
            for r in lines.rings(of: s) {
                offsetRing(r, lines, by: d, into: &out)
            }
        }
        return out
    }

    private static func offsetRing(_ r: Int, _ lines: ShapeSet, by d: Double, into out: inout ShapeSet) {
        let v = lines.vertices(of: r)
        guard v.count >= 2 else { return }
        let xs = v.map { WebMercator.x(lon: lines.coords[2 * $0]) }, ys = v.map { WebMercator.y(lat: lines.coords[2 * $0 + 1]) }
        func normal(_ i: Int) -> (Double, Double)? {   // right normal of segment i -> i + 1
            let dx = xs[i + 1] - xs[i], dy = ys[i + 1] - ys[i], len = (dx * dx + dy * dy).squareRoot()
            return len > 0 ? (-dy / len, dx / len) : nil
        }
        for (k, q) in v.enumerated() {
            let a = k > 0 ? normal(k - 1) : nil, b = k < v.count - 1 ? normal(k) : nil
            var nx = 0.0, ny = 0.0
            switch (a, b) {
            case let (a?, b?):
                // The bisector, lengthened by 1 / cos(half the turn), at most 2.
                let sx = a.0 + b.0, sy = a.1 + b.1, len = (sx * sx + sy * sy).squareRoot()
                if len > 1e-12 {
                    let mx = sx / len, my = sy / len
                    let scale = min(1 / max(mx * a.0 + my * a.1, 0.5), 2)
                    nx = mx * scale; ny = my * scale
                } else {
                    nx = a.0; ny = a.1   // a full turn back
                }
            case let (a?, nil): nx = a.0; ny = a.1
            case let (nil, b?): nx = b.0; ny = b.1
            default: break
            }
            out.coords[2 * q] = WebMercator.lon(x: xs[k] + nx * d)
            out.coords[2 * q + 1] = WebMercator.lat(y: ys[k] + ny * d)
        }
    }

    /// A circle layer's points as 32-gons of their radius (plus half the stroke, which MapLibre
    /// draws outside the circle) at `zoom`, and the fill layer that paints them: colour, opacity,
    /// stroke as the outline.
    static func circles(_ c: CircleStyle, style: StyleLayer, points: PointFeatures, properties: PropertyTable,
                        zoom: Double) -> (ShapeSet, StyleLayer) {
        var shapes = ShapeSet()
        let filter = style.filter?.bind(to: properties)
        let radius = c.radius.bind(to: properties), stroke = c.strokeWidth.bind(to: properties)
        let worldSize = Viewport.tileSize * Foundation.pow(2, zoom)
        let sides = 32
        for i in 0..<points.count {
            let row = Int(points.rows[i])
            if let filter, !filter.evaluate(row: row, zoom: zoom).truthy { continue }
            let r = min(max(radius.evaluate(row: row, zoom: zoom).numberValue ?? 5, 0), 500)
                + min(max(stroke.evaluate(row: row, zoom: zoom).numberValue ?? 0, 0), 100) / 2
            guard r > 0 else { continue }
            let x = WebMercator.x(lon: points.coords[2 * i]), y = WebMercator.y(lat: points.coords[2 * i + 1])
            var ring: [Double] = []
            ring.reserveCapacity(2 * (sides + 1))
            for k in 0...sides {
                let a = Double(k % sides) / Double(sides) * 2 * Double.pi
                ring.append(WebMercator.lon(x: x + r * cos(a) / worldSize))
                ring.append(WebMercator.lat(y: y + r * sin(a) / worldSize))
            }
            shapes.add(kind: .polygon, rings: [ring], feature: row, row: row)
        }
        shapes.properties = properties
        var layer = StyleLayer(id: style.id, type: .fill, source: .basemap)
        layer.fromBasemapStyle = true
        layer.fillsShapesApart = true
        layer.minzoom = style.minzoom; layer.maxzoom = style.maxzoom; layer.visible = style.visible
        layer.fillColor = c.color
        layer.fillOpacity = c.opacity
        layer.fillOutlineColor = c.strokeColor
        layer.fillOutlineWidth = c.strokeWidth
        return (shapes, layer)
    }
}

/// The point labels of one symbol layer of a basemap style: the points (lon, lat) and their
/// feature rows, and how to write them. Placed after the data's labels, in the free space
/// (`MapLayout`), by `symbol-sort-key` within a layer and the style's top layers first.
public struct BasemapSymbols: Sendable {
    public var layer: StyleLayer
    public var symbol: SymbolStyle
    /// The layer's index among the map layers of the style (priority: higher first, as MapLibre
    /// places the top layer's symbols first).
    public var order: Int
    public var coords: [Double]
    public var rows: [Int32]
    public var properties: PropertyTable
    /// For `symbol-placement: line`: the lines to lay the text along (rows of `properties`).
    public var lines = ShapeSet()
    /// For `symbol-placement: point`: polygons, each named at its pole of inaccessibility
    /// (`Polylabel`, as the data's polygon labels); shapes of other kinds are left out.
    public var polygons = ShapeSet()
    /// The style's images, for `icon-image`.
    public var sprite: Sprite?
}

/// A basemap symbol's icon: a sprite image over `rect` (CSS px).
struct SymbolIcon {
    var image: SpriteImage
    var rect: Rect
    var opacity: Double
    /// Turned about the rect's centre (radians): an icon along a line.
    var angle = 0.0
    /// What it holds in the collision index: the rect, or the bounds of the turned rect.
    var box: Rect {
        guard angle != 0 else { return rect }
        let c = cos(angle), s = sin(angle)
        let ex = (abs(c) * rect.width + abs(s) * rect.height) / 2, ey = (abs(s) * rect.width + abs(c) * rect.height) / 2
        return Rect(x: rect.x + rect.width / 2 - ex, y: rect.y + rect.height / 2 - ey, width: 2 * ex, height: 2 * ey)
    }
}

/// Signed-distance-field icons painted for one symbol layer of one map, each (image, paint) once.
final class PaintedIcons {
    private struct Key: Hashable { var name: String; var ratio: Double; var paint: SDFPaint }
    private var made: [Key: SpriteImage] = [:]

    func image(_ image: SpriteImage, _ paint: SDFPaint) -> SpriteImage {
        let key = Key(name: image.name, ratio: image.pixelRatio, paint: paint)
        if let m = made[key] { return m }
        let m = image.sdfPainted(paint)
        if made.count < 256 { made[key] = m }   // paints by feature beyond that are not kept
        return m
    }
}

/// One basemap label to place.
struct SymbolCandidate {
    /// A point label; for a line's, its text and look (its box is not used). Nil: an icon alone.
    var label: LabelMark?
    /// A point symbol's icon (`icon-image`), placed with its label (`text-optional`, `icon-optional`).
    var icon: SymbolIcon?
    /// A line's label: each repetition along it, placed or not on its own; nil for a point label.
    var along: [LineLabelPlacement.Placement]?
    /// A line's icons, one per repetition of `along` (text and icon on one anchor), when the layer has both.
    var alongIcons: [SymbolIcon]?
    var sortKey: Double
    var layerOrder: Int
    var index: Int
}

/// A symbol layer's text and paint bound to its feature table: how one feature's label reads and
/// looks, the same for point and line placement.
struct BoundSymbol {
    let symbol: SymbolStyle
    let zoom: Double, textScale: Double
    let filter: BoundExpression?
    let field: BoundExpression?
    let size, color, halo, haloWidth, haloBlur, opacity, letterSpacing: BoundExpression
    let sortKey, iconImage: BoundExpression?
    let anchor: BoundExpression
    let iconSize, iconOpacity: BoundExpression
    let iconColor, iconHalo, iconHaloWidth, iconHaloBlur: BoundExpression
    let sprite: Sprite?
    /// Signed-distance-field icons painted so far, by image and paint (most features share one).
    let painted = PaintedIcons()

    /// nil when the layer has neither `text-field` nor an icon.
    init?(_ b: BasemapSymbols, zoom: Double, textScale: Double) {
        guard b.symbol.field != nil || (b.symbol.iconImage != nil && b.sprite != nil) else { return nil }
        let p = b.properties
        symbol = b.symbol; self.zoom = zoom; self.textScale = textScale
        filter = b.layer.filter?.bind(to: p)
        field = b.symbol.field?.bind(to: p)
        iconImage = b.sprite == nil ? nil : b.symbol.iconImage?.bind(to: p)
        iconSize = b.symbol.iconSize.bind(to: p); iconOpacity = b.symbol.iconOpacity.bind(to: p)
        iconColor = b.symbol.iconColor.bind(to: p); iconHalo = b.symbol.iconHaloColor.bind(to: p)
        iconHaloWidth = b.symbol.iconHaloWidth.bind(to: p); iconHaloBlur = b.symbol.iconHaloBlur.bind(to: p)
        sprite = b.sprite
        size = b.symbol.size.bind(to: p); color = b.symbol.color.bind(to: p)
        halo = b.symbol.haloColor.bind(to: p); haloWidth = b.symbol.haloWidth.bind(to: p)
        haloBlur = b.symbol.haloBlur.bind(to: p); letterSpacing = b.symbol.letterSpacing.bind(to: p)
        opacity = b.symbol.opacity.bind(to: p); sortKey = b.symbol.sortKey?.bind(to: p)
        anchor = b.symbol.anchor.bind(to: p)
    }

    /// Whether the layer's filter takes the row.
    func passes(row: Int) -> Bool { filter?.evaluate(row: row, zoom: zoom).truthy ?? true }

    /// The row's text (`text-transform` applied), or nil when the filter refuses the row or the
    /// text is empty.
    func text(row: Int) -> String? {
        guard passes(row: row) else { return nil }
        guard let text = field?.evaluate(row: row, zoom: zoom).stringValue, !text.isEmpty else { return nil }
        switch symbol.transform {
        case "uppercase": return text.uppercased()
        case "lowercase": return text.lowercased()
        default: return text
        }
    }

    /// The row's font: the style's, at `text-size` (1 to 100 px) times the text scale, its
    /// letters `text-letter-spacing` ems apart (-1 to 5).
    func font(row: Int) -> FontSpec {
        var font = symbol.font
        font.size = min(max(size.evaluate(row: row, zoom: zoom).numberValue ?? 16, 1), 100) * textScale
        font.letterSpacing = min(max(letterSpacing.evaluate(row: row, zoom: zoom).numberValue ?? 0, -1), 5)
        return font
    }

    /// The row's label in `box`, coloured, haloed (at most a quarter em) and faded as the style
    /// says; nil when it would not show.
    func label(row: Int, text: String, font: FontSpec, box: Rect) -> LabelMark? {
        var label = LabelMark(text: text, font: font,
                              color: color.evaluate(row: row, zoom: zoom).colorValue ?? RGBA(0, 0, 0, 1),
                              halo: halo.evaluate(row: row, zoom: zoom).colorValue ?? .clear,
                              haloWidth: min(max(haloWidth.evaluate(row: row, zoom: zoom).numberValue ?? 0, 0), font.size / 4),
                              x: box.x, y: box.y, width: box.width, height: box.height)
        label.opacity = min(max(opacity.evaluate(row: row, zoom: zoom).numberValue ?? 1, 0), 1)
        label.haloBlur = min(max(haloBlur.evaluate(row: row, zoom: zoom).numberValue ?? 0, 0), font.size / 4)
        guard label.opacity > 0, label.color.a > 0 else { return nil }
        return label
    }

    func sortKey(row: Int) -> Double { sortKey?.evaluate(row: row, zoom: zoom).numberValue ?? 0 }

    /// The row's icon with its anchor on (px, py): the sprite image `icon-image` names, at
    /// `icon-size` (0 to 10) times its size, `icon-anchor` and `icon-offset` (px times the size)
    /// as MapLibre; nil without one (or when the sprite lacks it, or it is wholly faded). A
    /// signed-distance-field image is painted with `icon-color` and its halo.
    func icon(row: Int, x px: Double, y py: Double) -> SymbolIcon? {
        guard let iconImage, let sprite, let name = iconImage.evaluate(row: row, zoom: zoom).stringValue, !name.isEmpty,
              var image = sprite.icons[name] else { return nil }
        let k = min(max(iconSize.evaluate(row: row, zoom: zoom).numberValue ?? 1, 0), 10)
        let opacity = min(max(iconOpacity.evaluate(row: row, zoom: zoom).numberValue ?? 1, 0), 1)
        guard k > 0, opacity > 0 else { return nil }
        if image.sdf {
            let paint = SDFPaint(color: iconColor.evaluate(row: row, zoom: zoom).colorValue ?? RGBA(0, 0, 0, 1),
                                 halo: iconHalo.evaluate(row: row, zoom: zoom).colorValue ?? .clear,
                                 haloWidth: min(max(iconHaloWidth.evaluate(row: row, zoom: zoom).numberValue ?? 0, 0), 6 * k),
                                 haloBlur: min(max(iconHaloBlur.evaluate(row: row, zoom: zoom).numberValue ?? 0, 0), 6 * k), size: k)
            image = painted.image(image, paint)
        }
        let w = image.width * k, h = image.height * k
        var x = px - w / 2, y = py - h / 2
        let a = symbol.iconAnchor
        if a.hasPrefix("top") { y = py } else if a.hasPrefix("bottom") { y = py - h }
        if a.hasSuffix("left") { x = px } else if a.hasSuffix("right") { x = px - w }
        x += symbol.iconOffset.x * k; y += symbol.iconOffset.y * k
        return SymbolIcon(image: image, rect: Rect(x: x, y: y, width: w, height: h), opacity: opacity)
    }
}

extension BasemapSymbols {
    /// Labels of the visible points, measured and anchored, not yet placed.
    func candidates(viewport v: Viewport, textScale: Double, measurer: TextMeasuring) -> [SymbolCandidate] {
        guard layer.shows(atZoom: v.zoom), let bound = BoundSymbol(self, zoom: v.zoom, textScale: textScale) else { return [] }
        if symbol.placementLine { return lineCandidates(bound, viewport: v, measurer: measurer) }
        let t = v.toPixels
        var out: [SymbolCandidate] = []
        for i in 0..<rows.count {
            let row = Int(rows[i])
            guard bound.passes(row: row) else { continue }
            let px = t.x(WebMercator.x(lon: coords[2 * i])), py = t.y(WebMercator.y(lat: coords[2 * i + 1]))
            if let c = pointCandidate(bound, row: row, text: bound.text(row: row), x: px, y: py, index: i, viewport: v, measurer: measurer) { out.append(c) }
        }
        for s in 0..<polygons.shapeCount where polygons.kinds[s] == .polygon {
            guard let row = polygons.propertyRow(of: s), bound.passes(row: row), let text = bound.text(row: row),
                  let rings = ShapeLabelCandidate.pixelRings(of: s, in: polygons, viewport: v),
                  let pole = Polylabel.pole(of: rings, precision: ShapeLabelCandidate.polePrecision), pole.distance > 0 else { continue }
            if let c = pointCandidate(bound, row: row, text: text, x: pole.x, y: pole.y, index: rows.count + s, viewport: v, measurer: measurer) {
                out.append(c)
            }
        }
        return out
    }

    /// The label of `row` anchored at (px, py) in CSS px (`text-anchor`, `text-offset`), measured,
    /// and its icon, not yet placed; nil when far off the image or neither is shown.
    /// - Parameter level: a level label on a line's point (`text-rotation-alignment: viewport`):
    ///   centred there, without `text-anchor` and `text-offset`.
    func pointCandidate(_ bound: BoundSymbol, row: Int, text: String?, x px: Double, y py: Double, index i: Int,
                        viewport v: Viewport, measurer: TextMeasuring, level: Bool = false) -> SymbolCandidate? {
        let font = bound.font(row: row)
        let em = font.size
        // Outside the image by more than a label's reach: not a candidate.
        guard px > -em * 20, px < v.width + em * 20, py > -em * 4, py < v.height + em * 4 else { return nil }
        var icon = bound.icon(row: row, x: px, y: py)
        guard let text else {
            return icon.map { SymbolCandidate(label: nil, icon: $0, sortKey: bound.sortKey(row: row), layerOrder: order, index: i) }
        }
        let wrap = symbol.maxWidth * em
        let m = measurer.measure(text, font: font, maxWidth: wrap)
        // text-anchor: the side of the box on the point; text-offset in ems.
        var x = px - m.width / 2, y = py - m.height / 2
        let a = level ? "center" : bound.anchor.evaluate(row: row, zoom: bound.zoom).stringValue ?? "center"
        if a.hasPrefix("top") { y = py } else if a.hasPrefix("bottom") { y = py - m.height }
        if a.hasSuffix("left") { x = px } else if a.hasSuffix("right") { x = px - m.width }
        // text-offset in ems (not for a level label along a line), then text-translate in px.
        if !level { x += symbol.offset.x * em; y += symbol.offset.y * em }
        x += symbol.translate.x * bound.textScale; y += symbol.translate.y * bound.textScale
        var label = bound.label(row: row, text: text, font: font, box: Rect(x: x, y: y, width: m.width, height: m.height))
        label?.maxWidth = wrap
        // text-justify (auto: the side the anchor puts on the point).
        let j = symbol.justify == "auto" ? (a.hasSuffix("left") ? "left" : a.hasSuffix("right") ? "right" : "center") : symbol.justify
        label?.justify = j == "left" ? 0 : j == "right" ? 1 : 0.5
        guard label != nil || icon != nil else { return nil }
        if var i = icon, symbol.iconTextFit != "none" {
            i.rect = Self.fit(i.rect, around: Rect(x: x, y: y, width: m.width, height: m.height), symbol)
            icon = i
        }
        return SymbolCandidate(label: label, icon: icon, sortKey: bound.sortKey(row: row), layerOrder: order, index: i)
    }
}

extension BasemapSymbols {
    /// `icon-text-fit`: the icon's box over the text's `box`, grown by the padding, in the
    /// directions the style fits (`width`, `height`, `both`); in the other, the icon keeps its
    /// size, centred on the text (MapLibre's `fitIconToText`).
    static func fit(_ icon: Rect, around box: Rect, _ s: SymbolStyle) -> Rect {
        let p = s.iconTextFitPadding
        var r = icon
        if s.iconTextFit == "width" || s.iconTextFit == "both" {
            r.x = box.x - p.left; r.width = box.width + p.left + p.right
        } else {
            r.x = box.x + (box.width - icon.width) / 2
        }
        if s.iconTextFit == "height" || s.iconTextFit == "both" {
            r.y = box.y - p.top; r.height = box.height + p.top + p.bottom
        } else {
            r.y = box.y + (box.height - icon.height) / 2
        }
        return r
    }
}

extension BasemapSymbols {
    /// Labels along the visible lines, each with every repetition that fits and bends little
    /// enough (`LineLabelPlacement`), not yet placed. `line-center`: one, at the line's middle.
    func lineCandidates(_ bound: BoundSymbol, viewport v: Viewport, measurer: TextMeasuring) -> [SymbolCandidate] {
        if symbol.field == nil { return lineIconCandidates(bound, viewport: v) }
        if symbol.lineLevel { return levelLineCandidates(bound, viewport: v, measurer: measurer) }
        var out: [SymbolCandidate] = []
        let tx = symbol.translate.x * bound.textScale, ty = symbol.translate.y * bound.textScale
        for s in 0..<lines.shapeCount {
            guard let row = lines.propertyRow(of: s), let whole = bound.text(row: row) else { continue }
            let text = LabelText.truncated(whole)
            guard let rings = ShapeLabelCandidate.pixelRings(of: s, in: lines, viewport: v) else { continue }
            let font = bound.font(row: row)
            guard let label = bound.label(row: row, text: text, font: font, box: Rect(x: 0, y: 0, width: 0, height: 0)) else { continue }
            let run = measurer.glyphRun(text, font: font)
            var options = LineLabelPlacement.Options()
            options.spacing = symbol.spacing * bound.textScale
            options.maxAngle = symbol.maxAngle
            var along: [LineLabelPlacement.Placement] = []
            var icons: [SymbolIcon] = []
            let probe = bound.icon(row: row, x: 0, y: 0)
            for ring in rings {
                let wholePath = ShapeLabelCandidate.path(ring)
                for piece in wholePath.visiblePieces(width: v.width, height: v.height, margin: 0) {
                    if let probe {
                        // Text and icon on one anchor, spaced as MapLibre's getAnchors (the
                        // longer of the two, as for icons alone), the icon turned with the line.
                        let length = max(run.width, probe.rect.width)
                        var spacing = options.spacing
                        if spacing - length < spacing / 4 { spacing = length + spacing / 4 }
                        let own = piece.x.first == wholePath.x.first && piece.y.first == wholePath.y.first
                        let offset = own ? (length / 2 + 2 * font.size).truncatingRemainder(dividingBy: spacing) : spacing / 2
                        let ds = symbol.placementLineCenter ? [piece.length / 2]
                            : Self.anchors(on: piece, offset: offset, spacing: spacing, length: length, middle: own && piece.length == wholePath.length)
                        for d in ds {
                            guard let p = LineLabelPlacement.place(run, at: d, on: piece, options: options) else { continue }
                            let at = piece.point(at: d), k = min(at.segment, piece.count - 2)
                            guard var icon = bound.icon(row: row, x: at.x, y: at.y) else { continue }
                            let angle = atan2(piece.y[k + 1] - piece.y[k], piece.x[k + 1] - piece.x[k])
                            icon.angle = angle.isFinite ? angle : 0
                            along.append(p); icons.append(icon)
                        }
                        continue
                    }
                    if symbol.placementLineCenter {
                        if let p = LineLabelPlacement.place(run, at: piece.length / 2, on: piece, options: options) { along.append(p) }
                    } else {
                        along += LineLabelPlacement.placements(along: piece, run: run, options: options)
                    }
                }
            }
            guard !along.isEmpty else { continue }
            if tx != 0 || ty != 0 {
                // text-translate: every glyph and its box moved.
                for k in along.indices {
                    for g in along[k].glyphs.indices { along[k].glyphs[g].x += tx; along[k].glyphs[g].y += ty }
                    for b in along[k].boxes.indices { along[k].boxes[b].x += tx; along[k].boxes[b].y += ty }
                }
            }
            var c = SymbolCandidate(label: label, along: along, sortKey: bound.sortKey(row: row), layerOrder: order, index: s)
            if probe != nil { c.alongIcons = icons }
            out.append(c)
        }
        return out
    }
}

extension BasemapSymbols {
    /// Icons alone along the visible lines (`symbol-placement: line`, `icon-image` without
    /// text), each turned with its segment, spaced as MapLibre's `getAnchors` spaces them. Its
    /// lengths there are in shaping units scaled by the layer's largest text box (`text-size` at
    /// zoom 18 over the 24-px glyph grid: 2/3 for the default 16): from a line's own start, the
    /// first icon at (half the icon + 48) times that (modulo the spacing), from where the line
    /// enters the image at half the spacing, then every `symbol-spacing` (raised to the scaled
    /// icon length and a quarter when shorter), each with half that length of line either side; a
    /// line of its own that holds none gets one at its middle.
    func lineIconCandidates(_ bound: BoundSymbol, viewport v: Viewport) -> [SymbolCandidate] {
        var out: [SymbolCandidate] = []
        for s in 0..<lines.shapeCount {
            guard let row = lines.propertyRow(of: s), bound.passes(row: row),
                  let probe = bound.icon(row: row, x: 0, y: 0),
                  let rings = ShapeLabelCandidate.pixelRings(of: s, in: lines, viewport: v) else { continue }
            let box = min(max(bound.size.evaluate(row: row, zoom: 18).numberValue ?? 16, 1), 100) / 24 * bound.textScale
            let length = probe.rect.width * box
            var spacing = symbol.spacing * bound.textScale
            if spacing - length < spacing / 4 { spacing = length + spacing / 4 }
            for ring in rings {
                let whole = ShapeLabelCandidate.path(ring)
                for piece in whole.visiblePieces(width: v.width, height: v.height, margin: probe.rect.width) {
                    guard piece.count >= 2, piece.length > 0 else { continue }
                    let own = piece.x[0] == whole.x[0] && piece.y[0] == whole.y[0]
                    let offset = own ? ((probe.rect.width / 2 + 48) * box).truncatingRemainder(dividingBy: spacing) : spacing / 2
                    for d in Self.anchors(on: piece, offset: offset, spacing: spacing, length: length,
                                          middle: own && piece.length == whole.length) {
                        let p = piece.point(at: d)
                        let k = min(p.segment, piece.count - 2)
                        var angle = atan2(piece.y[k + 1] - piece.y[k], piece.x[k + 1] - piece.x[k])
                        if !angle.isFinite { angle = 0 }
                        guard var icon = bound.icon(row: row, x: p.x, y: p.y) else { continue }
                        icon.angle = angle
                        out.append(SymbolCandidate(label: nil, icon: icon, sortKey: bound.sortKey(row: row), layerOrder: order,
                                                   index: s))
                    }
                }
            }
        }
        return out
    }
}

extension BasemapSymbols {
    /// MapLibre's `resample`: distances along `piece` from `offset`, every `spacing`, each with
    /// half of `length` of line either side; none, and `middle` (the whole line is in view): its middle.
    static func anchors(on piece: LineLabelPlacement.Path, offset: Double, spacing: Double, length: Double, middle: Bool) -> [Double] {
        var out: [Double] = []
        var d = offset
        while d <= piece.length, out.count < 10_000 {
            if d - length / 2 >= 0 && d + length / 2 <= piece.length { out.append(d) }
            d += spacing
        }
        if out.isEmpty && middle { out = [piece.length / 2] }
        return out
    }

    /// `text-rotation-alignment: viewport` along lines: the text level, centred on points along
    /// the line spaced as MapLibre's `getAnchors` spaces them (as icons along lines: from a line's
    /// own start the first at half the text plus two ems, from where it enters the image at half
    /// the spacing, then every `symbol-spacing`; `line-center`: the middle), each a point label
    /// placed on its own.
    func levelLineCandidates(_ bound: BoundSymbol, viewport v: Viewport, measurer: TextMeasuring) -> [SymbolCandidate] {
        var out: [SymbolCandidate] = []
        for s in 0..<lines.shapeCount {
            guard let row = lines.propertyRow(of: s), let whole = bound.text(row: row),
                  let rings = ShapeLabelCandidate.pixelRings(of: s, in: lines, viewport: v) else { continue }
            let text = LabelText.truncated(whole)
            let font = bound.font(row: row)
            let width = measurer.glyphRun(text, font: font).width
            var spacing = symbol.spacing * bound.textScale
            if spacing - width < spacing / 4 { spacing = width + spacing / 4 }
            for ring in rings {
                let whole = ShapeLabelCandidate.path(ring)
                for piece in whole.visiblePieces(width: v.width, height: v.height, margin: 0) {
                    guard piece.count >= 2, width <= piece.length else { continue }
                    let own = piece.x[0] == whole.x[0] && piece.y[0] == whole.y[0]
                    let offset = own ? (width / 2 + 2 * font.size).truncatingRemainder(dividingBy: spacing) : spacing / 2
                    let anchors = symbol.placementLineCenter ? [piece.length / 2]
                        : Self.anchors(on: piece, offset: offset, spacing: spacing, length: width, middle: own && piece.length == whole.length)
                    for d in anchors {
                        let p = piece.point(at: d)
                        if let c = pointCandidate(bound, row: row, text: text, x: p.x, y: p.y, index: s, viewport: v,
                                                  measurer: measurer, level: true) {
                            out.append(c)
                        }
                    }
                }
            }
        }
        return out
    }
}
