import Foundation
import MapRender

/// A YAML batch manifest on arbitrary bytes: parsed and checked (paths resolve in an empty
/// temporary folder, so inputs are mostly missing and reported, never rendered).
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzz(_ bytes: UnsafePointer<UInt8>, _ count: Int) -> CInt {
    _ = try? BatchManifest.parse(data: Data(bytes: bytes, count: count), name: "fuzz.yaml", baseDirectory: folder)
    return 0
}

private let folder: String = {
    let p = NSTemporaryDirectory() + "/maprender-fuzz-\(getpid())"
    try? FileManager.default.createDirectory(atPath: p, withIntermediateDirectories: true)
    return p
}()

/// SwiftPM links an executable with `main` = `fuzz_manifest_yaml_main`: hand over to libFuzzer's driver.
@_cdecl("fuzz_manifest_yaml_main")
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
