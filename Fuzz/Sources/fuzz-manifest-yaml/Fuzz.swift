import Foundation
import FuzzSupport
import MapRender

/// A YAML batch manifest on arbitrary bytes (`FuzzInputs.parseManifest`).
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzz(_ bytes: UnsafePointer<UInt8>, _ count: Int) -> CInt {
    FuzzInputs.parseManifest(bytes, count, name: "fuzz.yaml")
}

/// This executable's `main` (SwiftPM names it per target): libFuzzer's driver takes over.
@_cdecl("fuzz_manifest_yaml_main")
func fuzzMain(_ argc: CInt, _ argv: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>?) -> CInt {
    FuzzDriver.run(argc, argv, fuzz)
}
