import Foundation
import TestSupport
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

/// The shared seeded generator (SplitMix64), so shuffles and random data repeat.
typealias AnimationTestRandom = SeededRandom

extension SeededRandom {
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
