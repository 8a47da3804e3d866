import Foundation

/// The one walk over a PNG file's chunks (for `PNGHeader` and `APNGWriter`): signature, then
/// each chunk's length within the file, type letters and CRC checked, up to IEND.
enum PNGChunks {
    static let signature: [UInt8] = [0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A]

    struct Chunk {
        var type: String
        /// Byte offset of its length field.
        var offset: Int
        /// Its data, within the file's bytes.
        var data: Range<Int>
    }

    /// What is wrong with the file, in words after "corrupt PNG: " (or after the signature's own message).
    enum Problem: Error {
        case badSignature
        case invalid(String)
        var text: String {
            switch self {
            case .badSignature: return "not a PNG (bad signature)"
            case .invalid(let s): return s
            }
        }
    }

    /// Calls `visit` with each chunk before IEND, in order; returns at IEND.
    static func walk(_ bytes: [UInt8], _ visit: (Chunk) throws -> Void) throws {
        guard bytes.count >= 8, bytes[0..<8].elementsEqual(signature) else { throw Problem.badSignature }
        var offset = 8
        while true {
            guard offset + 8 <= bytes.count else {
                throw Problem.invalid("the file ends at byte \(bytes.count), before the IEND chunk")
            }
            let length = Int(uint32(bytes, offset))
            let typeBytes = bytes[(offset + 4)..<(offset + 8)]
            guard typeBytes.allSatisfy({ (0x41...0x5A).contains($0) || (0x61...0x7A).contains($0) }) else {
                throw Problem.invalid("no valid chunk at byte \(offset)")
            }
            let type = String(decoding: typeBytes, as: UTF8.self)
            guard length <= 0x7FFF_FFFF, offset + 12 + length <= bytes.count else {
                throw Problem.invalid("chunk \(type) at byte \(offset) runs past the end of the file")
            }
            let crc = bytes.withUnsafeBytes { CRC32.checksum(UnsafeRawBufferPointer(rebasing: $0[(offset + 4)..<(offset + 8 + length)])) }
            guard crc == uint32(bytes, offset + 8 + length) else {
                throw Problem.invalid("chunk \(type) at byte \(offset) fails its CRC check")
            }
            if type == "IEND" { return }
            try visit(Chunk(type: type, offset: offset, data: (offset + 8)..<(offset + 8 + length)))
            offset += 12 + length
        }
    }

    @inline(__always)
    static func uint32<C: RandomAccessCollection>(_ b: C, _ at: Int) -> UInt32 where C.Element == UInt8, C.Index == Int {
        let s = b.startIndex + at
        return UInt32(b[s]) << 24 | UInt32(b[s + 1]) << 16 | UInt32(b[s + 2]) << 8 | UInt32(b[s + 3])
    }
}
