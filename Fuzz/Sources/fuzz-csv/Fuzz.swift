import Foundation
import MapRender

/// The CSV point reader on arbitrary bytes: every outcome but a crash, a hang or a sanitizer
/// report is fine (points, or a MapRenderError).
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzz(_ bytes: UnsafePointer<UInt8>, _ count: Int) -> CInt {
    let data = Data(bytes: bytes, count: count)
    var options = InputOptions()
    options.format = .csv
    _ = try? PointReader.read(data: data, name: "fuzz.csv", options: options)
    return 0
}

/// SwiftPM links an executable with `main` = `fuzz_csv_main`: hand over to libFuzzer's driver.
@_cdecl("fuzz_csv_main")
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
