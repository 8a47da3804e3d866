import Foundation

/// The chunks of one PNG file, CRCs checked.
enum PNGChunks {
    static let signature: [UInt8] = [0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A]

    struct Chunk {
        var type: String
        var data: [UInt8]
    }

    static func parse(_ png: Data, frame: Int) throws -> [Chunk] {
        let bytes = [UInt8](png)
        func fail(_ message: String) -> MapRenderError {
            MapRenderError(.internal, "APNG frame \(frame): \(message)")
        }
        guard bytes.count >= 8, Array(bytes[0..<8]) == signature else { throw fail("not a PNG (bad signature)") }
        var chunks: [Chunk] = []
        var i = 8
        while i < bytes.count {
            guard i + 12 <= bytes.count else { throw fail("truncated chunk at byte \(i)") }
            let length = Int(uint32(bytes, i))
            guard length <= 0x7FFF_FFFF, i + 12 + length <= bytes.count else {
                throw fail("truncated chunk at byte \(i)")
            }
            let typeBytes = bytes[(i + 4)..<(i + 8)]
            guard typeBytes.allSatisfy({ ($0 >= 65 && $0 <= 90) || ($0 >= 97 && $0 <= 122) }) else {
                throw fail("bad chunk type at byte \(i)")
            }
            let type = String(decoding: typeBytes, as: UTF8.self)
            let data = Array(bytes[(i + 8)..<(i + 8 + length)])
            var crc = CRC32()
            crc.update(typeBytes)
            crc.update(data)
            guard crc.value == uint32(bytes, i + 8 + length) else { throw fail("bad CRC in chunk \(type)") }
            i += 12 + length
            if type == "IEND" { return chunks }
            chunks.append(Chunk(type: type, data: data))
        }
        throw fail("no IEND chunk")
    }

    @inline(__always)
    static func uint32<C: RandomAccessCollection>(_ b: C, _ at: Int) -> UInt32 where C.Element == UInt8, C.Index == Int {
        let s = b.startIndex + at
        return UInt32(b[s]) << 24 | UInt32(b[s + 1]) << 16 | UInt32(b[s + 2]) << 8 | UInt32(b[s + 3])
    }
}
