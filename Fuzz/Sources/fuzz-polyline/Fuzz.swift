import Foundation
import FuzzSupport
import MapRender

/// The encoded polyline decoder (`--polyline FIELD` columns) on arbitrary bytes, at both
/// precisions: lon/lat pairs in range, or an EncodedPolylineError at an offset in the text.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzz(_ bytes: UnsafePointer<UInt8>, _ count: Int) -> CInt {
    let text = UnsafeBufferPointer(start: bytes, count: count)
    for precision in [5, 6] {
        do {
            let coords = try EncodedPolyline.decode(text, precision: precision)
            precondition(coords.count % 2 == 0, "a longitude without its latitude")
            for k in stride(from: 0, to: coords.count, by: 2) {
                precondition(coords[k] >= -180 && coords[k] <= 180, "longitude out of range")
                precondition(coords[k + 1] >= -90 && coords[k + 1] <= 90, "latitude out of range")
            }
        } catch {
            precondition(error.offset.map { $0 >= 0 && $0 <= count } ?? false, "an offset outside the text")
            _ = error.description
        }
    }
    return 0
}

/// This executable's `main` (SwiftPM names it per target): libFuzzer's driver takes over.
@_cdecl("fuzz_polyline_main")
func fuzzMain(_ argc: CInt, _ argv: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>?) -> CInt {
    FuzzDriver.run(argc, argv, fuzz)
}
