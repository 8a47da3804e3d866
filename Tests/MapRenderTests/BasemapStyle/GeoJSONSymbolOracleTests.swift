import Foundation
import MapRenderCairo
import MapRenderCore
import Testing
import TestSupport
@testable import MapRender

/// A basemap style's `geojson` source with Point features feeding `circle` and `symbol` layers
/// (text and icons), against MapLibre Native (pymgl) drawing the same style and view: circles and
/// icons pixel by pixel, text by place (glyphs differ by design) and pixel by pixel as a figure.
@Suite(.serialized) struct GeoJSONSymbolOracleTests {
    /// Twelve European cities, each with a name, a rank and a kind (its icon's name).
    static let cities: [(String, Double, Double, Int, String)] = [
        ("Paris", 2.35, 48.86, 1, "dot"), ("Berlin", 13.40, 52.52, 1, "dot"), ("Madrid", -3.70, 40.42, 1, "dot"),
        ("Rome", 12.50, 41.90, 1, "dot"), ("Warsaw", 21.01, 52.23, 2, "square"), ("Vienna", 16.37, 48.21, 2, "square"),
        ("Prague", 14.42, 50.08, 2, "square"), ("Copenhagen", 12.57, 55.68, 2, "square"), ("Lisbon", -9.14, 38.72, 3, "square"),
        ("Dublin", -6.26, 53.35, 3, "dot"), ("Athens", 23.73, 37.98, 3, "dot"), ("Kyiv", 30.52, 50.45, 3, "square"),
    ]

    static func citiesGeoJSON() -> [String: Any] {
        ["type": "FeatureCollection",
         "features": cities.map { c in
             ["type": "Feature", "geometry": ["type": "Point", "coordinates": [c.1, c.2]],
              "properties": ["name": c.0, "rank": c.3, "kind": c.4]] as [String: Any]
         }]
    }

    /// A light grey background and `layers` over the `cities` GeoJSON source (inline), with the
    /// test sprite, written to `name`.json.
    static func style(_ dir: URL, _ name: String, _ layers: [[String: Any]], sprite: Any? = nil) throws -> String {
        var s: [String: Any] = [
            "version": 8,
            "sources": ["cities": ["type": "geojson", "data": citiesGeoJSON()]],
            "layers": [["id": "bg", "type": "background", "paint": ["background-color": "#eeeae0"]]] + layers,
        ]
        s["sprite"] = sprite ?? ("file://" + BasemapSymbolOracleTests.sprite)
        let path = dir.appendingPathComponent(name + ".json")
        try JSONSerialization.data(withJSONObject: s).write(to: path)
        return path.path
    }

    /// maprender's and MapLibre's drawings of `style` at Europe, zoom 4 (symbols on), written next
    /// to each other with the difference image; the share of pixels that differ.
    static func difference(_ dir: URL, _ style: String, _ name: String, oursStyle: String? = nil,
                           lat: Double = 48, lon: Double = 10, zoom: Double = 4,
                           width: Int = 1024, height: Int = 768, format: OutputFormat = .png) throws -> (Double, RenderResult) {
        var r = try BasemapStyleOracleTests.request(style: oursStyle ?? style, lat: lat, lon: lon, zoom: zoom, symbols: true)
        r.width = Double(width); r.height = Double(height)
        r.layout.attribution = ""
        let out = try MapRenderer.render(r)
        try out.data.write(to: dir.appendingPathComponent(name + ".png"))
        let theirs = try MapLibreLabels.render(style: style, lat: lat, lon: lon, zoom: zoom, symbols: true,
                                               to: dir.appendingPathComponent(name + "-maplibre.png").path, width: width, height: height)
        let d = try ImageDiff.compare(try PNGCodec.decode(data: out.data), theirs, options: .init(threshold: 0.1), makeDiffImage: true)
        if let img = d.diffImage { try PNGCodec.encode(img).write(to: dir.appendingPathComponent(name + "-diff.png")) }
        print("\(name): \(String(format: "%.3f", 100 * d.differentFraction))% of pixels differ from MapLibre Native's (\(dir.path))")
        return (d.differentFraction, out)
    }

    static let circleLayer: [String: Any] = [
        "id": "city-circles", "type": "circle", "source": "cities",
        "paint": ["circle-color": ["match", ["get", "rank"], 1, "#d04030", 2, "#3060c0", "#40a040"],
                  "circle-radius": ["case", ["==", ["get", "rank"], 1], 9, 6],
                  "circle-stroke-color": "#ffffff", "circle-stroke-width": 2],
    ]

    /// Circles from GeoJSON points (colour and radius by property, a white stroke): as MapLibre's
    /// within 1% of pixels, and far closer than without the layer.
    @Test func circlesFromGeoJSONPoints() throws {
        let dir = MapLibreLabels.directory()
        let style = try Self.style(dir, "circles", [Self.circleLayer]), bare = try Self.style(dir, "bare", [])
        let (d, out) = try Self.difference(dir, style, "geojson-circles")
        let (control, _) = try Self.difference(dir, style, "geojson-circles-control", oursStyle: bare)
        print("GeoJSON circles: \(String(format: "%.3f", 100 * d))%, without them \(String(format: "%.3f", 100 * control))%")
        #expect(d <= 0.01)
        #expect(d < control / 5)
        #expect(out.summary.basemapStyle?.unsupported == [])
        let circles = out.scene.items.reduce(0) { if case .shapes(let b) = $1 { $0 + b.pathCount } else { $0 } }
        #expect(circles == Self.cities.count, "\(circles) circles")
    }

    /// Icons from GeoJSON points (`icon-image` by property): as MapLibre's within 1% of pixels.
    @Test func iconsFromGeoJSONPoints() throws {
        let dir = MapLibreLabels.directory()
        let layer: [String: Any] = ["id": "city-icons", "type": "symbol", "source": "cities",
                                    "layout": ["icon-image": "{kind}", "icon-size": 1.5, "icon-allow-overlap": true]]
        let style = try Self.style(dir, "icons", [layer]), bare = try Self.style(dir, "bare", [])
        let (d, out) = try Self.difference(dir, style, "geojson-icons")
        let (control, _) = try Self.difference(dir, style, "geojson-icons-control", oursStyle: bare)
        print("GeoJSON icons: \(String(format: "%.3f", 100 * d))%, without them \(String(format: "%.3f", 100 * control))%")
        #expect(d <= 0.01)
        #expect(d < control / 5)
        let icons = out.scene.items.compactMap { if case .raster(let r) = $0 { r } else { nil } }
        #expect(icons.count == Self.cities.count)
    }

    /// Text from GeoJSON points (`text-field` with a token, under an icon): each of MapLibre's
    /// labels has one of ours within 4 px of its centre, and the same cities are named; the
    /// pixel difference (glyphs drawn differently) is printed and bounded loosely.
    @Test func textAndIconsFromGeoJSONPoints() throws {
        let dir = MapLibreLabels.directory()
        let layer: [String: Any] = ["id": "city-names", "type": "symbol", "source": "cities",
                                    "layout": ["icon-image": "{kind}", "text-field": "{name}", "text-font": ["DejaVu Sans Book"],
                                               "text-size": 14, "text-anchor": "top", "text-offset": [0, 0.6]],
                                    "paint": ["text-color": "#202020", "text-halo-color": "#ffffff", "text-halo-width": 1]]
        let style = try Self.style(dir, "names", [layer])
        let (d, out) = try Self.difference(dir, style, "geojson-names")
        #expect(d <= 0.02)
        let noText = try Self.style(dir, "names-no-text", [layer.merging(["layout": ["icon-image": "{kind}"]]) { $1 }])
        let with = try PNGCodec.decode(path: dir.appendingPathComponent("geojson-names-maplibre.png").path)
        let without = try MapLibreLabels.render(style: noText, lat: 48, lon: 10, zoom: 4, symbols: true,
                                                to: dir.appendingPathComponent("names-no-text-maplibre.png").path)
        let theirs = MapLibreLabels.components(differing: with, without, grow: 2)
        let ours = out.scene.labels.map(\.box)
        var matched = 0
        for t in theirs where ours.contains(where: { hypot($0.cx - t.cx, $0.cy - t.cy) <= 4 }) { matched += 1 }
        print("GeoJSON text: MapLibre \(theirs.count) labels, maprender \(ours.count), \(matched) of MapLibre's within 4 px of one of ours")
        #expect(ours.count == Self.cities.count)
        #expect(theirs.count == Self.cities.count)
        #expect(matched == theirs.count)
    }

    /// The circles, icons and text in SVG and PDF: vector circles and text (no embedded map
    /// raster), rasterised by librsvg and poppler they match the PNG.
    @Test func geojsonSymbolsInSvgAndPdf() throws {
        let dir = MapLibreLabels.directory()
        let names: [String: Any] = ["id": "city-names", "type": "symbol", "source": "cities",
                                    "layout": ["icon-image": "{kind}", "text-field": "{name}", "text-font": ["DejaVu Sans Book"],
                                               "text-size": 14, "text-anchor": "top", "text-offset": [0, 0.6]]]
        let style = try Self.style(dir, "svg", [Self.circleLayer, names])
        var r = try BasemapStyleOracleTests.request(style: style, lat: 48, lon: 10, zoom: 4, symbols: true)
        r.width = 512; r.height = 384
        r.layout.attribution = ""
        r.format = .svg
        let svg = String(decoding: try MapRenderer.render(r).data, as: UTF8.self)
        #expect(svg.contains("<path") && svg.contains("glyph"))
        try CrossFormatTests.expectSVGAndPDFMatchPNG(r, name: "GeoJSON symbols", svg: 0.01, pdf: 0.02)
    }
}
