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

    static let signature: [UInt8] = [0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A]

    /// True when the bytes start with the PNG signature.
    public static func hasSignature(_ data: Data) -> Bool {
        data.count >= 8 && data.prefix(8).elementsEqual(signature)
    }

    /// Walks every chunk: lengths within the file, CRCs right, IHDR first and valid, at least one
    /// IDAT, an IEND. Messages start with `name`: `a.png: corrupt PNG: chunk IDAT at byte 57 fails its CRC check`.
    ///
    /// - Complexity: O(file size) (the CRCs).
    public static func read(_ data: Data, name: String) throws -> PNGHeader {
        guard hasSignature(data) else { throw MapRenderError(.inputMalformed, "\(name): not a PNG file") }
        func corrupt(_ what: String) -> MapRenderError { MapRenderError(.inputMalformed, "\(name): corrupt PNG: \(what)") }
        let bytes = [UInt8](data)
        var header: PNGHeader?
        var offset = 8, sawData = false
        while true {
            guard offset + 8 <= bytes.count else { throw corrupt("the file ends at byte \(bytes.count), before the IEND chunk") }
            let length = Int(be32(bytes, offset))
            let typeBytes = bytes[(offset + 4)..<(offset + 8)]
            guard typeBytes.allSatisfy({ (0x41...0x5A).contains($0) || (0x61...0x7A).contains($0) }) else {
                throw corrupt("no valid chunk at byte \(offset)")
            }
            let type = String(decoding: typeBytes, as: UTF8.self)
            guard length <= 0x7FFF_FFFF, offset + 12 + length <= bytes.count else {
                throw corrupt("chunk \(type) at byte \(offset) runs past the end of the file")
            }
            let crc = bytes.withUnsafeBufferPointer { CRC32.checksum($0[(offset + 4)..<(offset + 8 + length)]) }
            guard crc == be32(bytes, offset + 8 + length) else {
                throw corrupt("chunk \(type) at byte \(offset) fails its CRC check")
            }
            if header == nil {
                guard type == "IHDR", length == 13 else { throw corrupt("the first chunk is \(type), not IHDR") }
                let p = offset + 8
                let h = PNGHeader(width: Int(be32(bytes, p)), height: Int(be32(bytes, p + 4)), bitDepth: Int(bytes[p + 8]),
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
            } else if type == "IDAT" {
                sawData = true
            } else if type == "IEND" {
                guard sawData else { throw corrupt("no image data (IDAT chunk)") }
                return header!
            }
            offset += 12 + length
        }
    }

    private static func be32(_ b: [UInt8], _ i: Int) -> UInt32 {
        UInt32(b[i]) << 24 | UInt32(b[i + 1]) << 16 | UInt32(b[i + 2]) << 8 | UInt32(b[i + 3])
    }
}
