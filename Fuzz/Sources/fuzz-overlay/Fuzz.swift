import Foundation
import FuzzSupport
import MapRender

/// The Mapbox Static Images overlay grammar of `maprender serve` (`pin-s-a+f00(lon,lat)`,
/// `path-5+f44-0.5(polyline)`, `geojson(...)`, `url-{URL}(lon,lat)`) on arbitrary text: a list of overlays whose
/// positions are in range and whose GeoJSON is valid JSON, or an OverlayError naming the overlay.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzz(_ bytes: UnsafePointer<UInt8>, _ count: Int) -> CInt {
    let text = String(decoding: UnsafeBufferPointer(start: bytes, count: count), as: UTF8.self)
    do {
        let list = try Overlay.parseList(text)
        precondition(!list.isEmpty, "no error and no overlay")
        for o in list {
            switch o {
            case .pin(let p):
                precondition(abs(p.lon) <= 180 && abs(p.lat) <= 90, "pin out of range")
                precondition(p.color.map { $0.count == 7 && $0.hasPrefix("#") } ?? true, "colour not #rrggbb")
            case .path(let p):
                precondition(p.coordinates.count >= 4 && p.coordinates.count % 2 == 0, "path without two points")
                precondition(p.strokeOpacity.map { (0...1).contains($0) } ?? true, "opacity out of range")
            case .geoJSON(let g):
                precondition(!g.isEmpty, "empty GeoJSON")
            case .urlMarker(let m):
                precondition(abs(m.lon) <= 180 && abs(m.lat) <= 90, "url marker out of range")
                precondition(m.url.hasPrefix("http://") || m.url.hasPrefix("https://") || m.url.lowercased().hasPrefix("http"), "url marker not http(s)")
                precondition(!m.host.isEmpty && m.url.utf8.count <= Overlay.maxMarkerURLBytes, "url marker without host or too long")
            }
        }
        if let fc = Overlay.featureCollection(list) {
            precondition((try? JSONSerialization.jsonObject(with: Data(fc.utf8))) != nil, "the overlays' GeoJSON is not JSON")
        }
    } catch {
        precondition(!error.description.isEmpty, "an empty message")
        precondition(error.index.map { $0 >= 1 } ?? true, "an overlay number below 1")
    }
    return 0
}

/// This executable's `main` (SwiftPM names it per target): libFuzzer's driver takes over.
@_cdecl("fuzz_overlay_main")
func fuzzMain(_ argc: CInt, _ argv: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>?) -> CInt {
    FuzzDriver.run(argc, argv, fuzz)
}
