import Testing
@testable import MapRenderCore

@Suite struct LargeBufferTests {
    /// Freed large buffers kept (`LargeBlocks.keepFreed`) come back for a buffer of their size or
    /// a little less, not for a much smaller one, and are given back when the limit drops. (Sizes
    /// no other test asks for, so that a test running at the same time cannot take the block.)
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
        // A small buffer is plain malloc memory, never kept nor handed out as a kept block.
        let small = UnsafeMutablePointer<UInt8>.allocateLarge(capacity: 1000)
        #expect(small != a && small != c)
        small.freeLarge()
    }
}
