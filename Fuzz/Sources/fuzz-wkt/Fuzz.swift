import Foundation
import FuzzSupport
import MapRender

/// The WKT decoder (`--wkt FIELD` columns) on arbitrary bytes: a geometry or a WKTError. A
/// geometry must hold only finite numbers, in lon/lat pairs, no more than the coordinate bound.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzz(_ bytes: UnsafePointer<UInt8>, _ count: Int) -> CInt {
    do {
        let g = try WKT.parse(UnsafeBufferPointer(start: bytes, count: count))
        var runs = [g.points] + g.lines
        for polygon in g.polygons {
            precondition(!polygon.isEmpty, "a polygon without rings")
            runs += polygon
        }
        for run in runs {
            precondition(run.count % 2 == 0, "a run of odd length")
            for v in run { precondition(v.isFinite, "a non-finite coordinate") }
        }
        precondition(g.vertexCount <= WKT.maxCoordinates)
    } catch {
        precondition(error.offset >= 0 && error.offset <= max(count, WKT.maxBytes), "an offset outside the text")
        _ = error.description
    }
    return 0
}

/// This executable's `main` (SwiftPM names it per target): libFuzzer's driver takes over.
@_cdecl("fuzz_wkt_main")
func fuzzMain(_ argc: CInt, _ argv: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>?) -> CInt {
    FuzzDriver.run(argc, argv, fuzz)
}
