/// A 64-bit mixing function for the flat hash tables on hot paths (`IDTable`, exact-duplicate
/// grouping in `ColocatedSpreader`): a Swift `Hasher` per key costs a SipHash round where a few
/// multiplies do.
enum Hash64 {
    /// splitmix64's finaliser: a bijection of UInt64 in which every input bit moves every output bit.
    @inline(__always)
    static func mix(_ x: UInt64) -> UInt64 {
        var z = x &+ 0x9E37_79B9_7F4A_7C15
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }
}
