import Foundation
import Testing
@testable import MapRenderCore

@Suite struct MapLibreStyleTests {
    func filter(_ json: String) throws -> StyleExpression {
        try StyleExpression.parseFilter(try JSONSerialization.jsonObject(with: Data(json.utf8), options: .fragmentsAllowed),
                                        file: "s.json", path: "layers[0].filter")
    }

    func keeps(_ json: String, _ props: [String: PropertyValue], type: String = "Polygon") throws -> Bool {
        var p = props
        p["$type"] = .string(type)
        return try filter(json).evaluate(FeatureContext(zoom: 5, properties: p)).truthy
    }

    /// The legacy filter syntax, as the style spec defines it, on the one evaluator.
    @Test func legacyFilters() throws {
        #expect(try keeps(#"["==", "class", "park"]"#, ["class": .string("park")]))
        #expect(try !keeps(#"["==", "class", "park"]"#, ["class": .string("wood")]))
        #expect(try !keeps(#"["==", "class", "park"]"#, [:]))
        #expect(try keeps(#"["!=", "class", "park"]"#, [:]))
        #expect(try !keeps(#"["==", "rank", 1]"#, ["rank": .string("1")]))   // no coercion
        #expect(try keeps(#"["in", "$type", "Polygon", "LineString"]"#, [:]))
        #expect(try !keeps(#"["in", "$type", "Polygon"]"#, [:], type: "Point"))
        #expect(try keeps(#"["!in", "class", "a", "b"]"#, ["class": .string("c")]))
        #expect(try keeps(#"["has", "name"]"#, ["name": .string("x")]))
        #expect(try keeps(#"["!has", "name"]"#, [:]))
        #expect(try keeps(#"["all", ["==", "$type", "Polygon"], [">=", "rank", 3]]"#, ["rank": .number(4)]))
        #expect(try !keeps(#"["any", ["<", "rank", 3], ["==", "class", "x"]]"#, ["rank": .number(4)]))
        // Ordering of different types is false in legacy filters, and "none" of a false is true.
        #expect(try keeps(#"["none", ["<", "rank", 3]]"#, ["rank": .string("a")]))
        #expect(try keeps(#"["none", ["==", "class", "a"], ["==", "class", "b"]]"#, ["class": .string("c")]))
        #expect(try keeps("true", [:]))
        // Expressions stay expressions.
        #expect(try keeps(#"["==", ["get", "class"], "park"]"#, ["class": .string("park")]))
        #expect(try keeps(#"["==", ["geometry-type"], "Polygon"]"#, [:]))
        #expect(try keeps(#"["in", ["get", "class"], ["literal", ["a", "b"]]]"#, ["class": .string("b")]))
        #expect(StyleExpression.isExpressionFilter(try JSONSerialization.jsonObject(with: Data(#"["has", "x"]"#.utf8))))
        #expect(!StyleExpression.isExpressionFilter(try JSONSerialization.jsonObject(with: Data(#"["has", "$type"]"#.utf8))))
        #expect(throws: MapRenderError.self) { try filter(#"["within", "x"]"#) }
        #expect(throws: MapRenderError.self) { try filter(#"["none", ["=", "a", 1]]"#) }
    }

    func property(_ json: String, _ type: ExpressionType, zoom: Double, _ props: [String: PropertyValue] = [:]) throws -> ExpressionValue {
        try StyleExpression.parseProperty(try JSONSerialization.jsonObject(with: Data(json.utf8), options: .fragmentsAllowed),
                                          file: "s.json", path: "p", expecting: type)
            .evaluate(FeatureContext(zoom: zoom, properties: props))
    }

    /// Legacy functions: exponential by the spec's formula, interval, categorical, identity.
    @Test func legacyFunctions() throws {
        let f = #"{"stops": [[0, 0.6], [6, 1.8]], "base": 1.2}"#
        let t = (Foundation.pow(1.2, 3.0) - 1) / (Foundation.pow(1.2, 6.0) - 1)
        #expect(abs(try property(f, .number, zoom: 3).numberValue! - (0.6 + 1.2 * t)) < 1e-12)
        #expect(try property(f, .number, zoom: 0) == .number(0.6))
        #expect(try property(f, .number, zoom: 9) == .number(1.8))
        #expect(try property(#"{"stops": [[4, 1], [8, 3]]}"#, .number, zoom: 6) == .number(2))   // base 1: linear
        #expect(try property(##"{"stops": [[0, "#000000"], [10, "#ffffff"]]}"##, .color, zoom: 5).colorValue == RGBA(0.5, 0.5, 0.5, 1))
        #expect(try property(#"{"type": "interval", "stops": [[0, 1], [5, 2], [8, 3]]}"#, .number, zoom: 6) == .number(2))
        let cat = #"{"property": "class", "type": "categorical", "stops": [["a", 1], ["b", 2]], "default": 9}"#
        #expect(try property(cat, .number, zoom: 0, ["class": .string("b")]) == .number(2))
        #expect(try property(cat, .number, zoom: 0, ["class": .string("z")]) == .number(9))
        #expect(try property(#"{"property": "w", "type": "identity"}"#, .number, zoom: 0, ["w": .number(4)]) == .number(4))
        #expect(throws: MapRenderError.self) {
            try property(#"{"property": "w", "stops": [[{"zoom": 1, "value": 1}, 2]]}"#, .number, zoom: 0)
        }
    }

    @Test func colours() {
        #expect(RGBA.parse("hsl(0,0%,100%)") == RGBA(1, 1, 1, 1))
        #expect(RGBA.parse("hsla(120, 100%, 25%, 0.5)") == RGBA(0, 0.5, 0, 0.5))
        #expect(RGBA.parse("hsl(195,17%,78%)") != nil)
        #expect(RGBA.parse("hsl(0,120%,50%)") == nil)
    }

    @Test func textFieldTokens() throws {
        let e = try StyleExpression.parse(SymbolStyle.tokens("{name} ({ele} m)"), file: "s", path: "p", expecting: .string)
        #expect(e.evaluate(FeatureContext(properties: ["name": .string("Mont Blanc"), "ele": .number(4808)])) == .string("Mont Blanc (4808 m)"))
        #expect(SymbolStyle.tokens("plain") as? String == "plain")
    }

    func parse(_ json: String) throws -> MapLibreStyle {
        try MapLibreStyle.parse(data: Data(json.utf8), file: "s.json", directory: "/data")
    }

    func error(_ json: String) -> String {
        do { _ = try parse(json); return "no error" } catch let e as MapRenderError { return e.message } catch { return "\(error)" }
    }

    @Test func sourcesAndLayers() throws {
        let s = try parse("""
            {"version": 8, "sources": {
               "a": {"type": "vector", "url": "pmtiles://tiles/x.pmtiles"},
               "b": {"type": "vector", "url": "mbtiles:///abs/y.mbtiles", "maxzoom": 5},
               "c": {"type": "vector", "tiles": ["https://t.example/{z}/{x}/{y}.pbf"]},
               "d": {"type": "vector", "tiles": ["xyz/{z}/{x}/{y}.pbf"]},
               "e": {"type": "geojson", "data": "shapes.geojson"},
               "f": {"type": "raster", "tiles": ["https://r.example/{z}/{x}/{y}.png"], "tileSize": 256}},
             "layers": [
               {"id": "bg", "type": "background", "paint": {"background-color": "#123456"}},
               {"id": "w", "type": "fill", "source": "a", "source-layer": "water", "minzoom": 2, "maxzoom": 9,
                "paint": {"fill-color": "#00f", "fill-pattern": "x", "fill-translate": [1, 1]}},
               {"id": "l", "type": "line", "source": "b", "source-layer": "boundary", "layout": {"visibility": "none"},
                "paint": {"line-dasharray": [2, 1], "line-gap-width": ["get", "w"]}},
               {"id": "h", "type": "heatmap", "source": "e"},
               {"id": "r", "type": "raster", "source": "f"}]}
            """)
        #expect(s.source("a")?.tiles == "/data/tiles/x.pmtiles")
        #expect(s.source("b")?.tiles == "/abs/y.mbtiles" && s.source("b")?.maxzoom == 5)
        #expect(s.source("c")?.tiles == "https://t.example/{z}/{x}/{y}.pbf")
        #expect(s.source("d")?.tiles == "/data/xyz")
        #expect(s.source("e")?.geojsonPath == "/data/shapes.geojson")
        #expect(s.source("f")?.tileSize == 256)
        #expect(s.layers.map(\.id) == ["bg", "w", "l", "h", "r"])
        #expect(s.layers[1].style.minzoom == 2 && s.layers[1].style.maxzoom == 9)
        #expect(!s.layers[2].style.visible && s.layers[2].style.lineDasharray == [2, 1])
        // No sprite: a pattern is not drawn; a gap width by feature is.
        #expect(s.unsupportedLines == ["fill-pattern (no sprite) (1 layer: w)", "fill-translate (1 layer: w)",
                                       "heatmap layers (1 layer: h)"])
        #expect(s.layers[2].lineGapWidth?.isFeatureConstant == false)
        #expect(s.sourceLayers(of: "a") == ["water"])
    }

    @Test func errorsNameTheFileAndKey() {
        #expect(error(#"{"version": 7, "layers": []}"#) == "s.json: version: expected 8 (MapLibre style spec v8), got 7")
        #expect(error(#"{"version": 8, "layers": [{"id": "x", "type": "fill", "source": "nope", "source-layer": "a"}]}"#)
                == #"s.json: layers[0] ("x").source: no source "nope" in the style's sources"#)
        // A vector source's TileJSON is read when the map is drawn; a raster source's URL must be tiles.
        #expect(error(#"{"version": 8, "sources": {"t": {"type": "vector", "url": "https://api.example/tiles.json"}}, "layers": []}"#) == "no error")
        #expect(error(#"{"version": 8, "sources": {"t": {"type": "raster", "url": "https://api.example/tiles.json"}}, "layers": []}"#)
                    .contains("is neither a tile template nor a PMTiles file"))
        #expect(error(#"{"version": 8, "sources": {"t": {"type": "video"}}, "layers": []}"#).contains(#""video" sources are not drawn"#))
        #expect(error(#"{"version": 8, "sources": {"t": {"type": "vector", "url": "pmtiles://a"}}, "layers": [{"id": "x", "type": "line", "source": "t"}]}"#)
                == #"s.json: layers[0] ("x").source-layer: missing (a vector source's layer)"#)
        #expect(error(#"{"version": 8, "layers": [{"id": "a", "type": "background"}, {"id": "a", "type": "background"}]}"#)
                == #"s.json: layers[1].id: another layer has the id "a""#)
        #expect(error("[1]") == "s.json: (top level): expected a style object")
    }
}
