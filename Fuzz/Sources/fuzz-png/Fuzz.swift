import Foundation
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

/// SwiftPM links an executable with `main` = `fuzz_png_main`: hand over to libFuzzer's driver.
@_cdecl("fuzz_png_main")
func fuzzMain(_ argc: CInt, _ argv: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>?) -> CInt {
    var argc = argc
    var argv = argv
    return LLVMFuzzerRunDriver(&argc, &argv, fuzz)
}

@_silgen_name("LLVMFuzzerRunDriver")
func LLVMFuzzerRunDriver(
    _ argc: UnsafeMutablePointer<CInt>,
    _ argv: UnsafeMutablePointer<UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>?>,
    _ callback: @convention(c) (UnsafePointer<UInt8>, Int) -> CInt
) -> CInt
