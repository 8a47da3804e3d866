import Foundation
import FuzzSupport
import MapRender

/// A YAML batch manifest on arbitrary bytes: parsed and checked (paths resolve in an empty
/// temporary folder, so inputs are mostly missing and reported, never rendered).
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzz(_ bytes: UnsafePointer<UInt8>, _ count: Int) -> CInt {
    _ = try? BatchManifest.parse(data: Data(bytes: bytes, count: count), name: "fuzz.yaml", baseDirectory: FuzzDriver.scratchFolder)
    return 0
}

/// This executable's `main` (SwiftPM names it per target): libFuzzer's driver takes over.
@_cdecl("fuzz_manifest_yaml_main")
func fuzzMain(_ argc: CInt, _ argv: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>?) -> CInt {
    FuzzDriver.run(argc, argv, fuzz)
}
