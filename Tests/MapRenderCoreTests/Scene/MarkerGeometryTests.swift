import Foundation
import Testing
@testable import MapRenderCore

/// The backend-neutral marker outlines: inside the symbol's extent, and written as SVG path data
/// that ends where the path elements end.
@Suite struct MarkerGeometryTests {
    static let symbols: [MarkerSymbol] = Style.MarkerShape.allCases.flatMap { shape in
        [4.0, 12, 28].map { MarkerSymbol(shape: shape, size: $0, fill: .white, stroke: .white, strokeWidth: 1.5, opacity: 1) }
    }

    /// Every point an outline passes through (arcs sampled), for bounds checks.
    func points(_ path: [PathElement]) -> [(Double, Double)] {
        path.flatMap { e -> [(Double, Double)] in
            switch e {
            case .moveTo(let x, let y), .lineTo(let x, let y): return [(x, y)]
            case .arc(let cx, let cy, let r, let a, let b):
                return (0...64).map { k in let t = a + (b - a) * Double(k) / 64; return (cx + r * cos(t), cy + r * sin(t)) }
            case .close: return []
            }
        }
    }

    @Test(arguments: symbols)
    func outlinesStayInsideTheExtent(_ s: MarkerSymbol) {
        let e = s.extent, h = s.strokeWidth / 2
        for layer in MarkerGeometry.layers(for: s) {
            for (x, y) in points(layer.path) {
                #expect(x - h >= -e.left - 1e-9 && x + h <= e.right + 1e-9, "\(s.shape) x \(x)")
                #expect(y - h >= -e.top - 1e-9 && y + h <= e.bottom + 1e-9, "\(s.shape) y \(y)")
            }
        }
    }

    /// Small dots draw every outline before any fill (issue 13): the outline pass reaches exactly
    /// as far as the stroke of the whole marker, the fill pass is the shape alone, both unstroked.
    @Test(arguments: [Style.MarkerShape.circle, .square])
    func outlinePassReachesTheStrokeAndFillPassTheShape(_ shape: Style.MarkerShape) {
        let s = MarkerSymbol(shape: shape, size: 4, fill: .white, stroke: .black, strokeWidth: 0.5, opacity: 1)
        #expect(s.outlinesFirst)
        let outline = MarkerGeometry.layers(for: s, part: .outline), fill = MarkerGeometry.layers(for: s, part: .fill)
        #expect(outline.count == 1 && fill.count == 1)
        #expect(outline[0].fill == .black && outline[0].strokeWidth == 0)
        #expect(fill[0].fill == .white && fill[0].strokeWidth == 0)
        let e = s.extent
        let xs = points(outline[0].path).map(\.0)
        #expect(abs(xs.max()! - e.right) < 1e-9 && abs(xs.min()! + e.left) < 1e-9)
        let fx = points(fill[0].path).map(\.0)
        #expect(abs(fx.max()! - 2) < 1e-9)
        // A pin is always drawn whole.
        let pin = MarkerSymbol(shape: .pin, size: 28, fill: .white, stroke: .black, strokeWidth: 1, opacity: 1)
        #expect(MarkerGeometry.layers(for: pin, part: .outline) == MarkerGeometry.layers(for: pin))
    }

    @Test func pinTipIsTheAnchorAndHeadTouchesTheTop() {
        let s = MarkerSymbol(shape: .pin, size: 28, fill: .white, stroke: .white, strokeWidth: 0, opacity: 1)
        let body = MarkerGeometry.layers(for: s)[0].path
        #expect(body.first == .moveTo(x: 0, y: 0))
        let ys = points(body).map(\.1)
        #expect(abs(ys.min()! + 28) < 0.01)
    }

    @Test func fullCircleIsTwoHalfTurnsBackToItsStart() {
        let d = PathElement.svgPathData([.arc(cx: 0, cy: 0, radius: 5, from: 0, to: 2 * .pi)]) { String(format: "%.2f", $0) }
        #expect(d == "M5.00,0.00A5.00,5.00 0 0,1 -5.00,0.00A5.00,5.00 0 0,1 5.00,-0.00")
    }

    @Test func arcAfterAPointIsJoinedByALine() {
        let d = PathElement.svgPathData([.moveTo(x: 0, y: 0), .arc(cx: 0, cy: -10, radius: 2, from: .pi / 2, to: .pi), .close]) {
            String(format: "%.1f", $0)
        }
        #expect(d == "M0.0,0.0L0.0,-8.0A2.0,2.0 0 0,1 -2.0,-10.0Z")
    }
}
