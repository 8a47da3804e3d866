import Dispatch
import Foundation

/// Runs renders on `jobs` threads of its own (one render per core, each single-threaded:
/// `RenderRequest.threads = 1`, so the CPU is never oversubscribed by a parallel loop per
/// request), with at most `queue` renders waiting. Past that a render is refused at once
/// (503 with Retry-After); a render still waiting or running when its time is up answers 503
/// then (the render, if it started, finishes on its thread and its result is dropped).
final class RenderPool: @unchecked Sendable {
    let jobs: Int
    let queueLimit: Int
    private let lock = NSCondition()
    private var work: [() -> Void] = []
    private var head = 0
    private var running = 0
    private var stopped = false

    init(jobs: Int, queue: Int) {
        self.jobs = max(1, jobs)
        self.queueLimit = max(0, queue)
        for n in 0..<self.jobs {
            let t = Thread { self.loop() }   // held until stop()
            t.name = "maprender-render-\(n)"
            t.stackSize = 8 << 20
            t.start()
        }
    }

    /// Renders waiting for a thread.
    var waiting: Int { lock.lock(); defer { lock.unlock() }; return work.count - head }
    /// Renders on a thread.
    var busy: Int { lock.lock(); defer { lock.unlock() }; return running }

    private func loop() {
        while true {
            lock.lock()
            while head == work.count && !stopped { lock.wait() }
            if head == work.count && stopped { lock.unlock(); return }
            let item = work[head]
            // The slot lets go of the render's closure (its request, inline data and style) now,
            // not when up to 1024 finished slots are dropped at once below.
            work[head] = Self.done
            head += 1
            if head > 1024 && head * 2 > work.count { work.removeFirst(head); head = 0 }
            running += 1
            lock.unlock()
            item()
            lock.lock(); running -= 1; lock.unlock()
        }
    }

    private static let done: () -> Void = {}

    enum Failure: Error { case full, timedOut }

    /// `body` on a pool thread, or `Failure.full` at once, or `Failure.timedOut` after `timeout` s.
    func run<T: Sendable>(timeout: Double, _ body: @escaping @Sendable () throws -> T) async throws -> T {
        let start = DispatchTime.now()
        let deadline = start + .nanoseconds(Int(timeout * 1e9))
        return try await withCheckedThrowingContinuation { (c: CheckedContinuation<T, Error>) in
            let once = Once<T>(c)
            lock.lock()
            guard work.count - head < queueLimit || running + (work.count - head) < jobs else {
                lock.unlock()
                once.resume(.failure(Failure.full))
                return
            }
            work.append {
                // Waited past its time: not started.
                guard DispatchTime.now() < deadline, !once.done else { once.resume(.failure(Failure.timedOut)); return }
                once.resume(Result { try body() })
            }
            lock.signal()
            lock.unlock()
            DispatchQueue.global().asyncAfter(deadline: deadline) { once.resume(.failure(Failure.timedOut)) }
        }
    }

    func stop() {
        lock.lock(); stopped = true; lock.broadcast(); lock.unlock()
    }

    /// Resumes a continuation once, whichever comes first: the result or the deadline.
    private final class Once<T>: @unchecked Sendable {
        private let lock = NSLock()
        private var c: CheckedContinuation<T, Error>?
        init(_ c: CheckedContinuation<T, Error>) { self.c = c }
        var done: Bool { lock.lock(); defer { lock.unlock() }; return c == nil }
        func resume(_ r: Result<T, Error>) {
            lock.lock(); let c = self.c; self.c = nil; lock.unlock()
            c?.resume(with: r)
        }
    }
}
