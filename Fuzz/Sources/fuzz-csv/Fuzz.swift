import Foundation
import FuzzSupport
import MapRender

/// The CSV point reader on arbitrary bytes: every outcome but a crash, a hang or a sanitizer
/// report is fine (points, or a MapRenderError).
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzz(_ bytes: UnsafePointer<UInt8>, _ count: Int) -> CInt {
    FuzzInputs.readPoints(bytes, count, as: .csv)
}

/// This executable's `main` (SwiftPM names it per target): libFuzzer's driver takes over.
@_cdecl("fuzz_csv_main")
func fuzzMain(_ argc: CInt, _ argv: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>?) -> CInt {
    FuzzDriver.run(argc, argv, fuzz)
}
