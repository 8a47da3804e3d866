import Foundation
import Testing
@testable import MapRenderCore

/// TileJSON documents (a vector source's `url`) and sprite indexes, read on their own.
@Suite struct TileJSONAndSpriteTests {
    func tileJSON(_ json: String, at location: String) throws -> TileJSON {
        try TileJSON.parse(Data(json.utf8), location: location)
    }

    @Test func templatesResolveAgainstTheDocument() throws {
        #expect(try tileJSON(#"{"tiles": ["xyz/{z}/{x}/{y}.pbf"]}"#, at: "/data/t/tiles.json").tiles == "/data/t/xyz")
        #expect(try tileJSON(#"{"tiles": ["file:///abs/a.pmtiles"]}"#, at: "/data/tiles.json").tiles == "/abs/a.pmtiles")
        #expect(try tileJSON(#"{"tiles": ["v/{z}/{x}/{y}.pbf"]}"#, at: "https://h.example/maps/tiles.json").tiles
                == "https://h.example/maps/v/{z}/{x}/{y}.pbf")
        #expect(try tileJSON(#"{"tiles": ["/v/{z}/{x}/{y}.pbf"]}"#, at: "https://h.example/maps/tiles.json").tiles
                == "https://h.example/v/{z}/{x}/{y}.pbf")
        let t = try tileJSON(#"{"tiles": ["https://o.example/{z}/{x}/{y}.mvt"], "minzoom": 2, "maxzoom": 9, "bounds": [5, 45, 15, 55], "attribution": "A"}"#,
                             at: "/x/tiles.json")
        #expect(t == TileJSON(tiles: "https://o.example/{z}/{x}/{y}.mvt", minzoom: 2, maxzoom: 9, bounds: [5, 45, 15, 55], attribution: "A"))
    }

    @Test func boundsSelectTiles() throws {
        let t = TileJSON(tiles: "x", bounds: [-10, 35, 20, 60])
        // Zoom 2: x 1 is 90°W-0°, x 2 0°-90°E, x 0 and 3 outside; y 0 (66.5°N-85°N) above the bounds.
        #expect((0..<4).filter { t.covers(TileID(z: 2, x: $0, y: 1)) } == [1, 2])
        #expect(!t.covers(TileID(z: 2, x: 1, y: 0)))
        // Across 180°: 170°E to 170°W.
        let pacific = TileJSON(tiles: "x", bounds: [170, -20, -170, 20])
        #expect((0..<4).filter { pacific.covers(TileID(z: 2, x: $0, y: 2)) } == [0, 3])
    }

    /// `"scheme": "tms"`: the template's `{y}` becomes `{-y}` (2^z - 1 - y), in a TileJSON
    /// document and on a style's source.
    @Test func tmsFlipsRows() throws {
        let t = try tileJSON(#"{"tiles": ["https://t.example/{z}/{x}/{y}.pbf"], "scheme": "tms"}"#, at: "t.json")
        #expect(t.tiles == "https://t.example/{z}/{x}/{-y}.pbf")
        let style = #"{"version": 8, "sources": {"v": {"type": "vector", "scheme": "tms", "tiles": ["https://t.example/{z}/{x}/{y}.pbf"]}}, "layers": []}"#
        let s = try MapLibreStyle.parse(data: Data(style.utf8), file: "s.json", directory: "")
        #expect(s.source("v")?.tiles == "https://t.example/{z}/{x}/{-y}.pbf")
        let local = #"{"version": 8, "sources": {"v": {"type": "vector", "scheme": "tms", "tiles": ["tiles/{z}/{x}/{y}.pbf"]}}, "layers": []}"#
        #expect(throws: MapRenderError.self) { try MapLibreStyle.parse(data: Data(local.utf8), file: "s.json", directory: "") }
    }

    @Test func badDocumentsNameTheProblem() {
        func message(_ json: String) -> String {
            do { _ = try tileJSON(json, at: "t.json"); return "no error" } catch let e as MapRenderError { return e.message } catch { return "\(error)" }
        }
        #expect(message("[]") == "TileJSON t.json: not a JSON object")
        #expect(message(#"{"tiles": []}"#) == #"TileJSON t.json: "tiles" must be an array of tile URL templates"#)
        // TMS rows over a local folder are not read; over a URL template they are (`tmsFlipsRows`).
        #expect(message(#"{"tiles": ["a/{z}/{x}/{y}"], "scheme": "tms"}"#).contains(#""scheme": "tms" is read for URL templates with {y}"#))
        #expect(message(#"{"tiles": ["https://t/{z}/{x}/{y}"], "scheme": "zxy"}"#).contains(#""scheme" must be "xyz" or "tms""#))
        #expect(message(#"{"tiles": ["a/{z}/{x}/{y}"], "minzoom": 5, "maxzoom": 2}"#).contains("above"))
        #expect(message(#"{"tiles": ["a/{z}/{x}/{y}"], "bounds": [1, 2]}"#).contains("[west, south, east, north]"))
    }

    @Test func spriteEntriesAreCutFromTheSheet() throws {
        // A 4x2 sheet: a red 2x2 square at 0,0 and a blue one at 2,0 (pixel ratio 2: 1x1 CSS px).
        var px = [UInt8](repeating: 0, count: 4 * 2 * 4)
        for y in 0..<2 { for x in 0..<4 { let i = 4 * (y * 4 + x); px[i + (x < 2 ? 0 : 2)] = 255; px[i + 3] = 255 } }
        let index = #"{"red": {"x": 0, "y": 0, "width": 2, "height": 2, "pixelRatio": 2}, "blue": {"x": 2, "y": 0, "width": 2, "height": 2}}"#
        let s = try Sprite.parse(index: Data(index.utf8), sheet: (4, 2, px), name: "s")
        #expect(s.icons["red"]?.width == 1 && s.icons["blue"]?.width == 2)
        #expect(s.icons["blue"]?.image.rgba.prefix(4) == [0, 0, 255, 255])
        #expect(s.icons["red"]?.image.rgba.prefix(4) == [255, 0, 0, 255])
        #expect(throws: MapRenderError.self) {
            try Sprite.parse(index: Data(#"{"x": {"x": 3, "y": 0, "width": 2, "height": 2}}"#.utf8), sheet: (4, 2, px), name: "s")
        }
        #expect(throws: MapRenderError.self) { try Sprite.parse(index: Data("[1]".utf8), sheet: (4, 2, px), name: "s") }
    }
}
