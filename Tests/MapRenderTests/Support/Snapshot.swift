import Foundation
import MapRender
import MapRenderCairo
@_exported import TestSupport
import Testing

/// Golden files at `Tests/MapRenderTests/__Snapshots__/<TestFile>/<name>.<ext>`.
///
/// PNGs compare perceptually with our own pixelmatch-style comparison (threshold 0.1, anti-aliased
/// pixels forgiven) and tolerate `maxDifferentPixels` differing pixels; SVGs compare as text.
/// Re-record: `MAPRENDER_RECORD=1 scripts/test` (writes every golden the run touches). A missing golden is
/// recorded when run locally and is a failure in CI (`CI` set). On a mismatch the new image and a diff
/// image are written to `Tests/MapRenderTests/__Failures__/` and the failure message says where.
enum Snapshot {
    static let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()

    static func assertMatches(_ data: Data, named name: String, format: OutputFormat,
                              file: String = #filePath, maxDifferentPixels: Int = 0,
                              sourceLocation: SourceLocation = #_sourceLocation) throws {
        let testFile = URL(fileURLWithPath: file).deletingPathExtension().lastPathComponent
        let dir = root.appendingPathComponent("__Snapshots__/\(testFile)")
        let golden = dir.appendingPathComponent("\(name).\(format.rawValue)")
        let env = ProcessInfo.processInfo.environment
        let record = env["MAPRENDER_RECORD"] == "1"
        if record || !FileManager.default.fileExists(atPath: golden.path) {
            if !record && env["CI"] != nil {
                Issue.record("missing golden \(golden.path); record it locally with MAPRENDER_RECORD=1 scripts/test",
                             sourceLocation: sourceLocation)
                return
            }
            try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
            try data.write(to: golden)
            return
        }
        let failures = root.appendingPathComponent("__Failures__/\(testFile)")
        try FileManager.default.createDirectory(at: failures, withIntermediateDirectories: true)
        let actual = failures.appendingPathComponent("\(name).\(format.rawValue)")
        try data.write(to: actual)
        let diff = failures.appendingPathComponent("\(name).diff.png")
        let outcome = try ImageComparison.compare(expected: golden.path, actual: actual.path,
                                                  maxDifferent: maxDifferentPixels,
                                                  diffPath: format == .png ? diff.path : nil)
        if outcome.equal {
            try? FileManager.default.removeItem(at: actual)
            try? FileManager.default.removeItem(at: diff)
        } else {
            Issue.record("""
                \(name).\(format.rawValue) differs from its golden: \(outcome.message)
                golden: \(golden.path)
                actual: \(actual.path)\(format == .png ? "\ndiff:   \(diff.path)" : "")
                re-record with MAPRENDER_RECORD=1 scripts/test if the change is intended
                """, sourceLocation: sourceLocation)
        }
    }
}


/// A Pango measurer for tests that need real text sizes.
enum PangoTextForTests {
    static let shared = PangoText()
}
