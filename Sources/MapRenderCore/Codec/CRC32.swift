import CImageCodec
import Foundation

/// CRC-32 as PNG and gzip use it (ISO 3309 / ITU-T V.42), computed by zlib's `crc32`.
public struct CRC32 {
    /// The CRC of the bytes so far (zlib continues from it).
    public private(set) var value: UInt32 = 0

    public init() {}

    public mutating func update(_ bytes: UnsafeRawBufferPointer) {
        value = mr_crc32(value, bytes.bindMemory(to: UInt8.self).baseAddress, bytes.count)
    }

    public mutating func update<S: Sequence>(_ bytes: S) where S.Element == UInt8 {
        let done: Void? = bytes.withContiguousStorageIfAvailable { p in
            value = mr_crc32(value, p.baseAddress, p.count)
        }
        if done == nil { Array(bytes).withUnsafeBytes { update($0) } }
    }

    public static func checksum(_ bytes: UnsafeRawBufferPointer) -> UInt32 {
        var c = CRC32()
        c.update(bytes)
        return c.value
    }

    public static func checksum<S: Sequence>(_ bytes: S) -> UInt32 where S.Element == UInt8 {
        var c = CRC32()
        c.update(bytes)
        return c.value
    }
}
