import Foundation
import MapRenderCairo
import MapRenderCore
import Testing
import TestSupport
@testable import MapRender

/// Icons along lines (`symbol-placement: line` with `icon-image`) and `line-pattern` from the
/// test sprite, over a GeoJSON source of lines that each lie inside one zoom-4 tile (so MapLibre
/// lays them from their own starts, as maprender does), against MapLibre Native (pymgl).
@Suite(.serialized) struct LinePatternAndIconOracleTests {
    /// Four lines in the tile 4/8/5 (0-22.5° E, 41-55.8° N): a wave eastward, a bend, one due
    /// north, one westward (its arrows point west).
    static let lines: [[[Double]]] = [
        [[2, 44], [8, 46], [14, 45], [20, 47]],
        [[4, 53], [10, 50], [16, 52]],
        [[21, 42.5], [21, 54]],
        [[19, 50], [6, 48.5]],
    ]

    static func style(_ dir: URL, _ name: String, _ layers: [[String: Any]]) throws -> String {
        let features: [[String: Any]] = lines.enumerated().map { k, l in
            ["type": "Feature", "geometry": ["type": "LineString", "coordinates": l], "properties": ["n": k]]
        }
        let s: [String: Any] = [
            "version": 8,
            "sprite": "file://" + BasemapSymbolOracleTests.sprite,
            "sources": ["lines": ["type": "geojson", "data": ["type": "FeatureCollection", "features": features]]],
            "layers": [["id": "bg", "type": "background", "paint": ["background-color": "#eeeae0"]]] + layers,
        ]
        let path = dir.appendingPathComponent(name + ".json")
        try JSONSerialization.data(withJSONObject: s).write(to: path)
        return path.path
    }

    static let thin: [String: Any] = ["id": "thin", "type": "line", "source": "lines", "paint": ["line-color": "#a0a0a0", "line-width": 1]]
    static let arrows: [String: Any] = ["id": "arrows", "type": "symbol", "source": "lines",
                                        "layout": ["symbol-placement": "line", "icon-image": "arrow", "symbol-spacing": 100,
                                                   "icon-allow-overlap": true]]

    /// Arrows along the lines, turned with them, spaced from each line's start as MapLibre
    /// spaces them: a small share of pixels differ; without the arrows many more.
    @Test func iconsAlongLines() throws {
        let dir = MapLibreLabels.directory()
        let style = try Self.style(dir, "arrows", [Self.thin, Self.arrows]), bare = try Self.style(dir, "arrows-bare", [Self.thin])
        let (d, out) = try GeoJSONSymbolOracleTests.difference(dir, style, "icons-along-lines")
        let (c, _) = try GeoJSONSymbolOracleTests.difference(dir, style, "icons-along-lines-control", oursStyle: bare)
        print("icons along lines: \(String(format: "%.3f", 100 * d))% of pixels differ; without them \(String(format: "%.3f", 100 * c))%")
        #expect(d <= 0.01)
        #expect(d < c / 3)
        #expect(out.summary.basemapStyle?.unsupported == [])
        let icons = out.scene.items.compactMap { if case .raster(let r) = $0 { r } else { nil } }
        #expect(icons.count >= 10)
        // Due north: turned a quarter turn back (-90°); westward: about half a turn.
        #expect(icons.contains { abs($0.angle + .pi / 2) < 0.01 })
        #expect(icons.contains { abs(abs($0.angle) - .pi) < 0.2 })
    }

    static func patterned(width: Double, pattern: Bool) -> [String: Any] {
        ["id": "rail", "type": "line", "source": "lines",
         "paint": (pattern ? ["line-pattern": "rail"] : ["line-color": "#787878"] as [String: Any]).merging(["line-width": width]) { $1 }]
    }

    /// `line-pattern` (the rail image, 6 px high) along lines 6 px wide: within 1% of MapLibre's
    /// pixels; the same lines in the pattern's grey, plain, differ more.
    @Test func linePattern() throws {
        let dir = MapLibreLabels.directory()
        let style = try Self.style(dir, "rail", [Self.patterned(width: 6, pattern: true)])
        let plain = try Self.style(dir, "rail-plain", [Self.patterned(width: 6, pattern: false)])
        let (d, out) = try GeoJSONSymbolOracleTests.difference(dir, style, "line-pattern")
        let (c, _) = try GeoJSONSymbolOracleTests.difference(dir, style, "line-pattern-control", oursStyle: plain)
        print("line-pattern: \(String(format: "%.3f", 100 * d))% of pixels differ; plain grey \(String(format: "%.3f", 100 * c))%")
        #expect(d <= 0.01)
        #expect(d < c / 2)
        #expect(out.summary.basemapStyle?.unsupported == [])
    }

    /// `text-rotation-alignment: viewport` on line labels: level names at the points along the
    /// lines where MapLibre puts them (its `getAnchors` spacing): each of MapLibre's labels has one
    /// of ours within 4 px of its centre, and as many.
    @Test func levelLineLabels() throws {
        let dir = MapLibreLabels.directory()
        let names: [String: Any] = ["id": "names", "type": "symbol", "source": "lines",
                                    "layout": ["symbol-placement": "line", "text-rotation-alignment": "viewport", "text-field": "Line {n}",
                                               "text-font": ["DejaVu Sans Book"], "text-size": 14, "symbol-spacing": 200],
                                    "paint": ["text-color": "#000000"]]
        let style = try Self.style(dir, "level", [Self.thin, names])
        let (d, out) = try GeoJSONSymbolOracleTests.difference(dir, style, "level-line-labels")
        #expect(out.summary.basemapStyle?.unsupported == [])
        let with = try PNGCodec.decode(path: dir.appendingPathComponent("level-line-labels-maplibre.png").path)
        let without = try MapLibreLabels.render(style: try Self.style(dir, "level-bare", [Self.thin]), lat: 48, lon: 10, zoom: 4, symbols: true,
                                                to: dir.appendingPathComponent("level-bare-maplibre.png").path)
        let theirs = MapLibreLabels.components(differing: with, without, grow: 5)   // joined across the line under a name
        let ours = out.scene.labels.map(\.box)
        let matched = theirs.filter { t in ours.contains { hypot($0.cx - t.cx, $0.cy - t.cy) <= 4 } }.count
        print("level line labels: MapLibre \(theirs.count), maprender \(ours.count), \(matched) of MapLibre's within 4 px of one of ours; \(String(format: "%.3f", 100 * d))% of pixels differ (\(dir.path))")
        #expect(theirs.count >= 8 && ours.count == theirs.count && matched == theirs.count)
        #expect(out.scene.items.allSatisfy { if case .pathLabel = $0 { false } else { true } })
    }

    /// Text and an icon on one anchor along lines (the names drawn at 2% opacity, so
    /// the arrows are what shows): the arrows where MapLibre puts them, within a small share of
    /// pixels; without them many more.
    @Test func iconsWithTextAlongLines() throws {
        let dir = MapLibreLabels.directory()
        func layer(icon: Bool) -> [String: Any] {
            ["id": "named", "type": "symbol", "source": "lines",
             "layout": ["symbol-placement": "line", "text-field": "Line {n}", "text-font": ["DejaVu Sans Book"], "text-size": 14,
                        "symbol-spacing": 150, "icon-allow-overlap": true].merging(icon ? ["icon-image": "arrow"] : [:]) { $1 },
             "paint": ["text-color": "rgba(0,0,0,0.02)"]]
        }
        let style = try Self.style(dir, "named-arrows", [Self.thin, layer(icon: true)])
        let bare = try Self.style(dir, "named-bare", [Self.thin, layer(icon: false)])
        let (d, out) = try GeoJSONSymbolOracleTests.difference(dir, style, "named-arrows")
        let (c, _) = try GeoJSONSymbolOracleTests.difference(dir, style, "named-arrows-control", oursStyle: bare)
        print("icons with text along lines: \(String(format: "%.3f", 100 * d))% of pixels differ; without the icons \(String(format: "%.3f", 100 * c))%")
        #expect(out.summary.basemapStyle?.unsupported == [])
        let icons = out.scene.items.compactMap { if case .raster(let r) = $0 { r } else { nil } }
        #expect(icons.count >= 6)
        #expect(d < c / 2)
    }

    /// The patterned lines and turned icons in SVG and PDF match the PNG through librsvg and poppler.
    @Test func inSvgAndPdf() throws {
        let dir = MapLibreLabels.directory()
        let style = try Self.style(dir, "svg", [Self.patterned(width: 6, pattern: true), Self.arrows])
        var r = try BasemapStyleOracleTests.request(style: style, lat: 48, lon: 10, zoom: 4, symbols: true)
        r.width = 512; r.height = 384
        r.layout.attribution = ""
        try CrossFormatTests.expectSVGAndPDFMatchPNG(r, name: "line pattern and icons", svg: 0.01, pdf: 0.02)
    }
}
