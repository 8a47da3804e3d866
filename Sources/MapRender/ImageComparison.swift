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

    /// Images larger than this many pixels are refused before decoding (`compare --max-pixels`):
    /// comparing needs about 12 bytes per pixel (two images and the diff).
    public static let defaultMaxPixels = 64 << 20

    /// Compares by content, whatever the names: two PNGs (told by their signature) perceptually,
    /// two UTF-8 texts line by line, two other files (PDFs) byte for byte. Errors name the file at fault.
    public static func compare(expected: String, actual: String, threshold: Double = 0.1,
                               includeAntiAliased: Bool = false, maxDifferent: Int = 0,
                               diffPath: String? = nil, maxPixels: Int = defaultMaxPixels) throws -> Outcome {
        let a = try ComparedFile.read(expected), b = try ComparedFile.read(actual)
        guard a.kind == b.kind else {
            // A PNG against a file that is not an image by name either (a CSV): name that file.
            if let (png, other) = a.kind == .png ? (expected, actual) : b.kind == .png ? (actual, expected) : nil,
               OutputFormat(path: other) == nil {
                throw MapRenderError(.inputMalformed, "\(other): not a PNG, so it cannot be compared with the PNG \(png)")
            }
            throw MapRenderError(.inputMalformed,
                                 "cannot compare \(expected) (\(a.kind.rawValue)) with \(actual) (\(b.kind.rawValue))")
        }
        switch a.kind {
        case .text: return try compareText(expected: expected, actual: actual)
        case .binary: return compareBytes(a.data, b.data)
        case .png: break
        }
        let imageA = try decodePNG(a.data, name: expected, maxPixels: maxPixels)
        let imageB = try decodePNG(b.data, name: actual, maxPixels: maxPixels)
        // Images of different sizes are different images (exit 1), not an error.
        guard imageA.width == imageB.width, imageA.height == imageB.height else {
            return Outcome(equal: false, differentPixels: max(imageA.width * imageA.height, imageB.width * imageB.height),
                           message: "image sizes differ: \(imageA.sizeDescription) vs \(imageB.sizeDescription)")
        }
        var options = ImageDiff.Options()
        options.threshold = threshold
        options.includeAntiAliased = includeAntiAliased
        let r = try ImageDiff.compare(imageA, imageB, options: options, makeDiffImage: diffPath != nil)
        if let p = diffPath, let img = r.diffImage { try AtomicFile.write(try PNGCodec.encode(img), to: p) }
        let equal = r.differentPixels <= maxDifferent
        let pct = String(format: "%.4f", 100 * Double(r.differentPixels) / Double(max(r.totalPixels, 1)))
        return Outcome(equal: equal, differentPixels: r.differentPixels,
                       message: "\(r.differentPixels) different pixels (\(pct)%), \(r.antiAliasedPixels) anti-aliased, of \(r.totalPixels)")
    }

    /// Checks the PNG's chunks and size (no pixel decoded yet), then decodes it.
    static func decodePNG(_ data: Data, name: String, maxPixels: Int) throws -> RGBAImage {
        let header = try PNGHeader.read(data, name: name)
        guard header.pixels <= maxPixels else {
            throw MapRenderError(.usage, "\(name): the image is \(header.width)x\(header.height) = \(header.pixels) pixels, "
                + "more than the limit of \(maxPixels); --max-pixels raises it")
        }
        return try PNGCodec.decode(data: data, name: name, sizeChecked: true)
    }

    /// Two files that are neither PNG nor text (PDFs): equal when their bytes are.
    static func compareBytes(_ a: Data, _ b: Data) -> Outcome {
        if a == b { return Outcome(equal: true, differentPixels: 0, message: "identical bytes (\(a.count))") }
        let at = zip(a, b).enumerated().first { $0.element.0 != $0.element.1 }?.offset ?? min(a.count, b.count)
        return Outcome(equal: false, differentPixels: 0,
                       message: "files differ at byte \(at) (sizes \(a.count) and \(b.count))")
    }

    /// One of the files compared: read whole, only when it is a regular file, and told apart by content.
    struct ComparedFile {
        enum Kind: String { case png = "a PNG", text = "text", binary = "neither PNG nor text" }
        var data: Data
        var kind: Kind

        static func read(_ path: String) throws -> ComparedFile {
            var st = stat()
            guard stat(path, &st) == 0 else {
                throw MapRenderError(.inputUnreadable, "cannot read \(path): no such file or not readable")
            }
            switch st.st_mode & S_IFMT {
            case S_IFREG: break
            case S_IFDIR: throw MapRenderError(.inputUnreadable, "cannot read \(path): it is a folder, not a file")
            default: throw MapRenderError(.inputUnreadable, "cannot read \(path): not a regular file")
            }
            guard let data = FileManager.default.contents(atPath: path) else {
                throw MapRenderError(.inputUnreadable, "cannot read \(path): no such file or not readable")
            }
            if PNGHeader.hasSignature(data) { return ComparedFile(data: data, kind: .png) }
            if !data.contains(0), String(data: data, encoding: .utf8) != nil { return ComparedFile(data: data, kind: .text) }
            return ComparedFile(data: data, kind: .binary)
        }
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
