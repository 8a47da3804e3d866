import Foundation

/// What every fuzz target shares: the hand-over to libFuzzer's driver and a scratch folder.
///
/// SwiftPM links each executable with its own `main` symbol (`fuzz_<target>_main`), so each target
/// keeps a one-line `@_cdecl` entry that calls `FuzzDriver.run`; libFuzzer supplies the rest.
public enum FuzzDriver {
    /// One input in, 0 out (libFuzzer's `LLVMFuzzerTestOneInput` signature).
    public typealias Body = @convention(c) (UnsafePointer<UInt8>, Int) -> CInt

    /// Runs libFuzzer's driver (corpus, mutation, limits from the command line) on `body`.
    public static func run(_ argc: CInt, _ argv: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>?,
                           _ body: Body) -> CInt {
        var argc = argc
        var argv = argv
        return LLVMFuzzerRunDriver(&argc, &argv, body)
    }

    /// An empty folder of this process, for targets whose input names paths (batch manifests):
    /// they resolve there, so inputs are missing and reported, never read from the machine.
    public static let scratchFolder: String = {
        let p = NSTemporaryDirectory() + "/maprender-fuzz-\(getpid())"
        try? FileManager.default.createDirectory(atPath: p, withIntermediateDirectories: true)
        return p
    }()
}

@_silgen_name("LLVMFuzzerRunDriver")
private func LLVMFuzzerRunDriver(
    _ argc: UnsafeMutablePointer<CInt>,
    _ argv: UnsafeMutablePointer<UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>?>,
    _ callback: @convention(c) (UnsafePointer<UInt8>, Int) -> CInt
) -> CInt
