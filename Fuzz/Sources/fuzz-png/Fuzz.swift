import Foundation
import FuzzSupport
import MapRender
import MapRenderCairo

/// PNG decoding as `compare` does it, on arbitrary bytes: the header and chunk check, the size
/// limit (here 4M pixels, so one input cannot take the fuzzer's memory), then the decoder; a
/// decoded image is compared with itself.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzz(_ bytes: UnsafePointer<UInt8>, _ count: Int) -> CInt {
    let data = Data(bytes: bytes, count: count)
    guard let header = try? PNGHeader.read(data, name: "fuzz.png"), header.pixels <= 4 << 20,
          let image = try? PNGCodec.decode(data: data, name: "fuzz.png") else { return 0 }
    _ = try? ImageDiff.compare(image, image, options: ImageDiff.Options(), makeDiffImage: true)
    return 0
}

/// This executable's `main` (SwiftPM names it per target): libFuzzer's driver takes over.
@_cdecl("fuzz_png_main")
func fuzzMain(_ argc: CInt, _ argv: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>?) -> CInt {
    FuzzDriver.run(argc, argv, fuzz)
}
