import Foundation

/// One step of a backend-neutral path, CSS px, y pointing down.
///
/// Every backend reads the same elements: Cairo (raster stamps, SVG, PDF) replays them as
/// `cairo_move_to`/`cairo_line_to`/`cairo_arc`/`cairo_close_path`, the animated SVG writes them
/// as SVG path data (`svgPathData`). A marker shape is defined once, here.
public enum PathElement: Sendable, Equatable {
    case moveTo(x: Double, y: Double)
    case lineTo(x: Double, y: Double)
    /// A circular arc around (cx, cy) from angle `from` to `to` (radians, `to >= from`), in the
    /// direction of increasing angle: clockwise on screen, as Cairo's `cairo_arc`. With a current
    /// point, a straight line first joins it to the arc's start; without one, the arc starts a new
    /// sub-path.
    case arc(cx: Double, cy: Double, radius: Double, from: Double, to: Double)
    case close
}

/// One filled (and optionally stroked) outline of a marker.
public struct MarkerLayer: Sendable, Equatable {
    public var path: [PathElement]
    public var fill: RGBA
    /// Stroked after filling when `strokeWidth > 0` (round joins).
    public var stroke: RGBA
    public var strokeWidth: Double
}

/// The outlines of each marker shape around its anchor at (0, 0), painted in order; the whole
/// marker is then composited with the symbol's `opacity`.
///
/// Adding a marker shape means adding a case here (and to `MarkerSymbol.extent`): every backend
/// draws from these layers.
public enum MarkerGeometry {
    /// What to draw of a symbol: all of it, or one of the two passes of an `outlinesFirst` symbol
    /// (small opaque dots: every outline of the batch is painted before any fill). The outline
    /// pass is a disc or square of the stroke colour reaching as far as the stroke does; the fill
    /// pass is the shape in the fill colour, unstroked. Pins are always drawn whole.
    public enum Part: Sendable { case whole, outline, fill }

    public static func layers(for s: MarkerSymbol, part: Part = .whole) -> [MarkerLayer] {
        // An icon symbol has no outlines: the backends draw its image in `iconRect`.
        if s.icon != nil { return [] }
        if part != .whole && s.shape != .pin {
            let h = s.size / 2 + (part == .outline ? s.strokeWidth / 2 : 0)
            let colour = part == .outline ? s.stroke : s.fill
            let path: [PathElement] = s.shape == .circle
                ? [.arc(cx: 0, cy: 0, radius: h, from: 0, to: 2 * .pi)]
                : [.moveTo(x: -h, y: -h), .lineTo(x: h, y: -h), .lineTo(x: h, y: h), .lineTo(x: -h, y: h), .close]
            return [MarkerLayer(path: path, fill: colour, stroke: colour, strokeWidth: 0)]
        }
        switch s.shape {
        case .pin:
            let r = s.pinHeadRadius
            let cy = -s.size + r
            let d = s.size - r
            // The two tangents from the tip touch the head at ±alpha below the horizontal.
            let alpha = acos(min(r / d, 1))
            let body: [PathElement] = [
                .moveTo(x: 0, y: 0),
                .arc(cx: 0, cy: cy, radius: r, from: .pi / 2 + alpha, to: 2 * .pi + .pi / 2 - alpha),
                .close,
            ]
            // The hole in the head, in the stroke colour, as map pins have; a pin with a text
            // has none (the text is drawn there).
            let hole: [PathElement] = [.arc(cx: 0, cy: cy, radius: r * 0.38, from: 0, to: 2 * .pi)]
            let whole = MarkerLayer(path: body, fill: s.fill, stroke: s.stroke, strokeWidth: s.strokeWidth)
            if s.text != nil { return [whole] }
            return [whole, MarkerLayer(path: hole, fill: s.strokeWidth > 0 ? s.stroke : .white, stroke: .white, strokeWidth: 0)]
        case .circle:
            return [MarkerLayer(path: [.arc(cx: 0, cy: 0, radius: s.size / 2, from: 0, to: 2 * .pi)],
                                fill: s.fill, stroke: s.stroke, strokeWidth: s.strokeWidth)]
        case .square:
            let h = s.size / 2
            return [MarkerLayer(path: [.moveTo(x: -h, y: -h), .lineTo(x: h, y: -h), .lineTo(x: h, y: h),
                                       .lineTo(x: -h, y: h), .close],
                                fill: s.fill, stroke: s.stroke, strokeWidth: s.strokeWidth)]
        }
    }
}

extension MarkerGeometry {
    /// An icon symbol's image box around its anchor at (0, 0), CSS px: `size` high, as wide as
    /// the icon's proportions make it, placed so that the icon's anchor (`MarkerIcon.anchor`)
    /// sits on (0, 0). Every backend draws the icon in this box; nil for a symbol without one.
    public static func iconRect(for s: MarkerSymbol) -> Rect? {
        guard let icon = s.icon, icon.height > 0 else { return nil }
        let h = s.size, w = s.size * icon.width / icon.height
        let f = icon.anchor.fraction
        return Rect(x: -f.x * w, y: -f.y * h, width: w, height: h)
    }

    /// Where a symbol's text is centred, from its anchor: the centre of a pin's head, of a
    /// circle or a square. Every backend centres the text's logical box here.
    public static func textCenter(for s: MarkerSymbol) -> (x: Double, y: Double) {
        s.shape == .pin ? (0, -s.size + s.pinHeadRadius) : (0, 0)
    }

    /// The top-left corner of the text's logical box, from the anchor.
    public static func textOrigin(for s: MarkerSymbol) -> (x: Double, y: Double)? {
        guard let t = s.text else { return nil }
        let c = textCenter(for: s)
        return (c.x - t.width / 2, c.y - t.height / 2)
    }
}

extension PathElement {
    /// The path as SVG path data (`d`), numbers written by `number`.
    ///
    /// Arcs become SVG elliptical-arc commands, split into pieces of at most half a turn so the
    /// large-arc flag is never ambiguous (a full circle is two pieces).
    public static func svgPathData(_ path: [PathElement], number: (Double) -> String) -> String {
        var d = ""
        var hasPoint = false
        for e in path {
            switch e {
            case .moveTo(let x, let y):
                d += "M\(number(x)),\(number(y))"; hasPoint = true
            case .lineTo(let x, let y):
                d += "L\(number(x)),\(number(y))"; hasPoint = true
            case .arc(let cx, let cy, let r, let from, let to):
                d += (hasPoint ? "L" : "M") + "\(number(cx + r * cos(from))),\(number(cy + r * sin(from)))"
                hasPoint = true
                let pieces = max(1, Int((( to - from) / .pi).rounded(.up)))
                for k in 1...pieces {
                    let a = from + (to - from) * Double(k) / Double(pieces)
                    d += "A\(number(r)),\(number(r)) 0 0,1 \(number(cx + r * cos(a))),\(number(cy + r * sin(a)))"
                }
            case .close:
                d += "Z"
            }
        }
        return d
    }
}
