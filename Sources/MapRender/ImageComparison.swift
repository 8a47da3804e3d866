import Foundation
import MapRenderCairo
import MapRenderCore

/// `maprender compare` and the golden-image tests: PNGs perceptually (pixelmatch semantics), others as text.
public enum ImageComparison {
    public struct Outcome: Sendable {
        public var equal: Bool
        public var differentPixels: Int
        public var message: String
    }

    public static func compare(expected: String, actual: String, threshold: Double = 0.1,
                               includeAntiAliased: Bool = false, maxDifferent: Int = 0,
                               diffPath: String? = nil) throws -> Outcome {
        let isPNG = [expected, actual].allSatisfy { OutputFormat(path: $0) == .png }
        if !isPNG, let png = [expected, actual].first(where: { OutputFormat(path: $0) == .png }) {
            // Name the file that is not a PNG, not the one that is.
            let other = png == expected ? actual : expected
            throw MapRenderError(.inputMalformed, "\(other): not a PNG, so it cannot be compared with the PNG \(png)")
        }
        guard isPNG else { return try compareText(expected: expected, actual: actual) }
        let a = try PNGCodec.decode(path: expected)
        let b = try PNGCodec.decode(path: actual)
        var options = ImageDiff.Options()
        options.threshold = threshold
        options.includeAntiAliased = includeAntiAliased
        let r = try ImageDiff.compare(a, b, options: options, makeDiffImage: diffPath != nil)
        if let p = diffPath, let img = r.diffImage { try AtomicFile.write(try PNGCodec.encode(img), to: p) }
        let equal = r.differentPixels <= maxDifferent
        let pct = String(format: "%.4f", 100 * Double(r.differentPixels) / Double(max(r.totalPixels, 1)))
        return Outcome(equal: equal, differentPixels: r.differentPixels,
                       message: "\(r.differentPixels) different pixels (\(pct)%), \(r.antiAliasedPixels) anti-aliased, of \(r.totalPixels)")
    }

    static func compareText(expected: String, actual: String) throws -> Outcome {
        func load(_ p: String) throws -> String {
            guard let d = FileManager.default.contents(atPath: p) else {
                throw MapRenderError(.inputUnreadable, "cannot read \(p): no such file or not readable")
            }
            guard let s = String(data: d, encoding: .utf8) else {
                throw MapRenderError(.inputMalformed, "\(p): not a PNG and not UTF-8 text")
            }
            return s
        }
        let a = try load(expected), b = try load(actual)
        guard let d = TextDiff.firstDifference(a, b) else {
            return Outcome(equal: true, differentPixels: 0, message: "identical text")
        }
        return Outcome(equal: false, differentPixels: 0,
                       message: "texts differ at line \(d.line):\n- \(d.expected.prefix(200))\n+ \(d.actual.prefix(200))")
    }
}
