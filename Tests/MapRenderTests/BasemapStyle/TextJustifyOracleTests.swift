import Foundation
import MapRenderCairo
import MapRenderCore
import Testing
import TestSupport
@testable import MapRender

/// `text-anchor` as an expression (Positron's `["step", ["zoom"], "left", 8, "center"]`),
/// `text-justify` and `text-translate` on wrapped labels from a GeoJSON source, against MapLibre
/// Native (pymgl): each line of each label is found in both drawings (the pixels that differ from
/// the bare background, grouped) and the lines' justified edges compared.
@Suite(.serialized) struct TextJustifyOracleTests {
    /// Names of three long words, so that at `text-max-width` 4 (64 px) each line holds one word
    /// in both renderers (their line-breaking rules differ where two words could share a line).
    static let names = ["Paris Riverside Quarter", "Berlin Mitte Brandenburg", "Madrid Retiro Gardens", "Vienna Innere Stadtmitte",
                        "Warsaw Praga Riverside", "Dublin Docklands Harbour", "Athens Plaka Acropolis", "Lisbon Alfama Quarter"]

    static func style(_ dir: URL, _ name: String, justify: String, translate: [Double] = [10, 6]) throws -> String {
        let cities = GeoJSONSymbolOracleTests.cities
        let features: [[String: Any]] = names.map { n in
            let c = cities.first { n.hasPrefix($0.0) }!
            return ["type": "Feature", "geometry": ["type": "Point", "coordinates": [c.1, c.2]], "properties": ["name": n]]
        }
        let s: [String: Any] = [
            "version": 8,
            "sources": ["cities": ["type": "geojson", "data": ["type": "FeatureCollection", "features": features]]],
            "layers": [["id": "bg", "type": "background", "paint": ["background-color": "#ffffff"]],
                       ["id": "names", "type": "symbol", "source": "cities",
                        "layout": ["text-field": "{name}", "text-font": ["DejaVu Sans Book"], "text-size": 16, "text-max-width": 4,
                                   "text-anchor": ["step", ["zoom"], "left", 8, "center"], "text-justify": justify,
                                   ],
                        "paint": ["text-color": "#000000", "text-translate": translate]]],
        ]
        let path = dir.appendingPathComponent(name + ".json")
        try JSONSerialization.data(withJSONObject: s).write(to: path)
        return path.path
    }

    /// Each text line's box in a drawing over white (pixels darker than the background, grown
    /// by 1 px to join a word's glyphs).
    static func lines(_ img: RGBAImage) -> [Rect] {
        var white = img
        for i in 0..<(white.width * white.height) { for c in 0..<4 { white.pixels[4 * i + c] = 255 } }
        // A word's glyphs may stand apart by more than the growth: pieces on one row, less than
        // a space apart, are joined into the line.
        var parts = MapLibreLabels.components(differing: img, white, grow: 1).sorted { $0.x < $1.x }
        var merged = true
        while merged {
            merged = false
            outer: for i in parts.indices { for j in parts.indices where j > i {
                let a = parts[i], b = parts[j]
                let sameRow = min(a.maxY, b.maxY) - max(a.y, b.y) > 3
                let gap = max(a.x, b.x) - min(a.maxX, b.maxX)
                if sameRow && gap < 5 {
                    let x0 = min(a.x, b.x), y0 = min(a.y, b.y)
                    parts[i] = Rect(x: x0, y: y0, width: max(a.maxX, b.maxX) - x0, height: max(a.maxY, b.maxY) - y0)
                    parts.remove(at: j)
                    merged = true
                    break outer
                }
            } }
        }
        return parts.filter { $0.width > 8 && $0.height > 5 }
    }

    /// Of MapLibre's text lines, how many have one of ours with the same justified edge (left,
    /// right or centre within 3 px) and the same middle height (within 4 px).
    static func matched(_ ours: [Rect], _ theirs: [Rect], edge: String) -> Int {
        func x(_ r: Rect) -> Double { edge == "left" ? r.x : edge == "right" ? r.maxX : r.cx }
        return theirs.filter { t in ours.contains { abs(x($0) - x(t)) <= 3 && abs($0.cy - t.cy) <= 4 } }.count
    }

    @Test func anchorExpressionJustifyAndTranslate() throws {
        let dir = MapLibreLabels.directory()
        var figures: [String] = []
        for justify in ["center", "left", "right"] {
            let style = try Self.style(dir, "justify-\(justify)", justify: justify)
            let (d, out) = try GeoJSONSymbolOracleTests.difference(dir, style, "justify-\(justify)")
            #expect(out.summary.basemapStyle?.unsupported == [], "\(justify)")
            let ours = Self.lines(try PNGCodec.decode(data: out.data))
            let theirs = Self.lines(try PNGCodec.decode(path: dir.appendingPathComponent("justify-\(justify)-maplibre.png").path))
            let m = Self.matched(ours, theirs, edge: justify)
            // A control: our lines centred, against MapLibre's justified ones.
            var control = -1
            if justify != "center" {
                let centred = Self.lines(try PNGCodec.decode(path: dir.appendingPathComponent("justify-center.png").path))
                control = centred.isEmpty ? -1 : Self.matched(centred, theirs, edge: justify)
            }
            figures.append("\(justify): \(m) of MapLibre's \(theirs.count) lines matched (ours \(ours.count)\(control >= 0 ? "; centred, \(control)" : "")), \(String(format: "%.3f", 100 * d))% of pixels differ")
            // Three lines a label; where two labels collide, both renderers leave out the same one.
            #expect(theirs.count >= 3 * Self.names.count - 3 && ours.count == theirs.count, "\(justify): \(theirs.count) lines, ours \(ours.count)")
            #expect(Double(m) >= 0.9 * Double(theirs.count), "\(justify)")
            if control >= 0 { #expect(control < m / 2, "\(justify): centred lines matched \(control)") }
        }
        print("text-justify: " + figures.joined(separator: "; ") + " (\(dir.path))")
    }
}
