import Foundation
import Testing
@testable import MapRenderCore

@Suite struct WebMercatorTests {
    @Test func knownMetres() {
        let e = WebMercator.meters(lon: 180, lat: 0)
        #expect(abs(e.x - 20037508.34) < 0.01)
        #expect(abs(e.y) < 1e-6)
        let w = WebMercator.meters(lon: -180, lat: 0)
        #expect(abs(w.x + 20037508.34) < 0.01)
        // The square world: the latitude limit maps to the same distance as lon 180.
        let n = WebMercator.meters(lon: 0, lat: WebMercator.maxLatitude)
        #expect(abs(n.y - 20037508.34) < 0.01)
        // London, as EPSG:3857 tools give it (lon -0.1278, lat 51.5074 → -14226.63, 6711542.47).
        let l = WebMercator.meters(lon: -0.1278, lat: 51.5074)
        #expect(abs(l.x + 14226.63) < 0.01)
        #expect(abs(l.y - 6711542.47) < 0.5)
    }

    @Test func clampsLatitude() {
        #expect(WebMercator.y(lat: 90) == 0)
        #expect(WebMercator.y(lat: -90) == 1)
        #expect(WebMercator.y(lat: 0) == 0.5)
        #expect(WebMercator.y(lat: 89) == WebMercator.y(lat: WebMercator.maxLatitude))
    }

    @Test func roundTrips() {
        for lon in stride(from: -180.0, through: 180, by: 7.5) {
            #expect(abs(WebMercator.lon(x: WebMercator.x(lon: lon)) - lon) < 1e-9)
        }
        for lat in stride(from: -85.0, through: 85, by: 5) {
            #expect(abs(WebMercator.lat(y: WebMercator.y(lat: lat)) - lat) < 1e-9)
        }
    }

    /// supercluster's own `lngX`/`latY` (index.js), written out here as the reference: the one
    /// projection must give the same bits, or clusters would drift from supercluster's.
    @Test func isSuperclustersProjectionBitForBit() {
        func lngX(_ lng: Double) -> Double { lng / 360 + 0.5 }
        func latY(_ lat: Double) -> Double {
            let s = sin(lat * Double.pi / 180)
            let y = 0.5 - 0.25 * log((1 + s) / (1 - s)) / Double.pi
            return y < 0 ? 0 : y > 1 ? 1 : y
        }
        var lat = -90.0
        while lat <= 90 {
            #expect(WebMercator.y(lat: lat).bitPattern == latY(lat).bitPattern, "lat \(lat)")
            lat += 0.0137
        }
        for edge in [WebMercator.maxLatitude, -WebMercator.maxLatitude, 85.06, -85.06, 89.9999, 90, -90] {
            #expect(WebMercator.y(lat: edge).bitPattern == latY(edge).bitPattern, "lat \(edge)")
        }
        var lon = -180.0
        while lon <= 180 {
            #expect(WebMercator.x(lon: lon).bitPattern == lngX(lon).bitPattern)
            lon += 0.0291
        }
    }
}
