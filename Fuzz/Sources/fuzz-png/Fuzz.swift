import Foundation
import MapRender
import MapRenderCairo

/// PNG decoding as `compare` does it, on arbitrary bytes; a decoded image is compared with itself.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzz(_ bytes: UnsafePointer<UInt8>, _ count: Int) -> CInt {
    guard let image = try? PNGCodec.decode(data: Data(bytes: bytes, count: count), name: "fuzz.png") else { return 0 }
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
