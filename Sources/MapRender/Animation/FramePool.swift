import Foundation

/// Runs independent per-frame work on a fixed number of threads and returns the results in
/// frame order. Work is handed out one frame at a time (frames differ in cost); the result of a
/// frame depends only on its index, never on the thread or the order, so any number of jobs gives
/// the same results.
enum FramePool {
    /// `body(k)` for k in 0..<count on `jobs` threads. The first error stops the handing out of
    /// frames and is rethrown.
    static func map<T>(count: Int, jobs: Int, _ body: (Int) throws -> T) throws -> [T] {
        try map(count: count, jobs: jobs, worker: { _ in () }) { _, k in try body(k) }
    }

    /// As `map(count:jobs:_:)`, with a per-thread value made once per thread by `worker(w)`,
    /// w in 0..<threads (say, a Pango font map, which must not be shared between threads).
    static func map<T, W>(count: Int, jobs: Int, worker: (Int) -> W, _ body: (W, Int) throws -> T) throws -> [T] {
        guard count > 0 else { return [] }
        let threads = max(1, min(jobs, count))
        let shared = Shared<T>(count: count)
        func run(_ w: Int) {
            let context = worker(w)
            while let k = shared.take() {
                do {
                    shared.store(try body(context, k), at: k)
                } catch {
                    shared.fail(error)
                    return
                }
            }
        }
        if threads == 1 {
            run(0)
        } else {
            DispatchQueue.concurrentPerform(iterations: threads) { w in run(w) }
        }
        if let e = shared.error { throw e }
        return shared.results.map { $0! }
    }

    private final class Shared<T>: @unchecked Sendable {
        let lock = NSLock()
        let count: Int
        var next = 0
        var results: [T?]
        var error: Error?

        init(count: Int) {
            self.count = count
            results = Array(repeating: nil, count: count)
        }

        func take() -> Int? {
            lock.lock(); defer { lock.unlock() }
            guard error == nil, next < count else { return nil }
            next += 1
            return next - 1
        }

        func store(_ value: T, at k: Int) {
            lock.lock(); results[k] = value; lock.unlock()
        }

        func fail(_ e: Error) {
            lock.lock(); if error == nil { error = e }; lock.unlock()
        }
    }
}

/// Small helpers shared by the animation files.
enum AnimationMath {
    /// The signed x step from `a` to `b` the short way round the world, in -0.5...0.5.
    @inline(__always)
    static func shortDelta(from a: Double, to b: Double) -> Double {
        var d = (b - a).truncatingRemainder(dividingBy: 1)
        if d > 0.5 { d -= 1 } else if d < -0.5 { d += 1 }
        return d
    }

    /// An order-independent hash of a set of keys (to tell whether a cluster kept its members).
    @inline(__always)
    static func mix(_ key: Int) -> UInt64 {
        var z = UInt64(bitPattern: Int64(key)) &+ 0x9E37_79B9_7F4A_7C15
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }
}
