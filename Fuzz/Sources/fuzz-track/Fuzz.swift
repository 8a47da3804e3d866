import Foundation
import MapRender

/// The track reader (animate's id,time,lat,lon CSV): the scan pass, then the read into frames
/// and positions for every frame.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzz(_ bytes: UnsafePointer<UInt8>, _ count: Int) -> CInt {
    let data = Data(bytes: bytes, count: count)
    guard let scan = try? TrackReader.scan(data: data, name: "fuzz.csv"), let span = scan.span else { return 0 }
    let frames = 8
    let step = (span.upperBound - span.lowerBound) / Double(frames - 1)
    guard step.isFinite else { return 0 }
    var reader = TrackReader(frameTimes: (0..<frames).map { span.lowerBound + Double($0) * step })
    guard (try? reader.read(data: data, name: "fuzz.csv")) != nil else { return 0 }
    for k in 0..<frames { _ = reader.positions(frame: k, hold: k % 2 == 0) }
    return 0
}

/// SwiftPM links an executable with `main` = `fuzz_track_main`: hand over to libFuzzer's driver.
@_cdecl("fuzz_track_main")
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
