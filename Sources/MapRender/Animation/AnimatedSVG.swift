import Foundation
import MapRenderCairo
import MapRenderCore

/// One SVG file animated with SMIL: the still map (background, basemap, attribution) as Cairo
/// draws it, then one element per point id and one per bubble, whose position, size and opacity
/// run through every frame's planned values (`<animate>`/`<animateTransform>`, linear between
/// frames, looping).
///
/// Markers take their shape, colour and size from the frame they first appear in, scaled as
/// each frame's scene draws them, with the scene's outline width (which does not scale with the
/// marker: `MarkerStyler.outline`); small opaque dots draw all their outlines before any fill in
/// the frames whose scene does so, as in the still map. Trails (`--trail`) are the lines each
/// frame's scene draws (`ShapeBatch.pathFeatures`). Spread groups draw their
/// legs (one per member, its ends following the group's centre and the marker) and the dot at
/// the true position, under the markers; bubbles are drawn above every marker, as in the still
/// map, stacked as each frame's scene stacks them (`BubbleStacking`: a copy of a bubble per run
/// of frames stacked alike). Bubbles are read from each frame's scene (`BubbleBatch`, as the layout drew them for the
/// PNG frames: nudged apart, kept inside the world, drawn opaque where they cover a marker, their
/// text fitted, shrunk and kept on the image there): their centre, radius, fill and opacity, and
/// their text (one element per text and size the bubble shows, at the scene's text box, shown
/// while it has it); plain labels follow their placement in each frame (one text per point and label
/// string, one per string for bubbles' labels), and so do callouts: the outline of box and
/// pointer (`CalloutMark.outline`, as Cairo draws it) per frame, and the text in the lines Pango
/// breaks it into, each in Pango's direction.
struct AnimatedSVG {
    let base: RenderRequest
    let fps: Double
    let frameCount: Int

    private struct Track {
        var x: [Float], y: [Float], size: [Float], opacity: [Float]
        var symbol: MarkerSymbol?

        init(frames: Int) {
            x = Array(repeating: .nan, count: frames)
            y = x; size = x; opacity = x
        }
    }

    /// A marker through the frames: its track (scale: the drawn symbol's size against its own),
    /// and per frame the outline width the scene's symbol has (`MarkerStyler.outline` of the size
    /// drawn: a shrinking marker keeps its outline, thinned only below a sixth of its size) and
    /// whether it is a small dot whose outline is painted before every marker (`outlinesFirst`);
    /// NaN and nil where the frame's scene does not draw it.
    private struct MarkerTrack {
        var track: Track
        var stroke: [Float]
        var outlinesFirst: [Bool?]
        init(frames: Int) {
            track = Track(frames: frames)
            stroke = Array(repeating: .nan, count: frames)
            outlinesFirst = Array(repeating: nil, count: frames)
        }
    }
    private var markers: [Int: MarkerTrack] = [:]
    /// A bubble through the frames: its disc (centre, radius, the batch's opacity; NaN where
    /// absent), its fill per frame, and its texts by text and size: the text box's centre x, its
    /// baseline y, present where shown.
    private struct BubbleTrack {
        var disc: Track
        var fill: [String?]
        var texts: [String: (text: String, size: Double, track: Track)] = [:]
        init(frames: Int) {
            disc = Track(frames: frames)
            fill = Array(repeating: nil, count: frames)
        }
    }
    private var bubbles: [Int: BubbleTrack] = [:]
    /// Per frame, its bubbles' tracks in the order its scene draws them (each over the ones before).
    private var bubbleOrder: [[Int]]
    /// The bubbles' outline width, CSS px (the scenes').
    private var bubbleStroke: Double?
    /// The bubbles' font (family and weight; sizes per text).
    private var bubbleFont: FontSpec?
    /// Spread legs by member key: from the group's centre to the marker, per frame (NaN where
    /// the point is in no spread group).
    private var legs: [Int: (from: Track, to: Track)] = [:]
    /// The dots at the groups' true positions, by the group's smallest member key (size: radius).
    private var legDots: [Int: Track] = [:]
    /// Labels by point and text (`textKey`): baseline position and opacity per frame, and the look
    /// from the first frame.
    private var labels: [String: (track: Track, mark: LabelMark)] = [:]
    /// A callout through the frames: the text's top-left (x, y) and opacity per frame, the
    /// outline's path data per frame (nil where absent), and the look from the first frame.
    private typealias CalloutTrack = (track: Track, outlines: [String?], mark: CalloutMark)
    /// Callouts by point and text (`textKey`).
    private var callouts: [String: CalloutTrack] = [:]
    /// The ids of the icons' images in the document being written (`document`).
    private final class IconIDs { var ids: [MarkerIcon: String] = [:] }
    private let iconIDs = IconIDs()
    /// `--trail`: each frame's scene holds the trail's lines (`AnimationTrails`).
    var trails: AnimationTrails?
    /// A trail's line from frame to frame: its point, its age, and which of the segment's copies
    /// (one per copy of the world the view shows) in the scene's order.
    private struct TrailSlot: Hashable, Comparable {
        var key: Int, age: Int, copy: Int
        static func < (a: TrailSlot, b: TrailSlot) -> Bool { (a.key, a.age, a.copy) < (b.key, b.age, b.copy) }
    }
    /// A trail's line through the frames, as the scenes drew it: the older end (`from`) and the
    /// newer (`to`) per frame, CSS px (NaN where the frame has none), its colour per frame (nil
    /// where absent), and the width and cap of the frame it first appears in.
    private struct TrailLine {
        var from: Track, to: Track
        var color: [RGBA?]
        var width: Double
        var cap: LineCap
    }
    private var trailLines: [TrailSlot: TrailLine] = [:]
    /// Per frame, the world's extent on its image (`Scene.world`; nil: the world covers it), which
    /// shape batches, the trail's among them, are clipped to (Cairo's `drawShapes`).
    private var worlds: [Rect?]
    /// Measures text as the layout did, for SVG baselines and directions.
    private let pango: PangoText
    /// Plain labels' single lines, by text.
    private var labelLines: [String: PangoText.Line] = [:]

    init(base: RenderRequest, fps: Double, frameCount: Int) {
        self.base = base
        self.pango = PangoText(systemFonts: base.systemFonts)
        self.fps = fps
        self.frameCount = frameCount
        bubbleOrder = Array(repeating: [], count: frameCount)
        worlds = Array(repeating: nil, count: frameCount)
    }

    /// The points drawn as markers in a frame (`FramePlan.drawn`).
    private func marks(_ plan: FramePlan) -> [Int] { plan.drawn }

    /// Adds a frame: its markers and bubbles from the plan, its labels as layout placed them.
    mutating func add(_ plan: FramePlan, scene: Scene) {
        let k = plan.index
        let styles = MarkerStyler.resolve(points: plan.points, style: base.style)
        worlds[k] = scene.world
        if trails != nil {
            // The trail's lines as the scene drew them (`AnimationTrails.layer`: path p of a batch
            // draws segment `pathFeatures[p]` of the plan's, from its older end to its newer).
            var copies: [Int: Int] = [:]
            for item in scene.items {
                guard case .shapes(let b) = item, b.kind == .line, let features = b.pathFeatures else { continue }
                for p in 0..<min(b.pathCount, features.count) where plan.trail.indices.contains(features[p]) {
                    let s = plan.trail[features[p]]
                    let v0 = b.ringStart[b.pathRingStart[p]], v1 = b.ringStart[b.pathRingStart[p] + 1]
                    guard v1 - v0 >= 2 else { continue }
                    let slot = TrailSlot(key: s.key, age: s.age, copy: copies[features[p], default: 0])
                    copies[features[p]] = slot.copy + 1
                    var e = trailLines[slot] ?? TrailLine(from: Track(frames: frameCount), to: Track(frames: frameCount),
                                                          color: Array(repeating: nil, count: frameCount),
                                                          width: b.strokeWidth, cap: b.paint.cap)
                    e.from.x[k] = Float(b.coords[2 * v0]); e.from.y[k] = Float(b.coords[2 * v0 + 1])
                    e.to.x[k] = Float(b.coords[2 * v1 - 2]); e.to.y[k] = Float(b.coords[2 * v1 - 1])
                    e.from.size[k] = 1; e.from.opacity[k] = 1; e.to.size[k] = 1; e.to.opacity[k] = 1
                    e.color[k] = b.stroke
                    trailLines[slot] = e
                }
            }
        }
        let marks = plan.marks
        // Markers where the frame's scene draws them (`Scene.markerPoints`: moved inside the world
        // as the PNG frames' are), at the size and opacity of the scene's symbol (quantised as
        // drawn) against the marker's own; one the scene culled (beyond the image) where the plan has it.
        var drawnAt: [Int32] = []
        let batch = scene.markers.first
        if let points = scene.markerPoints, let batch, points.count == batch.count {
            drawnAt = [Int32](repeating: -1, count: plan.points.count)
            for (j, i) in points.enumerated() where i < drawnAt.count { drawnAt[i] = Int32(j) }
        }
        for (m, i) in marks.markerPoint.enumerated() {
            let key = plan.keys[i]
            var e = markers[key] ?? MarkerTrack(frames: frameCount)
            if e.track.symbol == nil { e.track.symbol = styles.symbols[Int(styles.index[i])] }
            if !drawnAt.isEmpty, drawnAt[i] >= 0, let batch, let own = e.track.symbol, own.size > 0, own.opacity > 0 {
                let j = Int(drawnAt[i]), s = batch.symbols[Int(batch.symbol[j])]
                e.track.x[k] = Float(batch.x[j]); e.track.y[k] = Float(batch.y[j])
                e.track.size[k] = Float(s.size / own.size); e.track.opacity[k] = Float(s.opacity / own.opacity)
                e.stroke[k] = Float(s.strokeWidth)
                e.outlinesFirst[k] = s.outlinesFirst
            } else {
                e.track.x[k] = Float(marks.markerX[m]); e.track.y[k] = Float(marks.markerY[m])
                e.track.size[k] = Float(plan.scale[i]); e.track.opacity[k] = Float(plan.opacity[i])
            }
            markers[key] = e
        }
        // Spread legs and dots as the frame's layout drew them (`MapLayout.legs`: a leg per member
        // of each group, in group order, and a dot per group), each leg named
        // by its member's key and each dot by its group's smallest key.
        if let drawn = scene.legs.first {
            var segment = 0
            for (g, group) in marks.spreadGroups.enumerated() {
                let members = group.firstMarker..<(group.firstMarker + group.members.count)
                for m in members {
                    let key = plan.keys[marks.markerPoint[m]]
                    var leg = legs[key] ?? (Track(frames: frameCount), Track(frames: frameCount))
                    leg.from.x[k] = Float(drawn.x0[segment]); leg.from.y[k] = Float(drawn.y0[segment])
                    leg.to.x[k] = Float(drawn.x1[segment]); leg.to.y[k] = Float(drawn.y1[segment])
                    leg.from.size[k] = 1; leg.from.opacity[k] = 1
                    leg.to.size[k] = 1; leg.to.opacity[k] = 1
                    legs[key] = leg
                    segment += 1
                }
                let key = members.map { plan.keys[marks.markerPoint[$0]] }.min() ?? 0
                var dot = legDots[key] ?? Track(frames: frameCount)
                dot.x[k] = Float(drawn.dotX[g]); dot.y[k] = Float(drawn.dotY[g]); dot.size[k] = Float(drawn.dotR[g]); dot.opacity[k] = 1
                legDots[key] = dot
            }
        }
        // Bubbles as the frame's scene has them (`BubbleBatch.Bubble.planIndex` names the plan's
        // bubble, whose track follows it from frame to frame).
        for item in scene.items {
            guard case .bubbles(let batch) = item else { continue }
            if bubbleFont == nil { bubbleFont = batch.font }
            if bubbleStroke == nil { bubbleStroke = batch.strokeWidth }
            for b in batch.bubbles where plan.bubbles.indices.contains(b.planIndex) {
                let track = plan.bubbles[b.planIndex].track
                bubbleOrder[k].append(track)
                var e = bubbles[track] ?? BubbleTrack(frames: frameCount)
                e.disc.x[k] = Float(b.x); e.disc.y[k] = Float(b.y)
                e.disc.size[k] = Float(b.radius); e.disc.opacity[k] = Float(batch.opacity)
                e.fill[k] = svgColor(b.fill).0
                if !b.text.isEmpty {
                    var font = batch.font
                    font.size = b.textSize ?? batch.font.size
                    let key = "\(b.text) \(font.size)"
                    var t = e.texts[key] ?? (b.text, font.size, Track(frames: frameCount))
                    // SVG places text by its baseline: where Pango's layout puts it in the text box.
                    t.track.x[k] = Float(b.textBox.x + b.textBox.width / 2)
                    t.track.y[k] = Float(b.textBox.y + pango.baseline(b.text, font: font))
                    t.track.size[k] = 1; t.track.opacity[k] = 1
                    e.texts[key] = t
                }
                bubbles[track] = e
            }
        }
        for l in scene.labels {
            let key = Self.textKey(point: l.owner.map { plan.keys[$0] }, bubble: l.bubble.map { plan.bubbles[$0].track }, l.text)
            var entry = labels[key] ?? (Track(frames: frameCount), l)
            // SVG places text by its baseline: where Pango's layout puts it in the label's box.
            entry.track.x[k] = Float(l.x); entry.track.y[k] = Float(l.y + line(l.text, l.font).baseline)
            entry.track.size[k] = 1; entry.track.opacity[k] = Float(l.opacity)
            labels[key] = entry
        }
        for item in scene.items {
            guard case .callout(let c) = item else { continue }
            let key = Self.textKey(point: c.owner.map { plan.keys[$0] }, bubble: c.bubble.map { plan.bubbles[$0].track }, c.text)
            var entry = callouts[key] ?? (Track(frames: frameCount), Array(repeating: nil, count: frameCount), c)
            entry.track.x[k] = Float(c.textOrigin.x); entry.track.y[k] = Float(c.textOrigin.y)
            entry.track.size[k] = 1; entry.track.opacity[k] = Float(c.opacity)
            entry.outlines[k] = PathElement.svgPathData(c.outline, number: num)
            callouts[key] = entry
        }
    }

    /// A label's or callout's element: one per point (by its key) or bubble (by its track) and
    /// text, so that two points or bubbles of one name keep a text each, and one whose name
    /// changes (a bubble's count) shows each name while it has it.
    private static func textKey(point: Int?, bubble: Int?, _ text: String) -> String {
        if let point { return "p\(point) \(text)" }
        if let bubble { return "b\(bubble) \(text)" }
        return " \(text)"
    }

    /// A plain label's line as Pango lays it out (labels share one font): its baseline below the
    /// label box's top, and its direction.
    private mutating func line(_ text: String, _ font: FontSpec) -> PangoText.Line {
        if let l = labelLines[text] { return l }
        let l = pango.lines(text, font: font, maxWidth: nil).first ?? PangoText.Line(text: text, x: 0, baseline: 0, rightToLeft: false)
        labelLines[text] = l
        return l
    }

    /// A line's text for SVG: a right-to-left line (Pango's direction) isolated as right to left
    /// (U+2067 ... U+2069), so that its words come in Pango's order also where a left-to-right
    /// word is among them (the SVG's own direction is left to right).
    private static func directed(_ text: String, rightToLeft: Bool) -> String {
        rightToLeft ? "\u{2067}\(text)\u{2069}" : text
    }

    /// The document: `background` (an SVG from Cairo) with the animated marks added on top.
    func document(background: Data) -> Data {
        var text = String(decoding: background, as: UTF8.self)
        let close = text.range(of: "</svg>", options: .backwards)?.lowerBound ?? text.endIndex
        text = String(text[..<close])
        let timing = linearTiming
        let stepped = frameTiming(timing)
        var out = text
        out += "<g id=\"maprender-animation\" transform=\"scale(\(num(base.scale)))\">\n"

        // Trails under everything else: one line per point, age and world copy as the scenes drew
        // it, its ends following the frames, shown only in the frames whose scene has it.
        if !trailLines.isEmpty {
            // Clipped to the world, as Cairo clips every shape batch: beyond it is the letterbox.
            if worlds.contains(where: { $0 != nil }) {
                let image = Rect(x: 0, y: 0, width: base.width, height: base.height)
                let rects = worlds.map { $0 ?? image }
                out += "<clipPath id=\"maprender-trail-world\"><rect x=\"\(num(rects[0].x))\" y=\"\(num(rects[0].y))\""
                out += " width=\"\(num(rects[0].width))\" height=\"\(num(rects[0].height))\">"
                if frameCount > 1 {
                    for (name, value) in [("x", \Rect.x), ("y", \Rect.y), ("width", \Rect.width), ("height", \Rect.height)] {
                        let values = rects.map { num($0[keyPath: value]) }
                        if Set(values).count > 1 { out += discrete(name, values, stepped) }
                    }
                }
                out += "</rect></clipPath>\n<g clip-path=\"url(#maprender-trail-world)\">\n"
            } else {
                out += "<g>\n"
            }
            for slot in trailLines.keys.sorted() {
                let e = trailLines[slot]!
                let present = e.color.map { $0 != nil }
                let colors = nearestPresent(e.color.map { $0.map { svgColor($0).0 } }, present: present, default: "#000000")
                let alphas = nearestPresent(e.color.map { $0.map { String(format: "%.4f", $0.a) } }, present: present, default: "0")
                var attributes = " stroke=\"\(colors[0])\" stroke-opacity=\"\(alphas[0])\" stroke-width=\"\(num(e.width))\""
                attributes += " stroke-linecap=\"\(e.cap.rawValue)\""
                // A colour or opacity that changes (a point's fill from keyframe to keyframe) steps at frame times.
                var content = ""
                if frameCount > 1 && Set(colors).count > 1 { content += discrete("stroke", colors, stepped) }
                if frameCount > 1 && Set(alphas).count > 1 { content += discrete("stroke-opacity", alphas, stepped) }
                out += movingLine(from: e.from, to: e.to, frameCount: frameCount, timing: timing, stepped: stepped,
                                  attributes: attributes, content: content)
            }
            out += "</g>\n"
        }

        // Spread legs under the markers: one group at the legs' colour's alpha, so that legs
        // meeting at a group's centre do not darken each other (one stroke in the still map).
        let sp = base.style.spread
        if !legs.isEmpty && sp.legWidth > 0 {
            let (legRGB, legAlpha) = svgColor(sp.legColor)
            out += "<g stroke=\"\(legRGB)\" stroke-width=\"\(num(sp.legWidth))\" stroke-linecap=\"round\" opacity=\"\(num(legAlpha))\">\n"
            for key in legs.keys.sorted() {
                out += movingLine(from: legs[key]!.from, to: legs[key]!.to, frameCount: frameCount, timing: timing,
                                  stepped: stepped, attributes: "")
            }
            out += "</g>\n"
        }
        if !legDots.isEmpty && sp.dotRadius > 0 {
            let (dotRGB, dotAlpha) = svgColor(sp.dotColor)
            for key in legDots.keys.sorted() {
                let t = filled(legDots[key]!)
                out += "<circle cx=\"\(num(t.x[0]))\" cy=\"\(num(t.y[0]))\" r=\"\(num(t.size[0]))\" fill=\"\(dotRGB)\" fill-opacity=\"\(num(dotAlpha))\">"
                if frameCount > 1 {
                    out += animate("cx", t.x.map(num), timing) + animate("cy", t.y.map(num), timing)
                    out += discrete("r", t.size.map(num), stepped)
                }
                out += "</circle>\n"
            }
        }
        // Small opaque dots (`outlinesFirst`) draw every outline before any fill, as the PNG does,
        // so a dense field reads as its fill colour.
        let markerKeys = markers.keys.sorted()
        let tracks = markerKeys.map { filled(markers[$0]!.track) }
        let outlines = markerKeys.map { markerOutlines(markers[$0]!) }
        // Icons: each file once, as an image at its own drawn size, that every marker using it references.
        var icons: [MarkerIcon: String] = [:]
        for t in tracks {
            guard let icon = t.symbol?.icon, icons[icon] == nil else { continue }
            let id = "maprender-icon-\(icons.count + 1)"
            icons[icon] = id
            let mime = icon.format == .svg ? "image/svg+xml" : "image/png"
            out += "<defs><image id=\"\(id)\" width=\"\(num(icon.width))\" height=\"\(num(icon.height))\" preserveAspectRatio=\"none\""
            out += " xlink:href=\"data:\(mime);base64,\(Data(icon.bytes).base64EncodedString())\"/></defs>\n"
        }
        self.iconIDs.ids = icons
        for (t, o) in zip(tracks, outlines) {
            switch o {
            case .fixed:
                if t.symbol!.outlinesFirst { out += markerGroup(t, timing: timing, content: shape(t.symbol!, part: .outline)) }
            case .animated(let widths, let first):
                // Drawn in the frames whose scene paints the marker's outline first, hidden in the others.
                guard first.contains(true) else { continue }
                var shown = t
                shown.opacity = zip(t.opacity, first).map { $1 ? $0 : 0 }
                out += markerGroup(shown, timing: timing, content: outlinePass(t.symbol!, widths: widths.map { w in zip(w, first).map { $1 ? $0 : "0" } }))
            }
        }
        for (t, o) in zip(tracks, outlines) {
            let sym = t.symbol!
            switch o {
            case .fixed:
                out += markerGroup(t, timing: timing, content: shape(sym, part: sym.outlinesFirst ? .fill : .whole))
            case .animated(let widths, let first):
                // Its outline in the frames that draw the marker whole; none where the outline pass drew it.
                out += markerGroup(t, timing: timing, content: shape(sym, part: .whole, strokeWidths: widths.map { w in zip(w, first).map { $1 ? "0" : $0 } }))
            }
        }
        // Bubbles stacked as each frame's scene stacks them (`BubbleStacking`): one copy of each
        // bubble per run of frames, shown in that run's frames only.
        let stacking = BubbleStacking(frames: bubbleOrder, strokeWidth: bubbleStroke ?? base.style.cluster.strokeWidth) { track, k in
            let d = self.bubbles[track]!.disc
            return (Double(d.x[k]), Double(d.y[k]), Double(d.size[k]))
        }
        for run in stacking.runs {
            for key in run.order { out += bubble(bubbles[key]!, frames: run.frames) }
        }
        for key in labels.keys.sorted() {
            let (track, mark) = labels[key]!
            let t = filled(track)
            let (halo, haloAlpha) = svgColor(mark.halo)
            out += "<text x=\"\(num(t.x[0]))\" y=\"\(num(t.y[0]))\" font-family=\"\(xml(mark.font.family))\""
            out += " font-size=\"\(num(mark.font.size))\" font-weight=\"\(mark.font.weight.rawValue)\" fill=\"\(svgColor(mark.color).0)\" fill-opacity=\"\(num(mark.color.a))\""
            out += " stroke=\"\(halo)\" stroke-opacity=\"\(num(haloAlpha))\" stroke-width=\"\(num(2 * mark.haloWidth))\""
            out += " stroke-linejoin=\"round\" paint-order=\"stroke\" opacity=\"\(num(t.opacity[0]))\" xml:space=\"preserve\">"
            if frameCount > 1 {
                out += animate("x", t.x.map(num), timing)
                out += animate("y", t.y.map(num), timing)
                out += animate("opacity", t.opacity.map(num), timing)
            }
            out += Self.directed(xml(mark.text), rightToLeft: labelLines[mark.text]?.rightToLeft ?? false) + "</text>\n"
        }
        for key in callouts.keys.sorted() {
            out += callout(callouts[key]!, timing: timing)
        }
        out += "</g>\n</svg>\n"
        return Data(out.utf8)
    }

    /// One bubble's copy for the frames `shown` (hidden in the others): its disc, then its texts,
    /// one element per text and size where the scene's text box has it, shown while the bubble
    /// shows it. Its position and radius run through the frames of `shown` and the one after
    /// (for the time between), held outside them.
    private func bubble(_ e: BubbleTrack, frames shown: ClosedRange<Int>) -> String {
        let cs = base.style.cluster
        let (strokeRGB, strokeAlpha) = svgColor(cs.stroke)
        let moving = shown.lowerBound...min(shown.upperBound + 1, frameCount - 1)
        let t = filled(e.disc)
        // Absent frames have radius 0 and the look of the nearest present frame: a bubble
        // shrinks away, never fades.
        let present = e.disc.x.map { !$0.isNaN }
        var opacity = nearestPresent(e.disc.opacity.map { $0.isNaN ? nil : num($0) }, present: present, default: num(cs.opacity))
        for k in opacity.indices where !shown.contains(k) { opacity[k] = "0" }
        let fills = nearestPresent(e.fill, present: present, default: svgColor(cs.step(for: 1).fill).0)
        let a = moving.lowerBound
        var out = "<circle cx=\"\(num(t.x[a]))\" cy=\"\(num(t.y[a]))\" r=\"\(num(t.size[a]))\" fill=\"\(fills[a])\""
        out += " stroke=\"\(strokeRGB)\" stroke-opacity=\"\(num(strokeAlpha))\" stroke-width=\"\(num(cs.strokeWidth))\""
        out += " opacity=\"\(opacity[0])\">"
        if frameCount > 1 {
            out += animate("cx", t.x.map(num), frames: moving)
            out += animate("cy", t.y.map(num), frames: moving)
            out += animate("r", t.size.map(num), frames: moving)
            out += discrete("opacity", opacity, frames: moving, before: "0")
            out += discrete("fill", fills, frames: moving, before: nil)
        }
        out += "</circle>\n"
        let family = bubbleFont?.family ?? cs.font
        for textKey in e.texts.keys.sorted() {
            let (text, size, track) = e.texts[textKey]!
            // Only a text the copy shows in some frame.
            guard shown.contains(where: { !track.x[$0].isNaN }) else { continue }
            let p = filled(track)
            let visible = track.x.indices.map { !track.x[$0].isNaN && shown.contains($0) ? "1" : "0" }
            out += "<text x=\"\(num(p.x[a]))\" y=\"\(num(p.y[a]))\" text-anchor=\"middle\" font-family=\"\(xml(family))\""
            out += " font-size=\"\(num(size))\" font-weight=\"bold\""
            out += " fill=\"\(svgColor(cs.textColor).0)\" fill-opacity=\"\(num(cs.textColor.a))\" opacity=\"\(visible[0])\">"
            if frameCount > 1 {
                out += animate("x", p.x.map(num), frames: moving)
                out += animate("y", p.y.map(num), frames: moving)
                out += discrete("opacity", visible, frames: moving, before: "0")
            }
            out += xml(text) + "</text>\n"
        }
        return out
    }

    /// A linear animation through the values of frames `range` (`values` has one per frame), the
    /// first held before them and the last after: every frame's when `range` covers them all.
    private func animate(_ attribute: String, _ values: [String], frames range: ClosedRange<Int>) -> String {
        if range == 0...(frameCount - 1) { return animate(attribute, values, linearTiming) }
        var v = Array(values[range]), times = range.map(keyTime)
        if range.lowerBound > 0 { v.insert(v[0], at: 0); times.insert("0", at: 0) }
        if range.upperBound < frameCount - 1 { v.append(v[v.count - 1]); times.append("1") }
        return "<animate attributeName=\"\(attribute)\" values=\"\(v.joined(separator: ";"))\" keyTimes=\"\(times.joined(separator: ";"))\" \(linearTiming)/>"
    }

    /// A stepwise animation through the values of frames `range` (as `discrete(_:_:_:)`), `before`
    /// (else the first) before them, the last held after them.
    private func discrete(_ attribute: String, _ values: [String], frames range: ClosedRange<Int>, before: String?) -> String {
        if range == 0...(frameCount - 1) { return discrete(attribute, values, frameTiming(linearTiming)) }
        var v = Array(values[range]), times = range.map(keyTime)
        if range.lowerBound > 0 { v.insert(before ?? v[0], at: 0); times.insert("0", at: 0) }
        return "<animate attributeName=\"\(attribute)\" calcMode=\"discrete\" values=\"\(v.joined(separator: ";"))\" keyTimes=\"\(times.joined(separator: ";"))\" \(linearTiming)/>"
    }

    /// One callout: its outline stroked then filled (the fill covers the stroke's inner half, as
    /// Cairo draws it), its text's lines where Pango puts them, all faded as one.
    private func callout(_ entry: CalloutTrack, timing: String) -> String {
        let t = filled(entry.track), mark = entry.mark
        // Absent frames keep the outline of the previous present frame (the first present one before it).
        var outlines = entry.outlines
        if let first = outlines.firstIndex(where: { $0 != nil }) {
            for k in outlines.indices where outlines[k] == nil { outlines[k] = k < first ? outlines[first] : outlines[k - 1] }
        }
        let d = outlines.map { $0 ?? "" }
        let (fill, fillAlpha) = svgColor(mark.fill), (stroke, strokeAlpha) = svgColor(mark.stroke)
        var out = "<g opacity=\"\(num(t.opacity[0]))\">"
        if frameCount > 1 { out += animate("opacity", t.opacity.map(num), timing) }
        out += "<path d=\"\(d[0])\" fill=\"\(fill)\" fill-opacity=\"\(num(fillAlpha))\""
        if mark.strokeWidth > 0 {
            out += " stroke=\"\(stroke)\" stroke-opacity=\"\(num(strokeAlpha))\" stroke-width=\"\(num(2 * mark.strokeWidth))\""
            out += " stroke-linejoin=\"round\" paint-order=\"stroke\""
        }
        out += ">"
        if frameCount > 1 { out += animate("d", d, timing) }
        out += "</path>"
        let translate = zip(t.x, t.y).map { "\(num($0)),\(num($1))" }
        out += "<g transform=\"translate(\(translate[0]))\">"
        if frameCount > 1 {
            out += "<animateTransform attributeName=\"transform\" type=\"translate\" values=\"\(translate.joined(separator: ";"))\" \(timing)/>"
        }
        out += "<text font-family=\"\(xml(mark.font.family))\" font-size=\"\(num(mark.font.size))\""
        out += " font-weight=\"\(mark.font.weight.rawValue)\" fill=\"\(svgColor(mark.color).0)\" fill-opacity=\"\(num(mark.color.a))\""
        // Spaces as Pango keeps them (SVG would fold a run of them into one).
        out += " xml:space=\"preserve\">"
        for line in pango.lines(mark.text, font: mark.font, maxWidth: mark.maxWidth) where !line.text.isEmpty {
            out += "<tspan x=\"\(num(line.x))\" y=\"\(num(line.baseline))\">\(Self.directed(xml(line.text), rightToLeft: line.rightToLeft))</tspan>"
        }
        return out + "</text></g></g>\n"
    }

    /// Text and attribute values with XML's special characters escaped, and the control
    /// characters XML 1.0 does not allow (a label of any bytes would make the file unreadable)
    /// left out; a tab, line feed or carriage return as a space.
    private func xml(_ s: String) -> String {
        var out = ""
        for c in s.unicodeScalars {
            switch c {
            case "&": out += "&amp;"
            case "<": out += "&lt;"
            case ">": out += "&gt;"
            case "\"": out += "&quot;"
            case "\t", "\n", "\r": out += " "
            case "\u{0}"..."\u{1F}", "\u{FFFE}", "\u{FFFF}": continue
            default: out.unicodeScalars.append(c)
            }
        }
        return out
    }

    /// A `<line>` whose ends follow two tracks frame by frame (a spread leg, a trail segment):
    /// absent frames keep the ends of the previous present frame (`filled`), and the line is hidden
    /// there, from that frame's time on (`discrete`). `attributes` start with a space, or are empty.
    private func movingLine(from: Track, to: Track, frameCount: Int, timing: String, stepped: String, attributes: String,
                            content: String = "") -> String {
        let t = filled(from), end = filled(to)
        let shown = t.opacity.map { $0 > 0 ? "1" : "0" }
        var out = "<line x1=\"\(num(t.x[0]))\" y1=\"\(num(t.y[0]))\" x2=\"\(num(end.x[0]))\" y2=\"\(num(end.y[0]))\""
        out += "\(attributes) opacity=\"\(shown[0])\">"
        if frameCount > 1 {
            out += animate("x1", t.x.map(num), timing) + animate("y1", t.y.map(num), timing)
            out += animate("x2", end.x.map(num), timing) + animate("y2", end.y.map(num), timing)
            out += discrete("opacity", shown, stepped)
        }
        return out + content + "</line>\n"
    }

    private func animate(_ attribute: String, _ values: [String], _ timing: String) -> String {
        "<animate attributeName=\"\(attribute)\" values=\"\(values.joined(separator: ";"))\" \(timing)/>"
    }

    /// A stepwise animation whose value k holds from frame k's time to frame k + 1's. Without
    /// `keyTimes`, SMIL splits a discrete animation's duration into as many equal parts as it
    /// has values, so a value began k/N of a frame early (frame times divide it into N - 1): a
    /// leg reappearing at another group showed while its linear ends still slid across the map.
    /// `timing` ends with the frames' `keyTimes` (`frameTiming`).
    private func discrete(_ attribute: String, _ values: [String], _ timing: String) -> String {
        "<animate attributeName=\"\(attribute)\" calcMode=\"discrete\" values=\"\(values.joined(separator: ";"))\" \(timing)/>"
    }

    /// The timing of a discrete animation: `timing` and frame k at k / (frames - 1) of the
    /// duration, as the linear animations place it (six decimals: distinct for a million frames).
    private func frameTiming(_ timing: String) -> String {
        guard frameCount > 1 else { return timing }
        return "keyTimes=\"\((0..<frameCount).map(keyTime).joined(separator: ";"))\" " + timing
    }

    /// Frame k's time as a share of the duration, as `keyTimes` write it: six decimals rounded
    /// down, so that a stepwise value of frame k has begun at frame k's time (rounded up, frame
    /// 7 of 25 switched at 0.291667, after its time 0.2916666...: paused there, Chromium showed
    /// frame 6's value).
    private func keyTime(_ k: Int) -> String {
        if k == frameCount - 1 { return "1" }
        var s = String(format: "%.6f", (Double(k) / Double(frameCount - 1) * 1e6).rounded(.down) / 1e6)
        while s.hasSuffix("0") { s.removeLast() }
        if s.hasSuffix(".") { s.removeLast() }
        return s
    }

    /// Absent frames: at the nearest present position, with size 0 (a bubble that shrank away ends
    /// at radius 0, a marker that travelled into a bubble at scale 0) and opacity 0.
    private func filled(_ track: Track) -> Track {
        var t = track
        let n = frameCount
        guard let firstPresent = t.x.firstIndex(where: { !$0.isNaN }) else { return t }
        var last = firstPresent
        for k in 0..<n {
            if t.x[k].isNaN {
                let from = k < firstPresent ? firstPresent : last
                t.x[k] = t.x[from]; t.y[k] = t.y[from]
                t.size[k] = 0
                t.opacity[k] = 0
            } else {
                last = k
            }
        }
        return t
    }

    /// Per frame, its value where `present`, else the nearest present frame's before it (the
    /// first present one's before that); `fallback` where none is present.
    private func nearestPresent(_ values: [String?], present: [Bool], default fallback: String) -> [String] {
        var out = Array(repeating: fallback, count: values.count)
        guard let first = present.firstIndex(of: true) else { return out }
        var last = values[first] ?? fallback
        for k in values.indices {
            if present[k], let v = values[k] { last = v }
            out[k] = k < first ? (values[first] ?? fallback) : last
        }
        return out
    }

    /// One marker's group: moved, scaled and faded through the frames, around `content`.
    private func markerGroup(_ t: Track, timing: String, content: String) -> String {
        let translate = zip(t.x, t.y).map { "\(num($0)),\(num($1))" }
        var out = "<g transform=\"translate(\(translate[0])) scale(\(num(t.size[0])))\" opacity=\"\(num(t.opacity[0]))\">"
        if frameCount > 1 {
            out += "<animateTransform attributeName=\"transform\" type=\"translate\" values=\"\(translate.joined(separator: ";"))\" \(timing)/>"
            out += "<animateTransform attributeName=\"transform\" type=\"scale\" additive=\"sum\" values=\"\(t.size.map(num).joined(separator: ";"))\" \(timing)/>"
            out += animate("opacity", t.opacity.map(num), timing)
        }
        return out + content + "</g>\n"
    }

    /// How a marker's outline runs through the frames.
    private enum MarkerOutline {
        /// As its own symbol's in every frame that draws it (drawn at its own size, or scaled with
        /// the outline kept in proportion).
        case fixed
        /// Per frame, the outline's width in the marker's own units (the scene symbol's width
        /// over the marker's scale: drawn scaled, it is the scene's width), nil for a symbol
        /// without an outline; and whether the frame paints the outline before every marker.
        case animated(widths: [String]?, outlinesFirst: [Bool])
    }

    /// The outline of `m` through the frames: `fixed` when every frame drawing it draws its own
    /// symbol's outline scaled with it, else the widths per frame (absent frames take the
    /// nearest present one's, the first present one's before it).
    private func markerOutlines(_ m: MarkerTrack) -> MarkerOutline {
        guard let own = m.track.symbol, own.icon == nil, let first = m.outlinesFirst.firstIndex(where: { $0 != nil }) else { return .fixed }
        // Per frame, the nearest frame drawing it, its outline in the marker's units and whether outline-first.
        func frame(_ k: Int, last: inout Int) -> (width: Double, dot: Bool) {
            if m.outlinesFirst[k] != nil { last = k }
            let j = k < first ? first : last
            let f = Double(m.track.size[j]), w = Double(m.stroke[j])
            return (f > 0 ? w / f : own.strokeWidth, m.outlinesFirst[j] ?? own.outlinesFirst)
        }
        // First in numbers (most markers keep their outline: no text made for them), then as written.
        var last = first, fixed = true
        for k in 0..<frameCount {
            let (width, dot) = frame(k, last: &last)
            if dot != own.outlinesFirst || abs(width - own.strokeWidth) >= 0.005 { fixed = false; break }
        }
        if fixed { return .fixed }
        var widths: [String] = [], dots: [Bool] = []
        widths.reserveCapacity(frameCount); dots.reserveCapacity(frameCount)
        last = first
        for k in 0..<frameCount {
            let (width, dot) = frame(k, last: &last)
            widths.append(num(width)); dots.append(dot)
        }
        if widths.allSatisfy({ $0 == num(own.strokeWidth) }) && dots.allSatisfy({ $0 == own.outlinesFirst }) { return .fixed }
        return .animated(widths: own.strokeWidth > 0 ? widths : nil, outlinesFirst: dots)
    }

    /// The outline pass of a small dot whose outline width changes: its shape in the stroke colour,
    /// stroked in it at the frame's width (reaching as far as the outline pass's shape of that
    /// width, `MarkerGeometry.Part.outline`: half the width beyond the shape, square corners sharp).
    private func outlinePass(_ s: MarkerSymbol, widths: [String]?) -> String {
        guard let widths else { return "" }
        var out = "<g opacity=\"\(num(s.opacity))\">"
        let (stroke, strokeAlpha) = svgColor(s.stroke)
        for layer in MarkerGeometry.layers(for: s, part: .fill) {
            out += "<path d=\"\(PathElement.svgPathData(layer.path, number: num))\" fill=\"\(stroke)\" fill-opacity=\"\(num(strokeAlpha))\""
            out += " stroke=\"\(stroke)\" stroke-opacity=\"\(num(strokeAlpha))\" stroke-width=\"\(widths[0])\" stroke-linejoin=\"miter\">"
            if frameCount > 1 { out += animate("stroke-width", widths, linearTiming) }
            out += "</path>"
        }
        return out + "</g>"
    }

    /// The timing of a linear animation through every frame's value: the animation's duration
    /// (frame k at k / fps), looping.
    private var linearTiming: String {
        let duration = frameCount > 1 ? Double(frameCount - 1) / fps : 1
        return "dur=\"\(num(duration))s\" repeatCount=\"indefinite\""
    }

    /// The marker's outlines around its anchor at (0, 0), from the same `MarkerGeometry` the
    /// Cairo backend draws (PNG, SVG, PDF); `part` as `MarkerGeometry.Part` (the outline or fill
    /// pass of a small dot). `strokeWidths`: the stroked layers' width per frame (the scene's
    /// outline, `markerOutlines`), else the symbol's.
    private func shape(_ s: MarkerSymbol, part: MarkerGeometry.Part = .whole, strokeWidths: [String]? = nil) -> String {
        var out = "<g opacity=\"\(num(s.opacity))\">"
        // An icon: its image in `MarkerGeometry.iconRect`, as Cairo draws it.
        if let icon = s.icon, let r = MarkerGeometry.iconRect(for: s), let id = iconIDs.ids[icon] {
            out += "<use xlink:href=\"#\(id)\" transform=\"translate(\(num(r.x)),\(num(r.y))) scale(\(num(r.height / icon.height)))\"/>"
        }
        for layer in MarkerGeometry.layers(for: s, part: part) {
            let (fill, fillAlpha) = svgColor(layer.fill)
            out += "<path d=\"\(PathElement.svgPathData(layer.path, number: num))\" fill=\"\(fill)\" fill-opacity=\"\(num(fillAlpha))\""
            if layer.strokeWidth > 0 {
                let (stroke, strokeAlpha) = svgColor(layer.stroke)
                out += " stroke=\"\(stroke)\" stroke-opacity=\"\(num(strokeAlpha))\" stroke-width=\"\(strokeWidths?[0] ?? num(layer.strokeWidth))\" stroke-linejoin=\"round\""
                if let w = strokeWidths, frameCount > 1 {
                    out += ">" + animate("stroke-width", w, linearTiming) + "</path>"
                    continue
                }
            }
            out += "/>"
        }
        return out + "</g>"
    }

    private func svgColor(_ c: RGBA) -> (String, Double) {
        var opaque = c
        opaque.a = 1
        return (opaque.description, c.a)
    }

    private func num(_ v: Float) -> String { num(Double(v)) }

    /// Two decimals, no trailing zeros: short, and the same on every run.
    private func num(_ v: Double) -> String {
        let r = (v * 100).rounded() / 100
        if r == r.rounded() { return String(Int(r)) }
        var s = String(format: "%.2f", r)
        while s.hasSuffix("0") { s.removeLast() }
        return s
    }
}
