/// A backend-neutral picture: positioned marks in CSS pixels, in draw order.
///
/// Layout produces it; a backend (Cairo) only draws it. Tests inspect it without pixels.
public struct Scene: Sendable {
    /// Size in CSS pixels; the image has `scale` times as many device pixels per side.
    public var width: Double
    public var height: Double
    public var scale: Double
    public var background: RGBA
    public var items: [SceneItem] = []
    /// Labels (or callouts) that found no free position and were left out.
    public var labelsDropped = 0
    /// The world's extent in CSS px (one copy of the world, x within half a world of the view's
    /// centre, y from 85.05°N to 85.05°S). `background` fills it; the rest of the image is
    /// `letterbox`, and basemap shapes are clipped to it, so nothing is painted beyond ±85.05° and
    /// the basemap never repeats where the data cannot. nil: the world covers the image.
    public var world: Rect?
    /// One line each for the user (stderr), e.g. why the scale bar was left out.
    public var warnings: [String] = []
    /// The colour beyond the world's edges (a neutral grey, neither sea nor land).
    public var letterbox = RGBA(0.86, 0.86, 0.86)
    /// Per marker of the points' marker batch, in its order, the point (index in the map's data)
    /// it draws; nil unless `LayoutOptions.keepsMarkerPoints`. Not drawn.
    public var markerPoints: [Int]?

    public init(width: Double, height: Double, scale: Double, background: RGBA) {
        self.width = width; self.height = height; self.scale = scale; self.background = background
    }

    /// Marks drawn, by kind ("marker", "label", "polygon", "line", "attribution").
    public var markCounts: [String: Int] {
        var c: [String: Int] = [:]
        for item in items {
            switch item {
            case .shapes(let s):
                c[s.kind == .polygon ? "polygon" : "line", default: 0] += s.pathCount
            case .markers(let m): c["marker", default: 0] += m.count
            case .label: c["label", default: 0] += 1
            case .pathLabel: c["line-label", default: 0] += 1
            case .callout: c["callout", default: 0] += 1
            case .scaleBar: c["scale-bar", default: 0] += 1
            case .legend: c["legend", default: 0] += 1
            case .textBox: c["attribution", default: 0] += 1
            case .bubbles(let b): c["bubble", default: 0] += b.bubbles.count
            case .legs(let l): c["leg", default: 0] += l.count
            case .raster: c["tile", default: 0] += 1
            }
        }
        return c
    }

    public var markers: [MarkerBatch] { items.compactMap { if case .markers(let m) = $0 { return m } else { return nil } } }
    public var labels: [LabelMark] { items.compactMap { if case .label(let l) = $0 { return l } else { return nil } } }
    public var pathLabels: [PathLabelMark] { items.compactMap { if case .pathLabel(let l) = $0 { return l } else { return nil } } }
    public var bubbles: [BubbleBatch.Bubble] { items.flatMap { if case .bubbles(let b) = $0 { return b.bubbles } else { return [] } } }
    public var legs: [LegBatch] { items.compactMap { if case .legs(let l) = $0 { return l } else { return nil } } }
}

public enum SceneItem: Sendable {
    /// Basemap polygons or lines, all with one style.
    case shapes(ShapeBatch)
    /// Many markers sharing a few symbols (flat arrays: a million markers are three arrays).
    case markers(MarkerBatch)
    /// A text label with a halo.
    case label(LabelMark)
    /// A text laid along a line, glyph by glyph, with a halo.
    case pathLabel(PathLabelMark)
    /// Text on a filled box (attribution).
    case textBox(TextBoxMark)
    /// Cluster bubbles with their count text.
    case bubbles(BubbleBatch)
    /// A rounded box with a pointer to its pin or bubble and wrapped text inside.
    case callout(CalloutMark)
    case scaleBar(ScaleBarMark)
    case legend(LegendMark)
    /// Leader lines from a shared true position to each spread pin, and a dot at that position.
    case legs(LegBatch)
    /// A raster image (a basemap tile) stretched over a rectangle.
    case raster(RasterMark)
}

/// Decoded pixels: straight (not premultiplied) RGBA, 8 bits per channel, rows packed.
/// A class so that one tile drawn at several places (world copies) is one image to the backend.
public final class RasterImage: Sendable {
    public let width: Int, height: Int
    public let rgba: [UInt8]
    /// Names the image (a tile's source and z/x/y) in messages; not drawn.
    public let name: String
    /// The JPEG file the pixels were decoded from, when they were: SVG and PDF embed these bytes
    /// as they are rather than the pixels re-encoded as PNG.
    public let jpeg: [UInt8]?
    public init(width: Int, height: Int, rgba: [UInt8], name: String, jpeg: [UInt8]? = nil) {
        precondition(rgba.count == width * height * 4, "RGBA buffer size does not match \(width)x\(height)")
        self.width = width; self.height = height; self.rgba = rgba; self.name = name; self.jpeg = jpeg
    }
}

/// A raster image stretched over `rect` (CSS px), resampled with a smooth filter.
public struct RasterMark: Sendable {
    public var image: RasterImage
    public var rect: Rect
    /// Painted with this alpha (a basemap style's `icon-opacity`).
    public var opacity = 1.0
    /// Turned by this many radians (clockwise on the image) about the rect's centre: an icon laid
    /// along a line (`symbol-placement: line`). Tiles are never turned.
    public var angle = 0.0
    public init(image: RasterImage, rect: Rect) { self.image = image; self.rect = rect }
}

/// A callout: box and pointer (CSS px) with the text laid out from `textOrigin`, wrapped at `maxWidth`.
public struct CalloutMark: Sendable {
    public var text: String
    public var font: FontSpec
    public var color: RGBA
    public var fill: RGBA
    public var stroke: RGBA
    public var strokeWidth: Double
    public var box: Rect
    public var cornerRadius: Double
    /// Base start, tip, base end.
    public var pointer: [(Double, Double)]
    public var textOrigin: (x: Double, y: Double)
    public var maxWidth: Double
    /// The whole callout's opacity (an animation frame fades a callout with its marker).
    public var opacity: Double = 1
    /// The point or the bubble it names, as `LabelMark.owner` and `LabelMark.bubble`.
    public var owner: Int?
    public var bubble: Int?

    /// What box and pointer cover (before the stroke).
    public var bounds: Rect {
        var x0 = box.x, y0 = box.y, x1 = box.maxX, y1 = box.maxY
        for (x, y) in pointer {
            x0 = min(x0, x); y0 = min(y0, y); x1 = max(x1, x); y1 = max(y1, y)
        }
        return Rect(x: x0, y: y0, width: x1 - x0, height: y1 - y0)
    }

    /// The box and its pointer as one outline, for every backend (Cairo for PNG, SVG and PDF, the
    /// animated SVG): the rounded box clockwise from its top-left corner, then the pointer's
    /// triangle, which overlaps the box's edge, so that filled with the non-zero rule the two are
    /// one shape. Stroked at twice `strokeWidth` before the fill covers its inner half.
    public var outline: [PathElement] {
        let b = box, r = cornerRadius
        var path: [PathElement] = [
            .arc(cx: b.x + r, cy: b.y + r, radius: r, from: .pi, to: 1.5 * .pi),
            .arc(cx: b.maxX - r, cy: b.y + r, radius: r, from: 1.5 * .pi, to: 2 * .pi),
            .arc(cx: b.maxX - r, cy: b.maxY - r, radius: r, from: 0, to: 0.5 * .pi),
            .arc(cx: b.x + r, cy: b.maxY - r, radius: r, from: 0.5 * .pi, to: .pi),
            .close,
        ]
        if pointer.count == 3 {
            path += [.moveTo(x: pointer[0].0, y: pointer[0].1), .lineTo(x: pointer[1].0, y: pointer[1].1),
                     .lineTo(x: pointer[2].0, y: pointer[2].1), .close]
        }
        return path
    }
}

/// Cluster bubbles: a filled circle per cluster with its (measured) text centred in it.
public struct BubbleBatch: Sendable {
    public struct Bubble: Sendable, Equatable {
        public var x: Double, y: Double, radius: Double
        public var fill: RGBA
        public var count: Int
        public var text: String
        /// The text's measured box, centred on the bubble.
        public var textBox: Rect
        /// The text's size when smaller than the batch's font (a long aggregate shrunk to fit
        /// its bubble: `BubbleTextFit`), CSS px; nil: the batch's font size.
        public var textSize: Double? = nil
        /// Its index in the plan's bubbles (`MarkPlan.bubbles`); not drawn: an animated SVG follows
        /// one bubble from frame to frame by it. -1: none.
        public var planIndex = -1
        public var box: Rect { Rect(x: x - radius, y: y - radius, width: 2 * radius, height: 2 * radius) }
    }
    public var bubbles: [Bubble] = []
    public var stroke: RGBA
    public var strokeWidth: Double
    public var opacity: Double
    public var font: FontSpec
    public var textColor: RGBA

    public init(stroke: RGBA, strokeWidth: Double, opacity: Double, font: FontSpec, textColor: RGBA) {
        self.stroke = stroke; self.strokeWidth = strokeWidth; self.opacity = opacity
        self.font = font; self.textColor = textColor
    }
}

/// Spread legs, flat: segment k runs from (x0[k], y0[k]) to (x1[k], y1[k]); dot k at a true
/// position (dotX[k], dotY[k]) with radius dotR[k].
public struct LegBatch: Sendable {
    public var x0: [Double] = [], y0: [Double] = [], x1: [Double] = [], y1: [Double] = []
    public var dotX: [Double] = [], dotY: [Double] = [], dotR: [Double] = []
    public var color: RGBA
    public var width: Double
    /// The style's dot radius: the largest a dot is drawn (`dotR`, see `MapLayout.legs`).
    public var dotRadius: Double
    public var dotColor: RGBA

    public init(color: RGBA, width: Double, dotRadius: Double, dotColor: RGBA) {
        self.color = color; self.width = width; self.dotRadius = dotRadius; self.dotColor = dotColor
    }
    public var count: Int { x0.count }
}

/// Polygons or lines in CSS pixels, flat: `coords` holds x, y pairs; rings and paths index into it.
/// A polygon batch fills each path (a polygon with its holes, even-odd) and strokes its outline;
/// a line batch strokes open paths.
public struct ShapeBatch: Sendable {
    public var kind: ShapeKind
    public var paint: ShapePaint
    public var coords: [Double] = []
    /// Start (in pairs) of each ring, plus one final end index.
    public var ringStart: [Int] = [0]
    /// Start (in rings) of each path (a polygon with its holes, or a line), plus one final end index.
    public var pathRingStart: [Int] = [0]
    /// Polygon edges not stroked, ascending: vertex index p (in pairs) means the edge from p to
    /// p + 1 lies on a cut (±180° or the clamped ±85.05° edge), not on a coast or border.
    public var unstroked: [Int] = []
    /// Fill each path on its own (data polygons, which may overlap), instead of all paths as one
    /// even-odd path (a basemap's countries, which share borders: no seam between them).
    public var fillsPathsApart = false
    /// Per path, the feature it draws (`ShapeSet.feature`), when its layer asks
    /// (`StyleLayer.keepsFeatures`: an animation's trail, which the animated SVG follows from
    /// frame to frame by it); else nil. Not drawn.
    public var pathFeatures: [Int]?

    public init(kind: ShapeKind, paint: ShapePaint) {
        self.kind = kind; self.paint = paint
    }

    public init(kind: ShapeKind, fill: RGBA, stroke: RGBA, strokeWidth: Double) {
        self.init(kind: kind, paint: ShapePaint(fill: fill, stroke: stroke, strokeWidth: strokeWidth))
    }

    public var fill: RGBA { paint.fill }
    public var stroke: RGBA { paint.stroke }
    public var strokeWidth: Double { paint.strokeWidth }

    public var pathCount: Int { pathRingStart.count - 1 }

    public mutating func closeRing() { ringStart.append(coords.count / 2) }
    public mutating func closePath() { pathRingStart.append(ringStart.count - 1) }

    /// Appends another batch's paths (of the same kind and paint) after this one's.
    public mutating func append(_ other: ShapeBatch) {
        let vertexBase = coords.count / 2, ringBase = ringStart.count - 1
        coords += other.coords
        ringStart += other.ringStart.dropFirst().map { $0 + vertexBase }
        pathRingStart += other.pathRingStart.dropFirst().map { $0 + ringBase }
        unstroked += other.unstroked.map { $0 + vertexBase }
        if let f = other.pathFeatures { pathFeatures = (pathFeatures ?? []) + f }
    }
}

/// How one kind of marker looks. A pin's anchor (its tip) is the point; a circle's or square's is its centre.
public struct MarkerSymbol: Hashable, Sendable {
    public var shape: MarkerShape
    /// Pin height or circle/square diameter, CSS px.
    public var size: Double
    public var fill: RGBA
    public var stroke: RGBA
    public var strokeWidth: Double
    public var opacity: Double
    /// A digit, letter or short text drawn inside the pin's head, the circle or the square
    /// (simplestyle `marker-symbol`, `--number-markers`); nil: none.
    public var text: MarkerText?
    /// An image drawn instead of the shape (`marker.icon`); `size` is then its height, CSS px,
    /// and its width keeps the icon's proportions (`MarkerGeometry.iconRect`).
    public var icon: MarkerIcon?

    public init(shape: MarkerShape, size: Double, fill: RGBA, stroke: RGBA, strokeWidth: Double, opacity: Double,
                text: MarkerText? = nil, icon: MarkerIcon? = nil) {
        self.shape = shape; self.size = size; self.fill = fill; self.stroke = stroke
        self.strokeWidth = strokeWidth; self.opacity = opacity; self.text = text; self.icon = icon
    }

    /// The radius of a pin's round head.
    public var pinHeadRadius: Double { size * 0.36 }

    /// How far the drawn symbol reaches from its anchor, CSS px (stroke included).
    /// Small opaque circles and squares (≤ 8 px) draw every outline of their batch before any fill,
    /// so a dense field reads as the fill colour with one outline around it, not as white.
    public var outlinesFirst: Bool { shape != .pin && size <= 8 && opacity >= 1 && strokeWidth > 0 && stroke.a > 0 && text == nil && icon == nil }

    public var extent: EdgeInsets {
        if icon != nil, let r = MarkerGeometry.iconRect(for: self) {
            return EdgeInsets(top: -r.y, right: r.maxX, bottom: r.maxY, left: -r.x)
        }
        let h = strokeWidth / 2
        switch shape {
        case .pin:
            let r = pinHeadRadius
            return EdgeInsets(top: size + h, right: r + h, bottom: h + 0.5, left: r + h)
        case .circle, .square:
            return EdgeInsets(all: size / 2 + h)
        }
    }
}

/// Markers as flat arrays: position (CSS px) and symbol index per marker, in draw order.
public struct MarkerBatch: Sendable {
    public var symbols: [MarkerSymbol] = []
    public var x: [Double] = []
    public var y: [Double] = []
    public var symbol: [UInt16] = []

    public init() {}
    public var count: Int { x.count }

    /// Marker k's pixel box (its symbol's extent around its anchor).
    public func box(at k: Int) -> Rect {
        let e = symbols[Int(symbol[k])].extent
        return Rect(x: x[k] - e.left, y: y[k] - e.top, width: e.left + e.right, height: e.top + e.bottom)
    }

    /// What marker k's label hugs: a pin's round head, a circle or square itself.
    public func labelAnchor(at k: Int) -> Rect {
        let sym = symbols[Int(symbol[k])]
        guard sym.shape == .pin, sym.icon == nil else { return box(at: k) }
        let r = sym.pinHeadRadius
        return Rect(x: x[k] - r, y: y[k] - sym.size, width: 2 * r, height: 2 * r)
    }
}

/// A text label: its measured box (top-left corner and size, CSS px) and look.
public struct LabelMark: Sendable, Equatable {
    public var text: String
    public var font: FontSpec
    public var color: RGBA
    public var halo: RGBA
    public var haloWidth: Double
    /// Top-left of the text's logical box.
    public var x: Double
    public var y: Double
    public var width: Double
    public var height: Double
    /// The whole label's opacity (an animation frame fades a label with its marker).
    public var opacity: Double = 1
    /// The point it names (its index in the map's data); nil for a bubble's label. Not drawn: an
    /// animated SVG follows one point's label from frame to frame by it.
    public var owner: Int?
    /// The bubble it names (its index in the plan's bubbles); nil for a point's label. Not drawn,
    /// as `owner`.
    public var bubble: Int?
    /// Wrapped at this width (CSS px), lines centred (a basemap style's `text-max-width`); nil: one line.
    public var maxWidth: Double?
    /// The halo fades out over this many px about its edge (a basemap style's `text-halo-blur`).
    public var haloBlur = 0.0
    /// How the lines of a wrapped label (`maxWidth`) sit on each other: 0 left, 0.5 centred
    /// (the default), 1 right (a basemap style's `text-justify`).
    public var justify = 0.5
    /// A name set away from its dot on a crowded map (`LeaderLabel`): the thin line from the dot
    /// to it, drawn under the text in its colour. nil for a name beside its mark.
    public var leader: LeaderLine?

    public init(text: String, font: FontSpec, color: RGBA, halo: RGBA, haloWidth: Double,
                x: Double, y: Double, width: Double, height: Double) {
        self.text = text; self.font = font; self.color = color; self.halo = halo; self.haloWidth = haloWidth
        self.x = x; self.y = y; self.width = width; self.height = height
    }

    public var box: Rect { Rect(x: x, y: y, width: width, height: height) }
}

/// A leader line from a dot to its name, CSS px: drawn under the name, in the name's colour.
public struct LeaderLine: Sendable, Equatable {
    public var x0: Double, y0: Double, x1: Double, y1: Double
    /// Stroke width, CSS px.
    public var width: Double

    public init(x0: Double, y0: Double, x1: Double, y1: Double, width: Double) {
        self.x0 = x0; self.y0 = y0; self.x1 = x1; self.y1 = y1; self.width = width
    }

    /// The line's bounding box grown by half its width.
    public var bounds: Rect {
        let h = width / 2
        return Rect(x: min(x0, x1) - h, y: min(y0, y1) - h, width: abs(x1 - x0) + width, height: abs(y1 - y0) + width)
    }
}

/// Text on a filled rectangle (attribution).
public struct TextBoxMark: Sendable, Equatable {
    public var text: String
    public var font: FontSpec
    public var color: RGBA
    public var background: RGBA
    public var box: Rect
    public var padding: Double
    public init(text: String, font: FontSpec, color: RGBA, background: RGBA, box: Rect, padding: Double) {
        self.text = text; self.font = font; self.color = color; self.background = background
        self.box = box; self.padding = padding
    }
}

public struct Rect: Sendable, Equatable, Hashable {
    public var x: Double, y: Double, width: Double, height: Double
    public init(x: Double, y: Double, width: Double, height: Double) {
        self.x = x; self.y = y; self.width = width; self.height = height
    }
    public var maxX: Double { x + width }
    public var maxY: Double { y + height }
    public var midX: Double { x + width / 2 }
    public var midY: Double { y + height / 2 }
    public func intersects(_ o: Rect) -> Bool {
        x < o.maxX && o.x < maxX && y < o.maxY && o.y < maxY
    }
    public func contains(_ o: Rect) -> Bool {
        o.x >= x && o.y >= y && o.maxX <= maxX && o.maxY <= maxY
    }
}
