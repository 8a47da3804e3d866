import Foundation
import FuzzSupport
import MapRender

/// Expressions: text → parse (for each expected type) → evaluate on features with numbers,
/// strings, booleans, null and missing properties, at several zooms.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzz(_ bytes: UnsafePointer<UInt8>, _ count: Int) -> CInt {
    guard let text = String(bytes: UnsafeBufferPointer(start: bytes, count: count), encoding: .utf8) else { return 0 }
    for type in ExpressionType.allCases {
        guard let e = try? StyleExpression.parse(jsonText: text, file: "fuzz.json", path: "marker.size", expecting: type)
        else { continue }
        for features in fixtures {
            for zoom in [0.0, 3.5, 24, -1, .nan] {
                _ = e.evaluate(FeatureContext(zoom: zoom, properties: features))
            }
        }
    }
    return 0
}

private let fixtures: [[String: PropertyValue]] = [
    [:],
    ["name": .string("Paris"), "pop": .number(2.1e6), "type": .string("city"), "capital": .bool(true)],
    ["name": .string(""), "pop": .number(-0.0), "type": .null, "size": .number(.infinity)],
    ["pop": .number(.nan), "size": .number(-1e308), "name": .string("é\u{0}\u{1F600}")],
]

/// This executable's `main` (SwiftPM names it per target): libFuzzer's driver takes over.
@_cdecl("fuzz_expression_main")
func fuzzMain(_ argc: CInt, _ argv: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>?) -> CInt {
    FuzzDriver.run(argc, argv, fuzz)
}
