import Foundation
import FuzzSupport
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

/// This executable's `main` (SwiftPM names it per target): libFuzzer's driver takes over.
@_cdecl("fuzz_track_main")
func fuzzMain(_ argc: CInt, _ argv: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>?) -> CInt {
    FuzzDriver.run(argc, argv, fuzz)
}
