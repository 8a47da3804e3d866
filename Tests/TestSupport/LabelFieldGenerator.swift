/// Seeded places for label tests: dense hot spots of small places around a few big ones, with
/// stacks (several places at one coordinate), names of 1–12 letters and a population each.
/// Plain values (no MapRenderCore types), so every test target can use it.
public struct GeneratedPlaces {
    public var lon: [Double] = [], lat: [Double] = []
    public var name: [String] = []
    public var population: [Double] = []

    /// `count` places in a `span`° square around (0, 0) for `seed`: a fifth big (populations up to
    /// 10M), the rest small (up to 50k) and crowded round 6 hot spots; `stacks` groups of 2–8 small
    /// places share a coordinate each, next to a big place; `ties`: populations rounded to 100k,
    /// so that many are equal.
    public static func make(seed: UInt64, count: Int, span: Double = 20, stacks: Int = 10, ties: Bool = false) -> GeneratedPlaces {
        var rng = SeededRandom(seed: seed)
        func uniform() -> Double { Double(rng.next() >> 11) / Double(1 << 53) }
        var g = GeneratedPlaces()
        let letters = Array("abcdefghijklmnopqrstuvwxyz")
        func word() -> String {
            let n = 1 + Int(rng.next() % 12)
            return String((0..<n).map { _ in letters[Int(rng.next() % 26)] }).capitalized
        }
        let spots = (0..<6).map { _ in ((uniform() - 0.5) * span * 0.8, (uniform() - 0.5) * span * 0.8) }
        func add(_ x: Double, _ y: Double, _ pop: Double) {
            g.lon.append(x); g.lat.append(y); g.name.append(word())
            g.population.append(ties ? (pop / 100_000).rounded() * 100_000 : pop.rounded())
        }
        for k in 0..<count {
            let big = k % 5 == 0
            let s = spots[Int(rng.next() % 6)]
            let spread = big ? span * 0.3 : span * 0.12
            let x = s.0 + (uniform() - 0.5) * spread, y = s.1 + (uniform() - 0.5) * spread
            add(x, y, big ? 100_000 + uniform() * 9_900_000 : 1_000 + uniform() * 49_000)
        }
        for k in 0..<stacks where count > 0 {
            // Beside a big place, a little off it.
            let b = (k * 5) % count
            let x = g.lon[b] + (uniform() - 0.5) * span * 0.02, y = g.lat[b] + (uniform() - 0.5) * span * 0.02
            for _ in 0..<(2 + Int(rng.next() % 7)) { add(x, y, 1_000 + uniform() * 20_000) }
        }
        return g
    }
}
