import Foundation
import MapRenderCore

/// One SVG file animated with SMIL: the still map (background, basemap, attribution) as Cairo
/// draws it, then one element per point id and one per bubble, whose position, size and opacity
/// run through every frame's planned values (`<animate>`/`<animateTransform>`, linear between
/// frames, looping).
///
/// Markers take their shape, colour and size from the frame they first appear in. Bubbles carry
/// their count text (one text per count the bubble takes, shown while it has that count); plain
/// labels follow their placement in each frame (one text per label string).
struct AnimatedSVG {
    let base: RenderRequest
    let fps: Double
    let frameCount: Int

    private struct Track {
        var x: [Float], y: [Float], size: [Float], opacity: [Float]
        var symbol: MarkerSymbol?
        var count: [Int32]

        init(frames: Int) {
            x = Array(repeating: .nan, count: frames)
            y = x; size = x; opacity = x
            count = Array(repeating: 0, count: frames)
        }
    }

    private var markers: [Int: Track] = [:]
    private var bubbles: [Int: Track] = [:]
    /// Labels by text: baseline position and opacity per frame, and the look from the first frame.
    private var labels: [String: (track: Track, mark: LabelMark)] = [:]

    init(base: RenderRequest, fps: Double, frameCount: Int) {
        self.base = base
        self.fps = fps
        self.frameCount = frameCount
    }

    mutating func add(_ plan: FramePlan) {
        let k = plan.index
        let v = plan.viewport
        let styles = MarkerStyler.resolve(points: plan.points, style: base.style)
        for i in plan.drawn {
            let key = plan.keys[i]
            var t = markers[key] ?? Track(frames: frameCount)
            if t.symbol == nil { t.symbol = styles.symbols[Int(styles.index[i])] }
            let p = v.pixel(x: plan.shownX[i], y: plan.shownY[i])
            t.x[k] = Float(p.x); t.y[k] = Float(p.y)
            t.size[k] = Float(plan.scale[i]); t.opacity[k] = Float(plan.opacity[i])
            markers[key] = t
        }
        for b in plan.bubbles where b.radius > 0 {
            var t = bubbles[b.track] ?? Track(frames: frameCount)
            let p = v.pixel(x: b.x, y: b.y)
            t.x[k] = Float(p.x); t.y[k] = Float(p.y)
            t.size[k] = Float(b.radius); t.opacity[k] = 1
            t.count[k] = Int32(clamping: b.count)
            bubbles[b.track] = t
        }
        for l in plan.labels ?? [] {
            var entry = labels[l.text] ?? (Track(frames: frameCount), l)
            // SVG places text by its baseline; Pango's logical box puts it about 80% down.
            entry.track.x[k] = Float(l.x); entry.track.y[k] = Float(l.y + l.height * 0.8)
            entry.track.size[k] = 1; entry.track.opacity[k] = 1
            labels[l.text] = entry
        }
    }

    /// The document: `background` (an SVG from Cairo) with the animated marks added on top.
    func document(background: Data) -> Data {
        var text = String(decoding: background, as: UTF8.self)
        let close = text.range(of: "</svg>", options: .backwards)?.lowerBound ?? text.endIndex
        text = String(text[..<close])
        let dur = frameCount > 1 ? Double(frameCount - 1) / fps : 1
        let timing = "dur=\"\(num(dur))s\" repeatCount=\"indefinite\""
        var out = text
        out += "<g id=\"maprender-animation\" transform=\"scale(\(num(base.scale)))\">\n"

        let cs = base.style.cluster
        let (strokeRGB, strokeAlpha) = svgColor(cs.stroke)
        for key in bubbles.keys.sorted() {
            let t = filled(bubbles[key]!)
            let fills = t.count.map { svgColor(cs.step(for: Int($0)).fill).0 }
            out += "<circle cx=\"\(num(t.x[0]))\" cy=\"\(num(t.y[0]))\" r=\"\(num(t.size[0]))\" fill=\"\(fills[0])\""
            out += " stroke=\"\(strokeRGB)\" stroke-opacity=\"\(num(strokeAlpha))\" stroke-width=\"\(num(cs.strokeWidth))\""
            out += " opacity=\"\(num(t.opacity[0] * Float(cs.opacity)))\">"
            if frameCount > 1 {
                out += animate("cx", t.x.map(num), timing)
                out += animate("cy", t.y.map(num), timing)
                out += animate("r", t.size.map(num), timing)
                out += animate("opacity", t.opacity.map { num($0 * Float(cs.opacity)) }, timing)
                out += "<animate attributeName=\"fill\" calcMode=\"discrete\" values=\"\(fills.joined(separator: ";"))\" \(timing)/>"
            }
            out += "</circle>\n"
            // The count: one text per count this bubble takes, visible while it has it.
            let font = "font-family=\"\(xml(cs.font))\" font-size=\"\(num(cs.textSize * base.layout.textScale))\" font-weight=\"bold\""
            for c in Set(t.count).sorted() where c > 0 {
                let shown = zip(t.count, t.opacity).map { $0 == c && $1 > 0.6 ? "1" : "0" }
                out += "<text x=\"\(num(t.x[0]))\" y=\"\(num(t.y[0]))\" text-anchor=\"middle\" dominant-baseline=\"central\" \(font)"
                out += " fill=\"\(svgColor(cs.textColor).0)\" opacity=\"\(shown[0])\">"
                if frameCount > 1 {
                    out += animate("x", t.x.map(num), timing)
                    out += animate("y", t.y.map(num), timing)
                    out += "<animate attributeName=\"opacity\" calcMode=\"discrete\" values=\"\(shown.joined(separator: ";"))\" \(timing)/>"
                }
                out += xml(ClusterItem.abbreviate(Int(c))) + "</text>\n"
            }
        }
        for key in markers.keys.sorted() {
            let t = filled(markers[key]!)
            let sym = t.symbol!
            let translate = zip(t.x, t.y).map { "\(num($0)),\(num($1))" }
            out += "<g transform=\"translate(\(translate[0])) scale(\(num(t.size[0])))\" opacity=\"\(num(t.opacity[0]))\">"
            if frameCount > 1 {
                out += "<animateTransform attributeName=\"transform\" type=\"translate\" values=\"\(translate.joined(separator: ";"))\" \(timing)/>"
                out += "<animateTransform attributeName=\"transform\" type=\"scale\" additive=\"sum\" values=\"\(t.size.map(num).joined(separator: ";"))\" \(timing)/>"
                out += animate("opacity", t.opacity.map(num), timing)
            }
            out += shape(sym)
            out += "</g>\n"
        }
        for key in labels.keys.sorted() {
            let (track, mark) = labels[key]!
            let t = filled(track)
            let (halo, haloAlpha) = svgColor(mark.halo)
            out += "<text x=\"\(num(t.x[0]))\" y=\"\(num(t.y[0]))\" font-family=\"\(xml(mark.font.family))\""
            out += " font-size=\"\(num(mark.font.size))\" font-weight=\"\(mark.font.weight.rawValue)\" fill=\"\(svgColor(mark.color).0)\""
            out += " stroke=\"\(halo)\" stroke-opacity=\"\(num(haloAlpha))\" stroke-width=\"\(num(2 * mark.haloWidth))\""
            out += " stroke-linejoin=\"round\" paint-order=\"stroke\" opacity=\"\(num(t.opacity[0]))\">"
            if frameCount > 1 {
                out += animate("x", t.x.map(num), timing)
                out += animate("y", t.y.map(num), timing)
                out += "<animate attributeName=\"opacity\" calcMode=\"discrete\" values=\"\(t.opacity.map(num).joined(separator: ";"))\" \(timing)/>"
            }
            out += xml(key) + "</text>\n"
        }
        out += "</g>\n</svg>\n"
        return Data(out.utf8)
    }

    /// Text and attribute values with XML's special characters escaped.
    private func xml(_ s: String) -> String {
        var out = ""
        for c in s {
            switch c {
            case "&": out += "&amp;"
            case "<": out += "&lt;"
            case ">": out += "&gt;"
            case "\"": out += "&quot;"
            default: out.append(c)
            }
        }
        return out
    }

    private func animate(_ attribute: String, _ values: [String], _ timing: String) -> String {
        "<animate attributeName=\"\(attribute)\" values=\"\(values.joined(separator: ";"))\" \(timing)/>"
    }

    /// Absent frames: invisible, at the nearest present position (no flying in from elsewhere).
    private func filled(_ track: Track) -> Track {
        var t = track
        let n = frameCount
        guard let firstPresent = t.x.firstIndex(where: { !$0.isNaN }) else { return t }
        var last = firstPresent
        for k in 0..<n {
            if t.x[k].isNaN {
                let from = k < firstPresent ? firstPresent : last
                t.x[k] = t.x[from]; t.y[k] = t.y[from]; t.size[k] = t.size[from]; t.count[k] = t.count[from]
                t.opacity[k] = 0
            } else {
                last = k
            }
        }
        return t
    }

    /// The marker's outlines around its anchor at (0, 0), from the same `MarkerGeometry` the
    /// Cairo backend draws (PNG, SVG, PDF).
    private func shape(_ s: MarkerSymbol) -> String {
        var out = "<g opacity=\"\(num(s.opacity))\">"
        for layer in MarkerGeometry.layers(for: s) {
            let (fill, fillAlpha) = svgColor(layer.fill)
            out += "<path d=\"\(PathElement.svgPathData(layer.path, number: num))\" fill=\"\(fill)\" fill-opacity=\"\(num(fillAlpha))\""
            if layer.strokeWidth > 0 {
                let (stroke, strokeAlpha) = svgColor(layer.stroke)
                out += " stroke=\"\(stroke)\" stroke-opacity=\"\(num(strokeAlpha))\" stroke-width=\"\(num(layer.strokeWidth))\" stroke-linejoin=\"round\""
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
