import Foundation

/// A fixed set of threads of its own for the tile stage's blocking work (file reads, decoding,
/// HTTP requests it waits for). Not GCD's pool: a GCD worker blocked on a request holds a thread
/// that URLSession itself needs to finish requests, and on a 2-core machine libdispatch adds
/// threads slowly enough to stall the first requests of a run for seconds.
final class TileWorkers: @unchecked Sendable {
    private let count: Int
    private var jobs: [() -> Void] = []
    private var head = 0
    private var started = 0
    private var idle = 0
    private let cond = NSCondition()

    init(count: Int) { self.count = max(1, count) }

    /// Runs `job` on one of the threads, starting another thread when none is idle (up to `count`).
    /// Threads idle for 2 s end, so a service left alone holds no threads.
    func submit(_ job: @escaping () -> Void) {
        cond.lock()
        jobs.append(job)
        if idle == 0 && started < count {
            started += 1
            let t = Thread { self.loop() }
            t.name = "maprender.tiles"
            t.stackSize = 1 << 20
            t.start()
        }
        cond.signal()
        cond.unlock()
    }

    private func loop() {
        while true {
            cond.lock()
            while head == jobs.count {
                // A thread idle for 2 s ends; `submit` starts another when there is work again.
                idle += 1
                let woke = cond.wait(until: Date(timeIntervalSinceNow: 2))
                idle -= 1
                if !woke && head == jobs.count {
                    started -= 1
                    cond.unlock()
                    return
                }
            }
            let job = jobs[head]
            head += 1
            if head > 1024 && head * 2 > jobs.count { jobs.removeFirst(head); head = 0 }
            cond.unlock()
            job()
        }
    }
}
