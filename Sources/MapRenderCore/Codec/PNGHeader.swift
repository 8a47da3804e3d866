import Foundation

/// The image header of a PNG file, read and checked without decoding any pixels, so that
/// `compare` knows an image's size (and refuses a 100000×100000 one) before allocating it,
/// and reports a damaged file precisely instead of as "out of memory".
///
/// ```swift
/// let h = try PNGHeader.read(data, name: "golden.png")   // every chunk's length and CRC checked
/// if h.pixels > limit { ... }
/// ```
public struct PNGHeader: Sendable, Equatable {
    public var width: Int
    public var height: Int
    public var bitDepth: Int
    public var colorType: Int
    public var interlaced: Bool

    public var pixels: Int { width * height }

    /// True when the bytes start with the PNG signature.
    public static func hasSignature(_ data: Data) -> Bool {
        data.count >= 8 && data.prefix(8).elementsEqual(PNGChunks.signature)
    }

    /// Walks every chunk (`PNGChunks`): lengths within the file, CRCs right, IHDR first and
    /// valid, at least one IDAT, an IEND. The size is the codec's header check (`ImageCodec.probe`).
    /// Messages start with `name`: `a.png: corrupt PNG: chunk IDAT at byte 57 fails its CRC check`.
    ///
    /// - Complexity: O(file size) (the CRCs).
    public static func read(_ data: Data, name: String) throws -> PNGHeader {
        guard hasSignature(data) else { throw MapRenderError(.inputMalformed, "\(name): not a PNG file") }
        func corrupt(_ what: String) -> MapRenderError { MapRenderError(.inputMalformed, "\(name): corrupt PNG: \(what)") }
        let bytes = [UInt8](data)
        var header: PNGHeader?
        var sawData = false
        do {
            try PNGChunks.walk(bytes) { chunk in
                if header == nil {
                    guard chunk.type == "IHDR", chunk.data.count == 13 else { throw corrupt("the first chunk is \(chunk.type), not IHDR") }
                    let p = chunk.data.lowerBound
                    guard let size = try? ImageCodec.probe(data), size.format == .png else { throw corrupt("no IHDR chunk first") }
                    let h = PNGHeader(width: size.width, height: size.height, bitDepth: Int(bytes[p + 8]),
                                      colorType: Int(bytes[p + 9]), interlaced: bytes[p + 12] == 1)
                    let depths: [Int: [Int]] = [0: [1, 2, 4, 8, 16], 2: [8, 16], 3: [1, 2, 4, 8], 4: [8, 16], 6: [8, 16]]
                    guard h.width >= 1, h.height >= 1, h.width <= 0x7FFF_FFFF, h.height <= 0x7FFF_FFFF else {
                        throw corrupt("image size \(h.width)x\(h.height)")
                    }
                    guard depths[h.colorType]?.contains(h.bitDepth) == true, bytes[p + 10] == 0, bytes[p + 11] == 0,
                          bytes[p + 12] <= 1 else {
                        throw corrupt("invalid IHDR (colour type \(h.colorType), bit depth \(h.bitDepth))")
                    }
                    header = h
                } else if chunk.type == "IDAT" {
                    sawData = true
                }
            }
        } catch let p as PNGChunks.Problem {
            throw corrupt(p.text)
        }
        guard let header else { throw corrupt("the first chunk is IEND, not IHDR") }
        guard sawData else { throw corrupt("no image data (IDAT chunk)") }
        return header
    }
}
