import Foundation
import FuzzSupport
import MapRender

/// Mapbox Vector Tile decoding as `--basemap-style` does it, on arbitrary bytes: every layer,
/// clipped to tile 3/4/2, then the layers' shape sets finished; a bad tile throws, never traps.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzz(_ bytes: UnsafePointer<UInt8>, _ count: Int) -> CInt {
    var out: [String: VectorLayerData] = [:]
    do {
        try MVTDecoder.decode(Array(UnsafeBufferPointer(start: bytes, count: count)), tile: TileID(z: 3, x: 4, y: 2),
                              layers: nil, into: &out)
    } catch {
        return 0
    }
    for (_, d) in out { _ = d.finished() }
    return 0
}

/// This executable's `main` (SwiftPM names it per target): libFuzzer's driver takes over.
@_cdecl("fuzz_mvt_main")
func fuzzMain(_ argc: CInt, _ argv: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>?) -> CInt {
    FuzzDriver.run(argc, argv, fuzz)
}
