// maprender-bench: generates benchmark data and times the real `maprender` binary on it.
//
// Run through scripts/bench (release build). Prints, per input size, the wall time of the whole
// process, its peak memory (from wait4's rusage), the per-stage times from `--summary`, and ratios.
import Foundation

/// SplitMix64: a small, fixed-seed generator so every run benchmarks the same data.
struct SplitMix64 {
    var state: UInt64
    mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }
    mutating func uniform() -> Double { Double(next() >> 11) / Double(1 << 53) }
    mutating func gaussian() -> Double {
        let u = max(uniform(), 1e-12), v = uniform()
        return sqrt(-2 * log(u)) * cos(2 * .pi * v)
    }
}

/// Realistic clumps: points around real cities (Zipf-weighted), some scattered, 1% exact duplicates.
let cities: [(Double, Double)] = [
    (35.68, 139.69), (28.61, 77.21), (31.23, 121.47), (-23.55, -46.63), (19.43, -99.13), (30.04, 31.24),
    (19.08, 72.88), (39.90, 116.41), (23.81, 90.41), (34.69, 135.50), (40.71, -74.01), (24.86, 67.01),
    (-34.60, -58.38), (41.01, 28.98), (22.57, 88.36), (14.60, 120.98), (6.52, 3.38), (-22.91, -43.17),
    (55.76, 37.62), (51.51, -0.13), (48.86, 2.35), (34.05, -118.24), (41.88, -87.63), (-6.21, 106.85),
    (13.76, 100.50), (37.57, 126.98), (-33.87, 151.21), (52.52, 13.40), (40.42, -3.70), (43.65, -79.38),
    (1.35, 103.82), (-1.29, 36.82), (-26.20, 28.05), (59.33, 18.07), (50.45, 30.52), (25.20, 55.27),
    (45.50, -73.57), (-12.05, -77.04), (4.71, -74.07), (64.15, -21.94),
]

func generate(count n: Int, to path: String) throws {
    var rng = SplitMix64(state: 20261122)
    var out = "id,name,lat,lon,value\n"
    out.reserveCapacity(min(n, 1 << 20) * 48)
    guard let fh = FileHandle(forWritingAtPath: path) ?? {
        _ = FileManager.default.createFile(atPath: path, contents: nil)
        return FileHandle(forWritingAtPath: path)
    }() else { throw CocoaError(.fileWriteUnknown) }
    try fh.truncate(atOffset: 0)
    var lastLat = 0.0, lastLon = 0.0
    for i in 0..<n {
        var lat: Double, lon: Double
        let r = rng.uniform()
        if i > 0 && r < 0.01 {
            (lat, lon) = (lastLat, lastLon)               // exact duplicate of the previous point
        } else if r < 0.04 {
            lat = rng.uniform() * 120 - 55; lon = rng.uniform() * 360 - 180   // scattered
        } else {
            // Zipf-like choice of city, then a Gaussian clump of varying spread.
            let k = min(Int(pow(rng.uniform(), 2.2) * Double(cities.count)), cities.count - 1)
            let spread = 0.05 + rng.uniform() * 0.6
            lat = min(max(cities[k].0 + rng.gaussian() * spread, -85), 85)
            lon = cities[k].1 + rng.gaussian() * spread * 1.3
            if lon > 180 { lon -= 360 } else if lon < -180 { lon += 360 }
        }
        lastLat = lat; lastLon = lon
        out += "\(i + 1),p\(i + 1),\(String(format: "%.5f", lat)),\(String(format: "%.5f", lon)),\(Int(rng.uniform() * 1000))\n"
        if out.utf8.count > 1 << 22 { fh.write(Data(out.utf8)); out.removeAll(keepingCapacity: true) }
    }
    fh.write(Data(out.utf8))
    try fh.close()
}

struct Measured { var wall: Double; var peakMB: Double; var stages: [String: Double]; var status: Int32 }

/// Runs the binary, waits with wait4 to get its peak memory, and reads its --summary.
func measure(_ binary: String, _ args: [String]) throws -> Measured {
    let summary = NSTemporaryDirectory() + "bench-summary-\(getpid()).json"
    let argv = [binary] + args + ["--summary", summary, "--quiet"]
    var pid: pid_t = 0
    let cargs = argv.map { strdup($0) } + [nil]
    defer { cargs.forEach { free($0) } }
    let start = DispatchTime.now().uptimeNanoseconds
    guard posix_spawn(&pid, binary, nil, nil, cargs, environ) == 0 else { throw CocoaError(.executableLoad) }
    var status: Int32 = 0
    var usage = rusage()
    wait4(pid, &status, 0, &usage)
    let wall = Double(DispatchTime.now().uptimeNanoseconds - start) / 1e9
    var stages: [String: Double] = [:]
    if let d = FileManager.default.contents(atPath: summary),
       let j = try? JSONSerialization.jsonObject(with: d) as? [String: Any],
       let t = j["timings"] as? [String: Double] { stages = t }
    try? FileManager.default.removeItem(atPath: summary)
    return Measured(wall: wall, peakMB: Double(usage.ru_maxrss) / 1024, stages: stages, status: (status >> 8) & 0xff)
}

func fmt(_ s: Double) -> String { String(format: "%7.3f s", s) }

let args = CommandLine.arguments
guard args.count >= 3 else {
    print("usage: maprender-bench MAPRENDER_BINARY WORKDIR [N ...]")
    exit(2)
}
let binary = args[1], work = args[2]
let sizes = args.count > 3 ? args[3...].compactMap { Int($0) } : [1_000, 100_000, 1_000_000]
try FileManager.default.createDirectory(atPath: work, withIntermediateDirectories: true)

print("maprender benchmark: \(binary)")
print("targets: parse 1M CSV rows <= 0.3 s; 1M unclustered markers to 1024x768 PNG end to end <= 1.5 s; peak <= 200 MB (#2)")
print("         1M points: clustering stage <= 0.5 s; CSV to clustered PNG end to end <= 1.0 s; peak <= 200 MB (#3)")
print("         labels: 1M clustered <= 2 s; 100k unclustered <= 1.5 s (#4)")
print("")
func pad(_ s: String, _ n: Int) -> String { s.count >= n ? s : s + String(repeating: " ", count: n - s.count) }
print(pad("points", 10) + pad("run", 26) + pad("wall", 11) + pad("peak", 9) + "stages (ms)")
var perPoint: [(Int, Double)] = []
for n in sizes {
    let csv = "\(work)/points-\(n).csv"
    if !FileManager.default.fileExists(atPath: csv) { try generate(count: n, to: csv) }
    let runs: [(String, [String])] = [
        ("PNG pins, unclustered", [csv, "--no-cluster", "-o", "\(work)/out-\(n).png"]),
        ("PNG circles, unclustered", [csv, "--no-cluster", "--marker", "circle", "-o", "\(work)/out-circle-\(n).png"]),
        ("PNG clustered", [csv, "-o", "\(work)/out-clustered-\(n).png"]),
        ("PNG clustered, labels", [csv, "--label", "name", "-o", "\(work)/out-clustered-labels-\(n).png"]),
        ("PNG unclustered, labels", [csv, "--no-cluster", "--label", "name", "-o", "\(work)/out-labels-\(n).png"]),
        ("SVG circles, unclustered", [csv, "--no-cluster", "--marker", "circle", "-o", "\(work)/out-\(n).svg"]),
    ]
    for (name, a) in runs {
        if name.hasPrefix("SVG") && n > 100_000 { continue }  // a million-element SVG is not a use case
        if name == "PNG unclustered, labels" && n > 100_000 { continue }  // the issue's target is 100k
        let m = try measure(binary, a)
        let stages = ["read", "project", "fit", "cluster", "layout", "render", "write"].compactMap { k in
            m.stages[k].map { "\(k) \(String(format: "%.0f", $0))" }
        }.joined(separator: ", ")
        print(pad("\(n)", 10) + pad(name, 26) + pad(fmt(m.wall), 11) + pad(String(format: "%.0f MB", m.peakMB), 9)
              + stages + (m.status == 0 ? "" : "  EXIT \(m.status)"))
        if name == "PNG pins, unclustered" { perPoint.append((n, m.wall)) }
    }
}
if perPoint.count >= 2, let first = perPoint.first, let last = perPoint.last, last.0 > first.0 {
    let us = (last.1 - first.1) / Double(last.0 - first.0) * 1e6
    print("")
    print(String(format: "marginal cost per point (pins, PNG): %.2f µs; ratio %d→%d points: %.1fx time for %.0fx points",
                 us, first.0, last.0, last.1 / first.1, Double(last.0) / Double(first.0)))
}
