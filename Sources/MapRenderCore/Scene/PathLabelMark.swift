/// A text laid along a line, glyph by glyph (cluster by cluster): each piece where layout put it,
/// so every backend draws the same positions.
public struct PathLabelMark: Sendable, Equatable {
    /// One cluster of the text: its baseline's left end (CSS px) and its rotation (radians,
    /// clockwise on the image, 0 along +x).
    ///
    /// A backend draws the cluster's glyphs from its shaping of the whole text (`start` finds
    /// them), so letters that join (Arabic) or combine (Devanagari) keep the forms they take in
    /// the word; `text` alone, shaped apart, would break the joins.
    public struct Glyph: Sendable, Equatable {
        public var text: String
        /// Where `text` starts in the whole label's text, UTF-8 bytes (`GlyphRun.start`); -1: unknown.
        public var start: Int
        public var x: Double, y: Double
        public var angle: Double
        public init(text: String, start: Int = -1, x: Double, y: Double, angle: Double) {
            self.text = text; self.start = start; self.x = x; self.y = y; self.angle = angle
        }
    }

    /// The whole text (for summaries and tests).
    public var text: String
    public var font: FontSpec
    public var color: RGBA
    public var halo: RGBA
    public var haloWidth: Double
    public var glyphs: [Glyph]
    /// The boxes it holds in the collision index (one per glyph, its rotated box's bounds).
    public var boxes: [Rect]
    public var opacity: Double = 1
    /// The halo fades out over this many px about its edge (`text-halo-blur`).
    public var haloBlur = 0.0

    public init(text: String, font: FontSpec, color: RGBA, halo: RGBA, haloWidth: Double, glyphs: [Glyph], boxes: [Rect]) {
        self.text = text; self.font = font; self.color = color; self.halo = halo; self.haloWidth = haloWidth
        self.glyphs = glyphs; self.boxes = boxes
    }

    /// The union of `boxes`.
    public var bounds: Rect {
        guard let first = boxes.first else { return Rect(x: 0, y: 0, width: 0, height: 0) }
        var x0 = first.x, y0 = first.y, x1 = first.maxX, y1 = first.maxY
        for b in boxes.dropFirst() { x0 = min(x0, b.x); y0 = min(y0, b.y); x1 = max(x1, b.maxX); y1 = max(y1, b.maxY) }
        return Rect(x: x0, y: y0, width: x1 - x0, height: y1 - y0)
    }
}
