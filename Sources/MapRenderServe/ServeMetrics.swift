import Foundation
import Prometheus

/// What `/metrics` shows, in Prometheus text: requests by endpoint and status, their latency,
/// requests in flight, renders waiting, cache hits and misses, and the time of each render stage.
final class ServeMetrics: @unchecked Sendable {
    let registry = PrometheusCollectorRegistry()
    private let lock = NSLock()
    private var counters: [String: Counter] = [:]
    private var latencies: [String: DurationHistogram] = [:]
    private var stages: [String: DurationHistogram] = [:]
    let inFlight: Gauge
    let queueLength: Gauge
    let rendering: Gauge
    let cacheHits: Counter
    let cacheMisses: Counter
    let cacheBytes: Gauge
    let cacheEntries: Gauge

    static let latencyBuckets: [Duration] = [.milliseconds(1), .milliseconds(2), .milliseconds(5), .milliseconds(10),
                                             .milliseconds(20), .milliseconds(50), .milliseconds(100), .milliseconds(200),
                                             .milliseconds(500), .seconds(1), .seconds(2), .seconds(5), .seconds(10)]

    /// The swift-prometheus descriptor of a full metric name (`maprender_cache_hits_total`).
    static func named(_ full: String, _ help: String) -> MetricNameDescriptor {
        let cut = full.lastIndex(of: "_")!
        return MetricNameDescriptor(metricName: String(full[..<cut]), unitName: String(full[full.index(after: cut)...]), helpText: help)
    }

    init() {
        inFlight = registry.makeGauge(descriptor: Self.named("maprender_http_requests_in_flight", "Requests being answered."))
        queueLength = registry.makeGauge(descriptor: Self.named("maprender_render_queue_length", "Renders waiting for a render thread."))
        rendering = registry.makeGauge(descriptor: Self.named("maprender_renders_running", "Renders on a render thread."))
        cacheHits = registry.makeCounter(descriptor: Self.named("maprender_cache_hits_total", "Maps answered from the in-memory image cache."))
        cacheMisses = registry.makeCounter(descriptor: Self.named("maprender_cache_misses_total", "Maps not in the image cache (rendered)."))
        cacheBytes = registry.makeGauge(descriptor: Self.named("maprender_cache_bytes", "Bytes held by the image cache."))
        cacheEntries = registry.makeGauge(descriptor: Self.named("maprender_cache_entries", "Images held by the image cache."))
    }

    /// One answered request.
    func request(endpoint: String, status: Int, seconds: Double) {
        let key = "\(endpoint) \(status)"
        lock.lock()
        let c = counters[key] ?? registry.makeCounter(descriptor: Self.named("maprender_http_requests_total", "Requests answered, by endpoint and status."),
                                                      labels: [("endpoint", endpoint), ("status", String(status))])
        counters[key] = c
        let h = latencies[endpoint] ?? registry.makeDurationHistogram(
            descriptor: Self.named("maprender_http_request_duration_seconds", "Time from the request's head to its answer."),
            labels: [("endpoint", endpoint)], buckets: Self.latencyBuckets)
        latencies[endpoint] = h
        lock.unlock()
        c.increment()
        h.recordNanoseconds(Int64(seconds * 1e9))
    }

    /// A render's stage timings (`RenderSummary.timings`, milliseconds by stage).
    func stages(_ timings: [String: Double]) {
        for (stage, ms) in timings {
            lock.lock()
            let h = stages[stage] ?? registry.makeDurationHistogram(
                descriptor: Self.named("maprender_render_stage_duration_seconds", "Time of each stage of a render (read, plan, tiles, layout, render)."),
                labels: [("stage", stage)], buckets: Self.latencyBuckets)
            stages[stage] = h
            lock.unlock()
            h.recordNanoseconds(Int64(ms * 1e6))
        }
    }

    func text() -> String { registry.emitToString() }
}
