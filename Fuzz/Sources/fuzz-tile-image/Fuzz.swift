import Foundation
import FuzzSupport
import MapRenderTiles

/// A tile's bytes through the real decoders (libpng, libjpeg-turbo, libwebp) with the header
/// check that refuses sizes past the limit before any decoder allocates; here the limit is
/// 1024 px a side, so one input cannot take the fuzzer's memory.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzz(_ bytes: UnsafePointer<UInt8>, _ count: Int) -> CInt {
    _ = try? TileService.decode(Data(bytes: bytes, count: count), name: "fuzz", maxSide: 1024)
    return 0
}

@_cdecl("fuzz_tile_image_main")
func fuzzMain(_ argc: CInt, _ argv: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>?) -> CInt {
    FuzzDriver.run(argc, argv, fuzz)
}
