import Testing
@testable import MapRenderCore

/// Serialized: the cache and its limit are process-wide.
@Suite(.serialized) struct LargeBufferTests {
    /// Freed large buffers kept (`LargeBlocks.keepFreed`) come back for a buffer of their size or
    /// up to a quarter less, not for a much smaller one. (Sizes of 50-100 MiB, which no other test
    /// asks for, so that a test running at the same time cannot take the block.)
    @Test func keptBlocksComeBackForTheirSize() {
        LargeBlocks.keepFreed(upTo: 1 << 30)
        defer { LargeBlocks.keepFreed(upTo: 0) }
        let size = 74 << 20
        let a = UnsafeMutablePointer<UInt8>.allocateLarge(capacity: size)
        #expect(Int(bitPattern: a) % (2 << 20) == 0)
        a.initialize(repeating: 7, count: size)
        a.freeLarge()
        let b = UnsafeMutablePointer<UInt8>.allocateLarge(capacity: size)
        #expect(b == a, "a block of the same size is the kept one")
        // Kept, not given back to the kernel and mapped again (which would read as zeros).
        #expect(b[0] == 7 && b[size / 2] == 7 && b[size - 1] == 7)
        b[size - 1] = 1   // all of it usable
        b.freeLarge()
        // 40 MiB: the kept 74 MiB block would waste more than a quarter.
        let c = UnsafeMutablePointer<UInt8>.allocateLarge(capacity: 40 << 20)
        #expect(c != a)
        // 70 MiB: within a quarter of it.
        let d = UnsafeMutablePointer<UInt8>.allocateLarge(capacity: 70 << 20)
        #expect(d == a && d[1000] == 7)
        d[(70 << 20) - 1] = 1
        c.freeLarge()
        d.freeLarge()
    }

    /// When the limit is reached the oldest kept block goes, and the newest is kept.
    @Test func theOldestKeptBlockMakesRoom() {
        LargeBlocks.keepFreed(upTo: 100 << 20)
        defer { LargeBlocks.keepFreed(upTo: 0) }
        let older = UnsafeMutablePointer<UInt8>.allocateLarge(capacity: 62 << 20)
        let newer = UnsafeMutablePointer<UInt8>.allocateLarge(capacity: 58 << 20)
        older.initialize(repeating: 1, count: 62 << 20)
        newer.initialize(repeating: 2, count: 58 << 20)
        older.freeLarge()
        newer.freeLarge()   // 120 MiB would be over the limit: the older one goes
        let again = UnsafeMutablePointer<UInt8>.allocateLarge(capacity: 58 << 20)
        #expect(again == newer && again[0] == 2)
        // The older one is gone: 62 MiB comes as fresh memory (zeros), not with its bytes.
        let fresh = UnsafeMutablePointer<UInt8>.allocateLarge(capacity: 62 << 20)
        #expect(fresh[0] == 0 && fresh[(62 << 20) - 1] == 0)
        again.freeLarge()
        fresh.freeLarge()
    }
}
