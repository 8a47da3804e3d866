import Foundation
@testable import MapRenderCore

/// A keyframe from (id, lon, lat) rows, without properties.
func animationKeyframe(_ rows: [(PropertyValue, Double, Double)]) -> PointSet {
    var s = PointSet()
    for (id, lon, lat) in rows {
        s.ids.append(id)
        s.lon.append(lon)
        s.lat.append(lat)
        s.properties.appendEmptyRow()
    }
    return s
}

/// A small deterministic random generator (SplitMix64), so shuffles and random data repeat.
struct AnimationTestRandom: RandomNumberGenerator {
    private var state: UInt64
    init(seed: UInt64) { state = seed }
    mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }
    mutating func next(in range: ClosedRange<Double>) -> Double {
        Double.random(in: range, using: &self)
    }
}

/// A fresh temporary directory, removed by the caller.
func animationTempDirectory() throws -> URL {
    let dir = FileManager.default.temporaryDirectory.appendingPathComponent("maprender-anim-\(UUID().uuidString)")
    try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
    return dir
}
