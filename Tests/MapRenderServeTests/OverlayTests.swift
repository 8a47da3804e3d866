import Foundation
import MapRender
import MapRenderCore
@testable import MapRenderServe
import Testing

/// The Mapbox Static Images overlay grammar: each form, each field, and a message for each fault.
@Suite struct OverlayTests {
    func one(_ s: String) throws -> Overlay {
        let list = try Overlay.parseList(s)
        #expect(list.count == 1)
        return list[0]
    }

    func problem(_ s: String) -> String {
        do {
            _ = try Overlay.parseList(s)
            return "(no error)"
        } catch {
            return error.description
        }
    }

    @Test func pins() throws {
        #expect(try one("pin-s(2.35,48.85)") == .pin(.init(large: false, label: nil, color: nil, lon: 2.35, lat: 48.85)))
        #expect(try one("pin-l-a+f00(-122.4,37.8)") == .pin(.init(large: true, label: "a", color: "#ff0000", lon: -122.4, lat: 37.8)))
        #expect(try one("pin-s-42+00ff00(0,0)") == .pin(.init(large: false, label: "42", color: "#00ff00", lon: 0, lat: 0)))
        #expect(try one("pin-s-rail-metro(1,2)") == .pin(.init(large: false, label: "rail-metro", color: nil, lon: 1, lat: 2)))
        #expect(try one("pin-s+555555(-122.46589,37.77343)") == .pin(.init(large: false, label: nil, color: "#555555", lon: -122.46589, lat: 37.77343)))
    }

    @Test func paths() throws {
        // "_p~iF~ps|U_ulLnnqC_mqNvxq`@": Google's documented example, percent-encoded as a URL carries it.
        let poly = "_p~iF~ps%7CU_ulLnnqC_mqNvxq%60%40"
        guard case .path(let p) = try one("path-5+f44-0.5(\(poly))") else { Issue.record("not a path"); return }
        #expect(p.strokeWidth == 5 && p.strokeColor == "#ff4444" && p.strokeOpacity == 0.5 && p.fillColor == nil)
        #expect(p.coordinates == [-120.2, 38.5, -120.95, 40.7, -126.453, 43.252])
        guard case .path(let q) = try one("path-2+000-1+0f0-0.25(\(poly))") else { Issue.record("not a path"); return }
        #expect(q.fillColor == "#00ff00" && q.fillOpacity == 0.25 && q.strokeOpacity == 1)
        guard case .path(let r) = try one("path+f00(\(poly))") else { Issue.record("not a path"); return }
        #expect(r.strokeWidth == nil && r.strokeColor == "#ff0000")
        guard case .path(let bare) = try one("path(\(poly))") else { Issue.record("not a path"); return }
        #expect(bare.strokeColor == nil && bare.coordinates.count == 6)
        let fc = Overlay.featureCollection([.path(q)]) ?? ""
        #expect(fc.contains("\"type\":\"Polygon\"") && fc.contains("[-120.2,38.5]]]"))   // closed ring
    }

    @Test func geoJSONAndLists() throws {
        let list = try Overlay.parseList("geojson(%7B%22type%22%3A%22Point%22%2C%22coordinates%22%3A%5B-73.99%2C40.7%5D%7D),pin-s(1,2),pin-l(3,4)")
        #expect(list.count == 3)
        #expect(list[0] == .geoJSON(#"{"type":"Point","coordinates":[-73.99,40.7]}"#))
        #expect(list[0].positionCount == 1)
        let fc = Overlay.featureCollection(list) ?? ""
        #expect(fc.contains(#""marker-size":"medium""#) && fc.contains(#""marker-size":"large""#) && !fc.contains("73.99"))
    }

    @Test func faultsAreNamed() {
        #expect(problem("pin-x(1,2)") == "overlay 1 (pin-x(1,2)): unknown overlay 'pin-x': expected pin-s, pin-l, path, geojson or url")
        #expect(problem("pin-s(1,2),pin-s(200,2)") == "overlay 2 (pin-s(200,2)): the longitude must be in -180...180, got 200")
        #expect(problem("pin-s(1,95)") == "overlay 1 (pin-s(1,95)): the latitude must be in -90...90, got 95")
        #expect(problem("pin-s+ff(1,2)") == "overlay 1 (pin-s+ff(1,2)): the pin colour must be 3 or 6 hex digits (f00, ff0000), got 'ff'")
        #expect(problem("pin-s-100(1,2)").hasSuffix("the label must be a letter, a number 0...99 or an icon name (letters, digits and '-'), got '100'"))
        #expect(problem("pin-s(1;2)") == "overlay 1 (pin-s(1;2)): expected (lon,lat) in degrees, got (1;2)")
        #expect(problem("pin-s(1,2") == "overlay 1 (pin-s(1,2): a '(' without its ')'")
        #expect(problem("pin-s(1,2),,pin-s(1,2)") == "overlay 2: an empty overlay (two commas, or a comma at an end)")
        #expect(problem("path-0+f00(abc)").hasSuffix("the stroke width must be a number in (0, 100], got '0'"))
        #expect(problem("path-5+f00-2(abc)").hasSuffix("the stroke opacity must be a number in 0...1, got '2'"))
        #expect(problem("path-5(%7E)").contains("the polyline: "))
        #expect(problem("path-5(_p~iF~ps%7CU)").hasSuffix("a path needs at least two points, the polyline has 1"))
        #expect(problem("url-ftp%3A%2F%2Fexample.com%2Fm.png(1,2)").hasSuffix("the marker URL's scheme is 'ftp': only http and https images are fetched"))
        #expect(problem("url-%2Fm.png(1,2)").hasSuffix("the marker URL '/m.png' is not an absolute URL (expected https://HOST/PATH)"))
        #expect(problem("url-https%3A%2F%2Fu%3Ap%40example.com%2Fm.png(1,2)").hasSuffix("the marker URL has a user name or password; give a URL without them"))
        #expect(problem("url-https%3A%2F%2Fexample.com%2Fa%20b.png(1,2)").hasSuffix("percent-encode them in the URL"))
        #expect(problem("url-(1,2)").hasSuffix("the marker URL is empty: expected url-{percent-encoded URL}(lon,lat)"))
        #expect(problem("url-https%3A%2F%2Fexample.com%2Fm.png(1,200)").hasSuffix("the latitude must be in -90...90, got 200"))
        #expect(problem("geojson()").hasSuffix("the GeoJSON is empty"))
        #expect(problem("geojson(%ZZ)").hasSuffix("the GeoJSON is not valid percent-encoding"))
        #expect(problem("nothing").hasSuffix("expected NAME(...) such as pin-s(lon,lat), path-5+f00(polyline) or geojson(...)"))
    }

    @Test func urlMarkers() throws {
        let list = try Overlay.parseList("url-https%3A%2F%2FExample.com%3A8443%2Fm.png%3Fv%3D1(2.35,48.85),pin-s(1,2)")
        #expect(list[0] == .urlMarker(.init(url: "https://Example.com:8443/m.png?v=1", host: "example.com:8443", lon: 2.35, lat: 48.85)))
        #expect(list[0].positionCount == 1)
        let fc = Overlay.featureCollection(list) ?? ""
        #expect(fc.contains(#"{"type":"Feature","properties":{"marker-url":"https://Example.com:8443/m.png?v=1"},"geometry":{"type":"Point","coordinates":[2.35,48.85]}}"#), "\(fc)")
        // The server's host allowlist.
        var c = ServeConfiguration()
        c.urlMarkerHosts = try ServeConfiguration.parseHosts("Example.com, *.tiles.org,127.0.0.1:8080")
        #expect(c.urlMarkerHosts == ["example.com", "*.tiles.org", "127.0.0.1:8080"])
        #expect(c.allowsMarkerHost("example.com") && c.allowsMarkerHost("example.com:8443"))
        #expect(!c.allowsMarkerHost("www.example.com") && !c.allowsMarkerHost("example.com.evil.net"))
        #expect(c.allowsMarkerHost("a.tiles.org") && c.allowsMarkerHost("a.b.tiles.org:81") && !c.allowsMarkerHost("tiles.org") && !c.allowsMarkerHost("eviltiles.org"))
        #expect(c.allowsMarkerHost("127.0.0.1:8080") && !c.allowsMarkerHost("127.0.0.1") && !c.allowsMarkerHost("127.0.0.1:8081"))
        #expect(throws: MapRenderError.self) { try ServeConfiguration.parseHosts("http://example.com") }
        #expect(throws: MapRenderError.self) { try ServeConfiguration.parseHosts("example.com:0") }
        #expect(throws: MapRenderError.self) { try ServeConfiguration.parseHosts(",") }
        #expect(throws: MapRenderError.self) { try ServeConfiguration.parseHosts("a*.example.com") }
    }

    @Test func urlPathsAndQueries() throws {
        let u = try StaticURL(segments: ["pin-s(1,2)", "10.5,20.25,3", "600x400@2x.svg"], query: "cluster=false&label=name&access_token=pk.x")
        #expect(u.format == .svg)
        #expect(u.options.map(\.name) == ["size", "scale", "center", "zoom", "cluster", "label"])
        #expect(u.options[2].values == ["20.25,10.5"])   // the table's center is LAT,LON
        let b = try StaticURL(segments: ["%5B-10,35,30,60%5D", "300x200"], query: nil)
        #expect(b.options.last!.name == "bbox" && b.options.last!.values == ["-10,35,30,60"] && b.format == .png)
        let a = try StaticURL(segments: ["auto", "300x200"], query: nil)
        #expect(a.auto)
        #expect(throws: ServeError.self) { try StaticURL(segments: ["1,2,3,45", "300x200"], query: nil) }
        do {
            _ = try StaticURL(segments: ["1,2,3", "300x200"], query: "zoom=4")
        } catch {
            #expect(error.message == "zoom: given by the URL's path (VIEW/WIDTHxHEIGHT[@2x]); remove it from the query")
        }
        do {
            _ = try StaticURL(segments: ["1,2,3", "300x200.gif"], query: nil)
        } catch {
            #expect(error.message.hasPrefix("unknown image format '.gif'"))
        }
    }
}
