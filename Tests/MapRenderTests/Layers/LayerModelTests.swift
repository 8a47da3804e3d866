import Foundation
import MapRenderCairo
import MapRenderCore
import Testing
@testable import MapRender

/// The map as an ordered list of layers (`MapLayer`): every geometry of the input drawn, in the
/// style's order, with one view fitted to all of it and planning run once for every path.
@Suite struct LayerModelTests {
    func tempFile(_ name: String, _ text: String) throws -> String {
        let dir = FileManager.default.temporaryDirectory.appendingPathComponent("maprender-layers-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
        let url = dir.appendingPathComponent(name)
        try text.write(to: url, atomically: true, encoding: .utf8)
        return url.path
    }

    func request(_ path: String, style: Style = .default) -> RenderRequest {
        var r = RenderRequest()
        r.inputs = [path]
        r.width = 400; r.height = 300
        r.style = style
        return r
    }

    /// The shape batches of a scene with their kind, in draw order.
    func shapeBatches(_ scene: Scene) -> [ShapeBatch] {
        scene.items.compactMap { if case .shapes(let s) = $0 { return s } else { return nil } }
    }

    /// `--integer-zoom` with tiles snaps the view inside the view choice, so the marks are planned
    /// once, for the snapped view, with the spread fall-back: the map equals the map of that same
    /// view given by hand. (It planned a second time without the fall-back, and 12 groups of 20
    /// points on one coordinate each came out as 240 piled pins.)
    @Test func integerZoomWithTilesPlansOnceWithTheSpreadFallback() throws {
        var points = PointSet()
        for g in 0..<12 {
            for _ in 0..<20 {
                points.lon.append(-10 + Double(g % 4) * 1.5); points.lat.append(40 + Double(g / 4) * 1.2)
                points.properties.appendEmptyRow()
            }
        }
        var r = RenderRequest()
        r.points = points
        r.clustering = nil
        r.width = 640; r.height = 400
        r.tiles.sources = [TestPaths.repoFile("Tests/MapRenderTilesTests/Fixtures/ne.pmtiles")]
        r.tiles.cacheDirectory = NSTemporaryDirectory() + "maprender-layer-tests"
        r.tiles.integerZoom = true
        let snapped = try MapRenderer.render(r)
        let v = snapped.viewport
        #expect(v.zoom == v.zoom.rounded(.down))
        #expect(snapped.summary.clusters.spreadFallbacks > 0)
        // The same view by hand, planned once as every view is.
        var byHand = r
        byHand.tiles.integerZoom = false
        byHand.view = .center(lat: v.centerLatitude, lon: v.centerLongitude, zoom: v.zoom)
        let fixed = try MapRenderer.render(byHand)
        #expect(fixed.viewport.zoom == v.zoom)
        // (The centre goes through latitude and longitude: positions agree to a micro-pixel.)
        func summary(_ s: Scene) -> [String] { s.bubbles.map { "\($0.count)@\(Int($0.x.rounded())),\(Int($0.y.rounded()))" } }
        #expect(summary(snapped.scene) == summary(fixed.scene))
        #expect(!snapped.scene.bubbles.isEmpty)
        #expect(snapped.scene.markers.reduce(0) { $0 + $1.count } == fixed.scene.markers.reduce(0) { $0 + $1.count })
        #expect(snapped.scene.markers.reduce(0) { $0 + $1.count } < 240)
    }

    /// Raster tiles are the map's first layer, not pushed into a finished scene: tiles, then the
    /// data's polygons and lines, then markers, labels and the attribution.
    @Test func layersDrawInOrder() throws {
        let path = try tempFile("mixed.geojson", """
            {"type": "FeatureCollection", "features": [
              {"type": "Feature", "properties": {"name": "A"}, "geometry": {"type": "Point", "coordinates": [2, 48]}},
              {"type": "Feature", "properties": {}, "geometry": {"type": "LineString", "coordinates": [[0, 45], [5, 50]]}},
              {"type": "Feature", "properties": {}, "geometry": {"type": "Polygon", "coordinates": [[[-2, 44], [6, 44], [6, 51], [-2, 51], [-2, 44]]]}}
            ]}
            """)
        var r = request(path)
        r.tiles.sources = [TestPaths.repoFile("Tests/MapRenderTilesTests/Fixtures/ne.pmtiles")]
        r.tiles.cacheDirectory = NSTemporaryDirectory() + "maprender-layer-tests"
        r.layout.labelField = "name"
        r.layout.attribution = "test"
        let scene = try MapRenderer.render(r).scene
        let kinds: [String] = scene.items.map {
            switch $0 {
            case .raster: return "raster"
            case .shapes(let s): return s.kind == .polygon ? "polygon" : "line"
            case .markers: return "markers"
            case .label: return "label"
            case .textBox: return "attribution"
            default: return "other"
            }
        }
        var collapsed: [String] = []
        for k in kinds where collapsed.last != k { collapsed.append(k) }
        #expect(collapsed == ["raster", "polygon", "line", "markers", "label", "attribution"])
    }

    /// A GeoJSON of lines only is drawn, not refused, and the view fits the lines.
    @Test func linesOnlyAreDrawnAndFitted() throws {
        let path = try tempFile("routes.geojson", """
            {"type": "FeatureCollection", "features": [
              {"type": "Feature", "properties": {}, "geometry": {"type": "LineString", "coordinates": [[100, 10], [110, 20]]}},
              {"type": "Feature", "properties": {}, "geometry": {"type": "MultiLineString", "coordinates": [[[105, 12], [108, 25]], [[101, 11], [102, 12]]]}}
            ]}
            """)
        let result = try MapRenderer.render(request(path))
        let b = result.viewport.bounds
        #expect(b.west < 100 && b.east > 110 && b.south < 10 && b.north > 25)
        #expect(b.east - b.west < 30)   // fitted, not the whole world
        #expect(result.summary.input.geometries == ["LineString": 2])
        #expect(result.summary.marks["line"] == 2)
        #expect(!result.warnings.contains { $0.contains("no points") })
    }

    /// A polygon across 180° (Fiji as Natural Earth splits it, in two parts on ±180°) fits the
    /// short way and is drawn with no outline along the cut.
    @Test func polygonAcrossTheAntimeridianFitsTheShortWayWithNoSeam() throws {
        let path = try tempFile("fiji.geojson", """
            {"type": "Feature", "properties": {}, "geometry": {"type": "MultiPolygon", "coordinates": [
              [[[178, -18], [180, -18], [180, -16], [178, -16], [178, -18]]],
              [[[-180, -18], [-179, -18], [-179, -16], [-180, -16], [-180, -18]]]]}}
            """)
        let result = try MapRenderer.render(request(path))
        let b = result.viewport.bounds
        #expect(b.west > 170 && b.east < -170, "across 180°: \(b)")
        let polys = shapeBatches(result.scene).filter { $0.kind == .polygon && $0.fillsPathsApart }
        #expect(polys.count == 1)
        #expect(polys[0].pathCount == 2)
        #expect(polys[0].unstroked.count == 2)   // one edge on +180°, one on -180°
    }

    /// `fill-color` as a step expression on a property gives a choropleth; simplestyle `stroke`
    /// properties on a feature override the default line layer.
    @Test func choroplethAndSimplestyle() throws {
        let path = try tempFile("regions.geojson", """
            {"type": "FeatureCollection", "features": [
              {"type": "Feature", "properties": {"rate": 2}, "geometry": {"type": "Polygon", "coordinates": [[[0, 0], [1, 0], [1, 1], [0, 1], [0, 0]]]}},
              {"type": "Feature", "properties": {"rate": 7}, "geometry": {"type": "Polygon", "coordinates": [[[1, 0], [2, 0], [2, 1], [1, 1], [1, 0]]]}},
              {"type": "Feature", "properties": {"rate": 12}, "geometry": {"type": "Polygon", "coordinates": [[[2, 0], [3, 0], [3, 1], [2, 1], [2, 0]]]}},
              {"type": "Feature", "properties": {"stroke": "#ff0000", "stroke-width": 5, "stroke-opacity": 0.5}, "geometry": {"type": "LineString", "coordinates": [[0, 2], [3, 2]]}}
            ]}
            """)
        let style = try Style.parse(data: Data("""
            {"layers": [{"id": "rate", "type": "fill", "paint": {"fill-color": ["step", ["get", "rate"], "#ffeeee", 5, "#ffcc99", 10, "#ee3344"]}}]}
            """.utf8), name: "s.json")
        let scene = try MapRenderer.render(request(path, style: style)).scene
        let data = shapeBatches(scene).filter(\.fillsPathsApart)
        let fills = data.filter { $0.kind == .polygon }.map(\.fill)
        #expect(fills == ["#ffeeee", "#ffcc99", "#ee3344"].map { RGBA.parse($0)! })
        let line = try #require(data.first { $0.kind == .line })
        #expect(line.stroke == RGBA(1, 0, 0, 0.5))
        #expect(line.strokeWidth == 5)
    }

    /// `basemap.fill` as an expression colours `--basemap` features (a choropleth of the basemap),
    /// and simplestyle `fill` on basemap features is honoured.
    @Test func basemapFillExpressionAndSimplestyle() throws {
        let basemap = try tempFile("base.geojson", """
            {"type": "FeatureCollection", "features": [
              {"type": "Feature", "properties": {"k": "a"}, "geometry": {"type": "Polygon", "coordinates": [[[0, 0], [1, 0], [1, 1], [0, 1], [0, 0]]]}},
              {"type": "Feature", "properties": {"k": "b"}, "geometry": {"type": "Polygon", "coordinates": [[[1, 0], [2, 0], [2, 1], [1, 1], [1, 0]]]}},
              {"type": "Feature", "properties": {"k": "a", "fill": "#00ff00"}, "geometry": {"type": "Polygon", "coordinates": [[[2, 0], [3, 0], [3, 1], [2, 1], [2, 0]]]}}
            ]}
            """)
        let points = try tempFile("p.csv", "lat,lon\n0.5,0.5\n0.5,2.5\n")
        let style = try Style.parse(data: Data("""
            {"basemap": {"fill": ["match", ["get", "k"], "a", "#ff0000", "#0000ff"]}}
            """.utf8), name: "s.json")
        var r = request(points, style: style)
        r.basemaps = [basemap]
        let fills = shapeBatches(try MapRenderer.render(r).scene).filter { $0.kind == .polygon }.map(\.fill)
        #expect(fills == [RGBA(1, 0, 0), RGBA(0, 0, 1), RGBA(0, 1, 0)])
    }

    /// A GeometryCollection mixing every kind: its points are points, its lines and polygons shapes.
    @Test func geometryCollectionMixingKinds() throws {
        let path = try tempFile("gc.geojson", """
            {"type": "Feature", "properties": {"name": "all"}, "geometry": {"type": "GeometryCollection", "geometries": [
              {"type": "Point", "coordinates": [10, 10]},
              {"type": "MultiPoint", "coordinates": [[11, 11], [12, 12]]},
              {"type": "LineString", "coordinates": [[10, 10], [12, 12]]},
              {"type": "Polygon", "coordinates": [[[9, 9], [13, 9], [13, 13], [9, 13], [9, 9]], [[10, 10], [11, 10], [11, 11], [10, 10]]]},
              {"type": "MultiPolygon", "coordinates": [[[[14, 9], [15, 9], [15, 10], [14, 9]]]]},
              {"type": "GeometryCollection", "geometries": [{"type": "LineString", "coordinates": [[9, 14], [13, 14]]}]}
            ]}}
            """)
        var r = request(path)
        r.clustering = nil
        let result = try MapRenderer.render(r)
        #expect(result.summary.input.geometries == ["Point": 3, "LineString": 2, "Polygon": 2])
        #expect(result.summary.pointsDrawn == 3)
    }

    /// Damaged lines and polygons are skipped and counted by reason with the feature index; a
    /// self-intersecting polygon is drawn (even-odd); nothing else is lost.
    @Test func damagedShapesAreSkippedAndCounted() throws {
        let path = try tempFile("bad.geojson", """
            {"type": "FeatureCollection", "features": [
              {"type": "Feature", "properties": {}, "geometry": {"type": "Polygon", "coordinates": [[[0, 0], [1, 0], [1, 1], [0, 1]]]}},
              {"type": "Feature", "properties": {}, "geometry": {"type": "Polygon", "coordinates": [[[0, 0], [1, 0], [0, 0]]]}},
              {"type": "Feature", "properties": {}, "geometry": {"type": "Polygon", "coordinates": []}},
              {"type": "Feature", "properties": {}, "geometry": {"type": "LineString", "coordinates": [[0, 0]]}},
              {"type": "Feature", "properties": {}, "geometry": {"type": "LineString", "coordinates": [[0, 0], [0, 95]]}},
              {"type": "Feature", "properties": {}, "geometry": {"type": "LineString", "coordinates": [[0, 0], ["x", 1]]}},
              {"type": "Feature", "properties": {}, "geometry": {"type": "Polygon", "coordinates": [[[0, 0], [2, 2], [2, 0], [0, 2], [0, 0]]]}}
            ]}
            """)
        let result = try MapRenderer.render(request(path))
        #expect(result.summary.input.geometries == ["Polygon": 1])
        let s = result.summary.input.skipped
        #expect(s[SkipReason.ringNotClosed.rawValue] == 1)
        #expect(s[SkipReason.ringTooShort.rawValue] == 1)
        #expect(s[SkipReason.emptyCoordinate.rawValue] == 1)
        #expect(s[SkipReason.lineTooShort.rawValue] == 1)
        #expect(s[SkipReason.latitudeOutOfRange.rawValue] == 1)
        #expect(s[SkipReason.notANumber.rawValue] == 1)
        #expect(result.warnings.contains { $0.hasSuffix("skipped 1 feature: polygon ring not closed (first and last positions differ) (feature 0)") })
    }

    /// A ring of a million vertices is read and drawn (simplified to what the pixels show).
    @Test func millionVertexRing() throws {
        var text = #"{"type": "Polygon", "coordinates": [["#
        let n = 1_000_000
        for i in 0..<n {
            let a = Double(i) / Double(n) * 2 * .pi
            text += "[\(String(format: "%.6f", 10 * cos(a))),\(String(format: "%.6f", 10 * sin(a)))],"
        }
        text += "[10.000000,0.000000]]]}"
        let result = try MapRenderer.render(request(try tempFile("big.geojson", text)))
        let poly = try #require(shapeBatches(result.scene).first { $0.fillsPathsApart })
        #expect(poly.coords.count / 2 < 20_000)   // a quarter pixel apart at most
        #expect(result.summary.input.geometries == ["Polygon": 1])
    }

    /// Style layers are checked when the style loads, naming the layer and the key.
    @Test(arguments: [
        (#"{"layers": [{"id": "a", "type": "circle"}]}"#, #"s.json: layers[0] ("a").type: expected one of "background", "fill", "line", got "circle""#),
        (##"{"layers": [{"id": "a", "type": "fill", "paint": {"line-color": "#f00"}}]}"##, #"s.json: layers[0] ("a").paint.line-color: unknown key; did you mean 'fill-color'?"#),
        (#"{"layers": [{"id": "a", "type": "line", "paint": {"line-width": 500}}]}"#, #"s.json: layers[0] ("a").paint.line-width: expected a number in 0...100, got 500"#),
        (#"{"layers": [{"id": "a", "type": "line"}, {"id": "a", "type": "fill"}]}"#, #"s.json: layers[1] ("a").id: another layer has this id"#),
        (#"{"layers": [{"id": "a", "type": "line", "paint": {"line-dasharray": [0, 0]}}]}"#, #"s.json: layers[0] ("a").paint.line-dasharray: expected an array of 1 to 16 non-negative numbers (dash and gap lengths in line widths), not all zero, got an array"#),
        (#"{"layers": [{"type": "line"}]}"#, #"s.json: layers[0].id: expected a non-empty string naming the layer"#),
    ])
    func styleLayerErrors(json: String, message: String) {
        #expect(throws: MapRenderError.self) { try Style.parse(data: Data(json.utf8), name: "s.json") }
        do { _ = try Style.parse(data: Data(json.utf8), name: "s.json") } catch {
            #expect("\(error)" == message)
        }
    }

    /// A line layer's dashes are in line widths, as MapLibre's; cap and join pass through.
    @Test func dashedLineLayer() throws {
        let path = try tempFile("l.geojson", #"{"type": "LineString", "coordinates": [[0, 0], [10, 5]]}"#)
        let style = try Style.parse(data: Data("""
            {"layers": [{"id": "d", "type": "line", "layout": {"line-cap": "butt", "line-join": "bevel"},
              "paint": {"line-color": "#0000ff", "line-width": 3, "line-dasharray": [2, 1]}}]}
            """.utf8), name: "s.json")
        let b = try #require(shapeBatches(try MapRenderer.render(request(path, style: style)).scene).first(where: \.fillsPathsApart))
        #expect(b.paint.dash == [6, 3])
        #expect(b.paint.cap == .butt && b.paint.join == .bevel)
        #expect(b.stroke == RGBA(0, 0, 1))
    }

    /// `--line-by` joins rows into one line per value (the `id` column included), ordered by
    /// `--order-by`; a value with one point makes no line; `--line-only` leaves the points out.
    @Test func rowsJoinedIntoLines() throws {
        let path = try tempFile("t.csv", """
            id,t,lat,lon,device
            a,3,10,12,x
            b,1,0,0,y
            a,1,10,10,x
            a,2,11,11,x
            c,1,5,5,z
            b,2,1,1,y
            """)
        var r = request(path)
        r.pointLines = PointLines(field: "id", orderBy: "t")
        r.clustering = nil
        let result = try MapRenderer.render(r)
        #expect(result.summary.input.geometries == ["Point": 6, "LineString": 2])
        var byDevice = r
        byDevice.pointLines = PointLines(field: "device")
        byDevice.lineOnly = true
        let lines = try MapRenderer.render(byDevice)
        #expect(lines.summary.input.geometries == ["LineString": 2])
        #expect(lines.summary.pointsDrawn == 0)
        // The order: by t, ties in input order.
        var points = PointSet()
        for (t, lon) in [(3.0, 12.0), (1, 10), (2, 11)] {
            points.lon.append(lon); points.lat.append(0)
            points.properties.appendRow([(points.properties.addColumn("k"), .string("a")), (points.properties.addColumn("t"), .number(t))])
        }
        let set = PointLines(field: "k", orderBy: "t").lines(from: points)
        #expect(set.coords == [10, 0, 11, 0, 12, 0])
    }

    /// Nothing drawable: the error says why, by reason, with the hint that helps.
    @Test func nothingToDrawSaysWhy() throws {
        let path = try tempFile("q.csv", "lat,lon\n10,200\n11,300\n")
        #expect { try MapRenderer.render(request(path)) } throws: { e in
            "\(e)".hasSuffix("q.csv: no points to draw (none of 2 records has valid coordinates: 2 longitude outside -180..180; for 0..360 longitudes use --wrap-longitude); nothing written (--allow-empty writes an empty map)")
        }
    }

    /// `marker-symbol` is drawn inside the markers (no warning); a 40-character one is refused
    /// with one warning naming its point (RouteTests and MarkerTextLayoutTests draw and fit them).
    @Test func markerSymbolIsDrawnAndLongOnesWarnOnce() throws {
        let long = String(repeating: "abcd", count: 10)
        let path = try tempFile("m.geojson", """
            {"type": "FeatureCollection", "features": [
              {"type": "Feature", "properties": {"marker-symbol": "1"}, "geometry": {"type": "Point", "coordinates": [0, 0]}},
              {"type": "Feature", "properties": {"marker-symbol": "\(long)"}, "geometry": {"type": "Point", "coordinates": [1, 1]}}]}
            """)
        var r = request(path)
        r.clustering = nil
        let result = try MapRenderer.render(r)
        let w = result.warnings.filter { $0.contains("marker-symbol") }
        #expect(w == ["marker-symbol: 'abcdabcdabcdabcdabcd...' on point 1 has 40 characters; at most 3 are drawn inside a marker, so it is drawn without"])
        let symbols = try #require(result.scene.markers.first).symbols
        #expect(symbols.compactMap { $0.text?.text } == ["1"])
    }
}
