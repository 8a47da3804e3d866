// maprender-bench: generates benchmark data and times the real `maprender` binary on it, side by
// side with the peers a user would pick instead (Mapnik, pysupercluster) when they are installed.
//
// Run through scripts/bench (release build). Every figure is the wall time (or peak memory, from
// wait4's rusage) of a whole process; maprender and its peer run one after the other in the same
// run on the same file, so their ratio is the figure that means something on a shared machine
// (absolute seconds drift by ±30% with the load). Sections:
//   1. peers: per distribution, 1M points at 1024x768, maprender against Mapnik and pysupercluster;
//   2. scaling: 250k, 500k, 1M, 2M points, time per stage and command (9 commands), ratio per doubling;
//   3. `maprender cluster` on GeoNames cities (34k, and 170k made by jittering them);
//   4. GeoJSON input against CSV input of the same points;
//   5b. (shapes) a choropleth against Mapnik, a 1M-vertex line, 1M points over polygons;
//   5c. (routes) 10k great-circle arcs at 1024x768, width by count, against Mapnik drawing the same vertices;
//       1M rows joined into 1,000 lines with --line-by (the lines only);
//   5d. (icons) 100k icon markers (an SVG and a PNG icon) against 100k pins, unclustered, 1024x768;
//   6. tiles: the tile stage of a 1024x768 city map from a local MBTiles and PMTiles file, from the
//      warm HTTP cache, cold from a loopback server 20 ms away, and 200 batch maps of one region;
//   5. (--big) 10M points;
//   8. vector: a 1024x768 map from a local PMTiles file with styles/basemap-light.json (Europe z4,
//      world z1), cold process against MapLibre Native (pymgl) on the same tiles, the basemap stage
//      from --summary, and 100 maps in one batch against pymgl's warm time per map;
//   7. (--sections instructions) instructions per doubling from 1M to 2M points under callgrind,
//      which do not move with the machine's load (about 15 minutes per distribution).
import Foundation
import MapRender

// MARK: - Data

/// The core's `SplitMix64` (a small, fixed-seed generator) so every run benchmarks the same data.
extension SplitMix64 {
    mutating func gaussian() -> Double {
        let u = max(uniform(), 1e-12), v = uniform()
        return sqrt(-2 * log(u)) * cos(2 * .pi * v)
    }
}

/// Writes CSV text in 4 MiB pieces.
struct CSVFile {
    let handle: FileHandle
    var text = ""
    init(_ path: String, header: String) throws {
        _ = FileManager.default.createFile(atPath: path, contents: nil)
        guard let h = FileHandle(forWritingAtPath: path) else { throw CocoaError(.fileWriteUnknown) }
        handle = h
        text.reserveCapacity(1 << 23)
        text += header + "\n"
    }
    /// The first write error, thrown by `close` (a full disk must not trap).
    var failure: Error?
    mutating func add(_ line: String) {
        text += line
        text += "\n"
        if text.utf8.count > 1 << 22 { flush() }
    }
    private mutating func flush() {
        do { try handle.write(contentsOf: Data(text.utf8)) } catch { failure = failure ?? error }
        text.removeAll(keepingCapacity: true)
    }
    mutating func close() throws {
        flush()
        try handle.close()
        if let failure { throw failure }
    }
}

func f5(_ d: Double) -> String { String(format: "%.5f", d) }

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

/// scripts/bench's own distribution (`id,name,lat,lon,value`).
func generateClumps(count n: Int, to path: String) throws {
    var rng = SplitMix64(state: 20261122)
    var out = try CSVFile(path, header: "id,name,lat,lon,value")
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
        out.add("\(i + 1),p\(i + 1),\(f5(lat)),\(f5(lon)),\(Int(rng.uniform() * 1000))")
    }
    try out.close()
}

/// Land polygons (outer and inner rings as flat lon/lat arrays) with a 1°x1° grid of candidates.
struct Land {
    var rings: [[[Double]]] = []          // polygon -> rings -> [lon0, lat0, lon1, lat1, ...]
    var boxes: [(Double, Double, Double, Double)] = []
    var grid = [[Int]](repeating: [], count: 360 * 180)

    /// Natural Earth countries without Antarctica (its Mercator extent is not a useful benchmark).
    init(geojson path: String) throws {
        let data = try Data(contentsOf: URL(fileURLWithPath: path))
        guard let root = try JSONSerialization.jsonObject(with: data) as? [String: Any],
              let features = root["features"] as? [[String: Any]] else { throw CocoaError(.fileReadCorruptFile) }
        for f in features {
            let props = f["properties"] as? [String: Any] ?? [:]
            if (props["ISO_A3"] as? String) == "ATA" || (props["NAME"] as? String) == "Antarctica" { continue }
            guard let g = f["geometry"] as? [String: Any], let type = g["type"] as? String else { continue }
            var polys: [[[[Double]]]] = []
            if type == "Polygon", let c = g["coordinates"] as? [[[Double]]] { polys = [c] }
            if type == "MultiPolygon", let c = g["coordinates"] as? [[[[Double]]]] { polys = c }
            for p in polys {
                let flat = p.map { ring in ring.flatMap { [$0[0], $0[1]] } }
                var w = 180.0, s = 90.0, e = -180.0, n = -90.0
                for k in stride(from: 0, to: flat[0].count, by: 2) {
                    w = min(w, flat[0][k]); e = max(e, flat[0][k]); s = min(s, flat[0][k + 1]); n = max(n, flat[0][k + 1])
                }
                let id = rings.count
                rings.append(flat)
                boxes.append((w, s, e, n))
                for gy in max(0, Int(floor(s + 90)))...min(179, Int(floor(n + 90))) {
                    for gx in max(0, Int(floor(w + 180)))...min(359, Int(floor(e + 180))) { grid[gy * 360 + gx].append(id) }
                }
            }
        }
    }

    func contains(lon: Double, lat: Double) -> Bool {
        let gx = min(359, Int(lon + 180)), gy = min(179, Int(lat + 90))
        for id in grid[gy * 360 + gx] {
            let b = boxes[id]
            guard lon >= b.0, lon <= b.2, lat >= b.1, lat <= b.3 else { continue }
            var inside = false
            for r in rings[id] {              // even-odd over all rings: holes cut out
                var j = r.count - 2
                for i in stride(from: 0, to: r.count, by: 2) {
                    let xi = r[i], yi = r[i + 1], xj = r[j], yj = r[j + 1]
                    if (yi > lat) != (yj > lat) && lon < (xj - xi) * (lat - yi) / (yj - yi) + xi { inside.toggle() }
                    j = i
                }
            }
            if inside { return true }
        }
        return false
    }
}

/// Points uniform over land by area: uniform longitude and sin(latitude), kept when inside a
/// country polygon.
func generateLand(count n: Int, countries: String, to path: String) throws {
    let land = try Land(geojson: countries)
    var rng = SplitMix64(state: 777)
    var out = try CSVFile(path, header: "id,name,lat,lon,value")
    var i = 0
    while i < n {
        let lon = rng.uniform() * 360 - 180
        let lat = asin(rng.uniform() * 2 - 1) * 180 / .pi
        guard lat > -60, land.contains(lon: lon, lat: lat) else { continue }
        i += 1
        out.add("\(i),l\(i),\(f5(lat)),\(f5(lon)),\(Int(rng.uniform() * 1000))")
    }
    try out.close()
}

/// The first `n` rows of a CSV file (after its header).
func headRows(_ n: Int, of source: String, to path: String) throws {
    let data = try Data(contentsOf: URL(fileURLWithPath: source))
    var lines = 0, end = data.count
    data.withUnsafeBytes { (raw: UnsafeRawBufferPointer) in
        for i in 0..<raw.count where raw[i] == 10 {
            lines += 1
            if lines == n + 1 { end = i + 1; break }
        }
    }
    try data.prefix(end).write(to: URL(fileURLWithPath: path))
}

/// GeoNames cities `id,name,country,lat,lon,population` copied `copies` times, every copy but the
/// first moved by up to ±0.5° (most then stay apart at zoom 8, as distinct places do; names and other
/// columns kept): a city file of `copies` × the size.
func jitterCities(_ source: String, copies: Int, to path: String) throws {
    let text = try String(contentsOfFile: source, encoding: .utf8)
    var lines = text.split(separator: "\n", omittingEmptySubsequences: true)
    let header = String(lines.removeFirst())
    let cols = header.split(separator: ",").map(String.init)
    guard let iLat = cols.firstIndex(of: "lat"), let iLon = cols.firstIndex(of: "lon"), let iId = cols.firstIndex(of: "id")
    else { throw CocoaError(.fileReadCorruptFile) }
    var rng = SplitMix64(state: 170_000)
    var out = try CSVFile(path, header: header)
    for copy in 0..<copies {
        for line in lines {
            var f = splitCSV(String(line))
            guard f.count == cols.count, let lat = Double(f[iLat]), let lon = Double(f[iLon]) else { continue }
            if copy > 0 {
                f[iId] = "\(f[iId])-\(copy)"
                f[iLat] = f5(min(max(lat + (rng.uniform() - 0.5) * 1.0, -85), 85))
                var x = lon + (rng.uniform() - 0.5) * 1.0
                if x > 180 { x -= 360 } else if x < -180 { x += 360 }
                f[iLon] = f5(x)
            }
            out.add(f.map { $0.contains(",") || $0.contains("\"") ? "\"" + $0.replacingOccurrences(of: "\"", with: "\"\"") + "\"" : $0 }
                      .joined(separator: ","))
        }
    }
    try out.close()
}

func splitCSV(_ line: String) -> [String] {
    var fields: [String] = [], cur = "", quoted = false
    var it = line.makeIterator()
    while let c = it.next() {
        if quoted {
            if c == "\"" { quoted = false } else { cur.append(c) }
        } else if c == "\"" {
            quoted = true
        } else if c == "," {
            fields.append(cur); cur = ""
        } else {
            cur.append(c)
        }
    }
    fields.append(cur)
    return fields
}

/// The CSV's points as a GeoJSON FeatureCollection (properties id, name, value).
func csvToGeoJSON(_ source: String, to path: String) throws {
    let text = try String(contentsOfFile: source, encoding: .utf8)
    var lines = text.split(separator: "\n")
    lines.removeFirst()
    _ = FileManager.default.createFile(atPath: path, contents: nil)
    guard let h = FileHandle(forWritingAtPath: path) else { throw CocoaError(.fileWriteUnknown) }
    var out = "{\"type\":\"FeatureCollection\",\"features\":[\n"
    for (k, line) in lines.enumerated() {
        let f = line.split(separator: ",", omittingEmptySubsequences: false)
        out += (k > 0 ? ",\n" : "") + "{\"type\":\"Feature\",\"geometry\":{\"type\":\"Point\",\"coordinates\":[\(f[3]),\(f[2])]},"
            + "\"properties\":{\"id\":\(f[0]),\"name\":\"\(f[1])\",\"value\":\(f[4])}}"
        if out.utf8.count > 1 << 22 { try h.write(contentsOf: Data(out.utf8)); out.removeAll(keepingCapacity: true) }
    }
    out += "\n]}\n"
    try h.write(contentsOf: Data(out.utf8))
    try h.close()
}

// MARK: - Running

struct Measured {
    var wall: Double, peakMB: Double, status: Int32
    /// User + system CPU seconds (less sensitive than wall time to other processes on the machine).
    var cpu = 0.0
    var stages: [String: Double] = [:]
    var zoom: Double?
    /// `--summary` `tiles`: requested, fromCache, fetched, missing, failed.
    var tiles: [String: Int] = [:]
    var stdout = "", stderr = ""
    var ok: Bool { status == 0 }
}

var workDir = ""

/// Runs a process (stdout and stderr to files), waits with wait4 for its peak memory.
func run(_ argv: [String], summary: String? = nil) -> Measured {
    // Named after this process, so that two benchmarks may share a work folder.
    let out = "\(workDir)/run-\(getpid())-stdout.txt", err = "\(workDir)/run-\(getpid())-stderr.txt"
    var actions: posix_spawn_file_actions_t = posix_spawn_file_actions_t()
    posix_spawn_file_actions_init(&actions)
    defer { posix_spawn_file_actions_destroy(&actions) }
    posix_spawn_file_actions_addopen(&actions, 1, out, O_WRONLY | O_CREAT | O_TRUNC, 0o644)
    posix_spawn_file_actions_addopen(&actions, 2, err, O_WRONLY | O_CREAT | O_TRUNC, 0o644)
    var pid: pid_t = 0
    let cargs = argv.map { strdup($0) } + [nil]
    defer { cargs.forEach { free($0) } }
    let start = DispatchTime.now().uptimeNanoseconds
    guard posix_spawnp(&pid, argv[0], &actions, nil, cargs, environ) == 0 else {
        return Measured(wall: 0, peakMB: 0, status: 127)
    }
    var status: Int32 = 0
    var usage = rusage()
    wait4(pid, &status, 0, &usage)
    let wall = Double(DispatchTime.now().uptimeNanoseconds - start) / 1e9
    var m = Measured(wall: wall, peakMB: Double(usage.ru_maxrss) / 1024,
                     status: (status & 0x7f) == 0 ? (status >> 8) & 0xff : 128 + (status & 0x7f))
    m.cpu = Double(usage.ru_utime.tv_sec) + Double(usage.ru_utime.tv_usec) / 1e6
        + Double(usage.ru_stime.tv_sec) + Double(usage.ru_stime.tv_usec) / 1e6
    m.stdout = (try? String(contentsOfFile: out, encoding: .utf8)) ?? ""
    m.stderr = (try? String(contentsOfFile: err, encoding: .utf8)) ?? ""
    if let s = summary, let d = FileManager.default.contents(atPath: s),
       let j = try? JSONSerialization.jsonObject(with: d) as? [String: Any] {
        m.stages = j["timings"] as? [String: Double] ?? [:]
        m.zoom = (j["view"] as? [String: Any])?["zoom"] as? Double
        m.tiles = j["tiles"] as? [String: Int] ?? [:]
    }
    if let s = summary { try? FileManager.default.removeItem(atPath: s) }
    return m
}

var binary = ""
/// maprender with `--summary` (for the commands that have one).
func maprender(_ args: [String], summary: Bool = true) -> Measured {
    let path = "\(workDir)/summary-\(getpid()).json"
    return run([binary] + args + (summary ? ["--summary", path] : []), summary: summary ? path : nil)
}

/// Whether `file` exists and its first line is `source`'s first line (a generated copy is whole).
func startsWithHeader(_ file: String, of source: String) -> Bool {
    func firstLine(_ path: String) -> Data? {
        guard let h = FileHandle(forReadingAtPath: path) else { return nil }
        defer { try? h.close() }
        let head = h.readData(ofLength: 4096)
        return head.firstIndex(of: UInt8(ascii: "\n")).map { head[..<$0] }
    }
    guard let a = firstLine(file), let b = firstLine(source) else { return false }
    return a == b
}

/// The median run (by wall time) of `repeats`.
func median(_ runs: [Measured]) -> Measured {
    runs.sorted { $0.wall < $1.wall }[runs.count / 2]
}

/// The median of some figures (the upper one of an even count), nil for none.
func median(_ values: [Double]) -> Double? {
    values.isEmpty ? nil : values.sorted()[values.count / 2]
}

/// One JSON object from a peer's output (the last line that parses).
func peerJSON(_ text: String) -> [String: Any] {
    for line in text.split(separator: "\n").reversed() {
        if let j = try? JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any] { return j }
    }
    return [:]
}

// MARK: - Printing

func pad(_ s: String, _ n: Int) -> String { s.count >= n ? s : s + String(repeating: " ", count: n - s.count) }
func lpad(_ s: String, _ n: Int) -> String { s.count >= n ? s : String(repeating: " ", count: n - s.count) + s }
func secs(_ s: Double) -> String { String(format: "%.3f s", s) }
func mb(_ m: Double) -> String { String(format: "%.0f MB", m) }
func ratio(_ r: Double) -> String { String(format: "%.3f", r) }
func verdict(_ value: Double, _ target: Double) -> String { value <= target ? "ok" : "MISSED" }

// MARK: - Main

var args = Array(CommandLine.arguments.dropFirst())
func option(_ name: String) -> String? {
    guard let i = args.firstIndex(of: name), i + 1 < args.count else { return nil }
    let v = args[i + 1]
    args.removeSubrange(i...(i + 1))
    return v
}
func flag(_ name: String) -> Bool {
    guard let i = args.firstIndex(of: name) else { return false }
    args.remove(at: i)
    return true
}
let usage = """
usage: maprender-bench MAPRENDER_BINARY WORKDIR [--shared DIR] [--samples DIR] [--peer-python PY]
         [--mapnik-python PY] [--repeat N] [--n N] [--sections peers,scaling,cluster,geojson,tiles,shapes,routes,icons,vector,instructions] [--big]
         [--tile-fixtures DIR] [--mapnik-oracle FILE] [--pymgl-oracle FILE]
         [--scaling-distributions clumps,gen_points,land]
"""
let shared = option("--shared")
let samples = option("--samples") ?? "samples"
let peerPython = option("--peer-python") ?? "python3"
let mapnikPython = option("--mapnik-python") ?? "/usr/bin/python3"
let repeats = max(1, Int(option("--repeat") ?? "1") ?? 1)
let mainN = Int(option("--n") ?? "") ?? 1_000_000
let sections = Set((option("--sections") ?? "peers,scaling,cluster,geojson,tiles,shapes,routes,icons,vector").split(separator: ",").map(String.init))
let mapnikOracle = option("--mapnik-oracle") ?? "Tests/MapRenderTests/Layers/mapnik_oracle.py"
let tileFixtures = option("--tile-fixtures") ?? "Tests/MapRenderTilesTests/Fixtures"
let pymglOracle = option("--pymgl-oracle") ?? "Tests/MapRenderTests/BasemapStyle/pymgl_oracle.py"
let big = flag("--big")
let scalingOnly = option("--scaling-distributions").map { Set($0.split(separator: ",").map(String.init)) }
guard args.count == 2 else { print(usage); exit(2) }
binary = args[0]
workDir = args[1]
try FileManager.default.createDirectory(atPath: workDir, withIntermediateDirectories: true)
setvbuf(stdout, nil, _IOLBF, 0)

let countriesFile = "\(samples)/ne_110m_admin_0_countries.geojson"
let citiesFile = "\(samples)/world_cities.csv"

struct Distribution { let name: String; let about: String; let make: (Int, String) throws -> Void }
var distributions: [Distribution] = [
    Distribution(name: "clumps", about: "scripts/bench's own: 40 cities, Zipf weights, 4% scattered, 1% duplicates",
                 make: { try generateClumps(count: $0, to: $1) }),
]
let genPoints = shared.map { "\($0)/gen_points.py" }
if let g = genPoints, FileManager.default.fileExists(atPath: g) {
    distributions.append(Distribution(name: "gen_points", about: "gen_points.py --seed 42: blobs with tight downtowns, 2% duplicates",
                                      make: { n, path in
        let m = run(["python3", g, "-n", "\(n)", "--seed", "42", "--csv", path])
        if !m.ok { throw CocoaError(.executableLoad) }
    }))
}
distributions.append(Distribution(name: "land", about: "uniform by area over Natural Earth's countries (no Antarctica)",
                                  make: { try generateLand(count: $0, countries: countriesFile, to: $1) }))

/// The CSV of a distribution and size, generated once (not timed).
func dataFile(_ d: Distribution, _ n: Int) throws -> String {
    let path = "\(workDir)/\(d.name)-\(n).csv"
    if !FileManager.default.fileExists(atPath: path) {
        try d.make(n, path + ".tmp")
        try FileManager.default.moveItem(atPath: path + ".tmp", toPath: path)
    }
    return path
}

let cores = ProcessInfo.processInfo.activeProcessorCount
let cpu = (try? String(contentsOfFile: "/proc/cpuinfo", encoding: .utf8))?.split(separator: "\n")
    .first { $0.hasPrefix("model name") }.map { String($0.split(separator: ":")[1]).trimmingCharacters(in: .whitespaces) } ?? "?"
let load = (try? String(contentsOfFile: "/proc/loadavg", encoding: .utf8))?.split(separator: " ").prefix(3).joined(separator: " ") ?? "?"
let date = ISO8601DateFormatter().string(from: Date())
print("maprender benchmark, \(date), \(cores) cores (\(cpu)), load average \(load)")
print("binary: \(binary); median of \(repeats) run(s) per figure; wall time and peak RSS of whole processes")
print("data and outputs in \(workDir)")
print("Ratios compare runs made one after the other in this run; absolute seconds drift with the machine's load.")

// Peers available?
let haveCluster = run([peerPython, "-c", "import pysupercluster, numpy"]).ok
let haveMapnik = run([mapnikPython, "-c", "import mapnik"]).ok
let peerCluster = shared.map { "\($0)/peer_cluster.py" }.flatMap { FileManager.default.fileExists(atPath: $0) ? $0 : nil }
let peerMapnik = shared.map { "\($0)/peer_mapnik.py" }.flatMap { FileManager.default.fileExists(atPath: $0) ? $0 : nil }
let useCluster = haveCluster && peerCluster != nil
let useMapnik = haveMapnik && peerMapnik != nil
if shared == nil { print("note: no ../shared/bench: no peers, no gen_points.py distribution") }
if !useCluster { print("note: pysupercluster peer skipped (\(peerCluster == nil ? "no peer_cluster.py" : "\(peerPython) cannot import pysupercluster"))") }
if !useMapnik { print("note: Mapnik peer skipped (\(peerMapnik == nil ? "no peer_mapnik.py" : "\(mapnikPython) cannot import mapnik"))") }
print("distributions: " + distributions.map { "\($0.name) (\($0.about))" }.joined(separator: "; "))

// MARK: 1. Peers

if sections.contains("peers") {
    print("")
    print("== 1. side by side with the peers: \(mainN) points, 1024x768 ==")
    print(pad("distribution", 13) + pad("workload", 44) + pad("maprender", 20) + pad("peer", 26) + pad("ratio", 8) + pad("target", 16) + "CPU ratio")
    var peak = 0.0
    func row(_ d: String, _ w: String, _ m: Measured, _ peer: String, _ r: Double?, _ target: Double?, cpu: Double? = nil) {
        let mine = m.ok ? "\(secs(m.wall)) \(lpad(mb(m.peakMB), 7))" : "EXIT \(m.status)"
        let rt = r.map(ratio) ?? "-"
        let tg = target.map { "<= \(String(format: "%.2f", $0)) " + (r.map { verdict($0, target!) } ?? "") } ?? ""
        print(pad(d, 13) + pad(w, 44) + pad(mine, 20) + pad(peer, 26) + pad(rt, 8) + pad(tg, 16) + (cpu.map(ratio) ?? ""))
    }
    for d in distributions {
        let csv = try dataFile(d, mainN)
        let csv100k = "\(workDir)/\(d.name)-\(mainN)-first100k.csv"
        if !FileManager.default.fileExists(atPath: csv100k) { try headRows(100_000, of: csv, to: csv100k) }
        var pins: [Measured] = [], mapnik: [Measured] = [], clustered: [Measured] = [], pysc: [Measured] = []
        var labels: [Measured] = [], mapnikLabels: [Measured] = []
        for _ in 0..<repeats {
            pins.append(maprender([csv, "--no-cluster", "-o", "\(workDir)/pins.png", "--quiet"]))
            if useMapnik { mapnik.append(run([mapnikPython, peerMapnik!, csv, "\(workDir)/mapnik.png", "-W", "1024", "-H", "768"])) }
            let c = maprender([csv, "-o", "\(workDir)/clustered.png", "--quiet"])
            clustered.append(c)
            if useCluster {
                let z = Int((c.zoom ?? 2).rounded(.down))
                pysc.append(run([peerPython, peerCluster!, csv, "--zoom", "\(z)", "--single-level"]))
            }
            labels.append(maprender([csv100k, "--no-cluster", "--label", "name", "-o", "\(workDir)/labels.png", "--quiet"]))
            if useMapnik { mapnikLabels.append(run([mapnikPython, peerMapnik!, csv100k, "\(workDir)/mapnik-labels.png", "-W", "1024", "-H", "768", "--labels"])) }
        }
        let p = median(pins), c = median(clustered), l = median(labels)
        peak = max(peak, p.peakMB, c.peakMB, l.peakMB)
        if useMapnik {
            let mk = median(mapnik)
            row(d.name, "pins --no-cluster / Mapnik markers", p, mk.ok ? "Mapnik \(secs(mk.wall))" : "Mapnik EXIT \(mk.status)", mk.ok ? p.wall / mk.wall : nil, 0.10, cpu: mk.ok ? p.cpu / mk.cpu : nil)
        } else {
            row(d.name, "pins --no-cluster", p, "-", nil, nil)
        }
        if useCluster {
            let pc = median(pysc)
            let j = peerJSON(pc.stdout)
            row(d.name, "clustered map / pysupercluster read+1 level", c, pc.ok ? "pysc \(secs(pc.wall))" : "pysc EXIT \(pc.status)", pc.ok ? c.wall / pc.wall : nil, 0.60, cpu: pc.ok ? c.cpu / pc.cpu : nil)
            // Each side's own figure, the median over the runs (not the figure of the run with the
            // median wall time: a stage of a third of a second moves by 15 % from run to run here).
            let stages = clustered.compactMap { $0.stages["cluster"] }.map { $0 / 1000 }
            let indexes = pysc.compactMap { peerJSON($0.stdout)["index_s"] as? Double }
            let stage = median(stages) ?? .nan
            let index = median(indexes)
            // Pair by pair: each round's stage against the peer's run right after it, seconds
            // apart, so that the machine's drift over minutes cancels; the verdict is their median.
            let pairs = stages.count == indexes.count ? zip(stages, indexes).map { $0 / $1 } : []
            let pairRatio = median(pairs)
            print(pad(d.name, 13) + pad("cluster stage (whole hierarchy) / index_s", 44) + pad(secs(stage), 20)
                  + pad(index.map { "index_s \(secs($0)) z\(j["zoom"] ?? "?")" } ?? "-", 26)
                  + pad(pairRatio.map(ratio) ?? "-", 8) + "<= 1.00 " + (pairRatio.map { verdict($0, 1.0) } ?? ""))
            print(pad(d.name, 13) + "  runs (ms): cluster stage " + stages.map { String(Int(($0 * 1000).rounded())) }.joined(separator: ", ")
                  + "; index_s " + indexes.map { String(Int(($0 * 1000).rounded())) }.joined(separator: ", "))
            print(pad(d.name, 13) + "  ratio: median of the rounds' ratios " + (pairRatio.map(ratio) ?? "-")
                  + " (rounds " + pairs.map(ratio).joined(separator: ", ") + "); median over median "
                  + (index.map { ratio(stage / $0) } ?? "-"))
        } else {
            row(d.name, "clustered map", c, "-", nil, nil)
            print(pad(d.name, 13) + pad("cluster stage (whole hierarchy)", 44) + secs((c.stages["cluster"] ?? .nan) / 1000))
        }
        if useMapnik {
            let mk = median(mapnikLabels)
            row(d.name, "100k labelled --no-cluster / Mapnik labels", l, mk.ok ? "Mapnik \(secs(mk.wall))" : "Mapnik EXIT \(mk.status)", mk.ok ? l.wall / mk.wall : nil, 0.05, cpu: mk.ok ? l.cpu / mk.cpu : nil)
        } else {
            row(d.name, "100k labelled --no-cluster", l, "-", nil, nil)
        }
        print(pad(d.name, 13) + "stages (ms): pins " + stageText(p) + "; clustered " + stageText(c))
    }
    // Real GeoNames cities, labelled.
    var labels: [Measured] = [], mapnikLabels: [Measured] = []
    for _ in 0..<repeats {
        labels.append(maprender([citiesFile, "--no-cluster", "--label", "name", "-o", "\(workDir)/cities-labels.png", "--quiet"]))
        if useMapnik { mapnikLabels.append(run([mapnikPython, peerMapnik!, citiesFile, "\(workDir)/mapnik-cities.png", "-W", "1024", "-H", "768", "--labels"])) }
    }
    let l = median(labels)
    peak = max(peak, l.peakMB)
    if useMapnik {
        let mk = median(mapnikLabels)
        // No verdict: the issue's 0.05 target is the 100k-point row's (this one printed MISSED
        // against it, 0.12-0.20: 34k real names place more labels than 100k generated points).
        row("geonames", "34k cities labelled / Mapnik labels", l, mk.ok ? "Mapnik \(secs(mk.wall))" : "Mapnik EXIT \(mk.status)", mk.ok ? l.wall / mk.wall : nil, nil, cpu: mk.ok ? l.cpu / mk.cpu : nil)
    } else {
        row("geonames", "34k cities labelled --no-cluster", l, "-", nil, nil)
    }
    print(pad("all", 13) + pad("peak memory, largest of the runs above", 44) + pad(mb(peak), 20) + pad("", 26) + pad("", 8)
          + "<= 200 MB " + verdict(peak, 200))
}

func stageText(_ m: Measured) -> String {
    ["read", "project", "fit", "cluster", "layout", "render", "write"].compactMap { k in
        m.stages[k].map { "\(k) \(String(format: "%.0f", $0))" }
    }.joined(separator: ", ")
}

// MARK: 2. Scaling

if sections.contains("scaling") {
    let sizes = [250_000, 500_000, 1_000_000, 2_000_000]
    print("")
    print("== 2. scaling: \(sizes.map { "\($0 / 1000)k" }.joined(separator: ", ")) points; ratio per doubling (target <= 2.2) ==")
    for d in distributions where scalingOnly?.contains(d.name) ?? true {
        // name -> size -> seconds
        var table: [(String, [Double])] = []
        func add(_ name: String, _ v: Double) {
            if let i = table.firstIndex(where: { $0.0 == name }) { table[i].1.append(v) } else { table.append((name, [v])) }
        }
        // name -> per doubling, the median of the rounds' own ratios (see below).
        var paired: [String: [Double]] = [:]
        /// Per doubling, the median over rounds of the ratio of that round's two runs (each
        /// round's sizes run seconds apart): drift between rounds cancels, where the ratio of two
        /// sizes' fastest (or median) runs compares runs of different rounds.
        func pairedRatios(_ perSize: [[Double?]]) -> [Double] {
            (1..<perSize.count).map { k in
                let rounds = min(perSize[k].count, perSize[k - 1].count)
                let r = (0..<rounds).compactMap { i -> Double? in
                    guard let a = perSize[k - 1][i], let b = perSize[k][i], a > 0 else { return nil }
                    return b / a
                }
                return median(r) ?? .nan
            }
        }
        // The inputs of every size first (not timed).
        var inputs: [(csv: String, moved: String, manifest: String)] = []
        for n in sizes {
            let csv = try dataFile(d, n)
            // Keyframe B: the same ids, every point moved by a small fixed offset (not timed).
            let moved = "\(workDir)/\(d.name)-\(n)-moved.csv"
            // Made again when missing or damaged (a moved file whose first bytes were zeros made
            // `animate` fail on land, printed as nan): it must start with the data's header line.
            if !startsWithHeader(moved, of: csv) {
                let awk = run(["awk", "-F,", "-v", "OFS=,", "NR == 1 { print; next } { $3 = $3 * 0.98; $4 = $4 * 0.98; print }", csv])
                try awk.stdout.write(toFile: moved, atomically: true, encoding: .utf8)
            }
            // Two filters splitting the points, on a column the data has: gen_points has `category`
            // and no `value` (a filter on a missing column fails the job: the batch printed nan).
            let header = String(decoding: FileHandle(forReadingAtPath: csv)?.readData(ofLength: 4096) ?? Data(), as: UTF8.self)
                .split(separator: "\n").first.map { $0.split(separator: ",").map(String.init) } ?? []
            let filters = header.contains("value")
                ? (#"[">", ["get", "value"], 500]"#, #"["<=", ["get", "value"], 500]"#)
                : (#"["==", ["get", "category"], "cafe"]"#, #"["!=", ["get", "category"], "cafe"]"#)
            let manifest = "\(workDir)/batch-\(d.name)-\(n).json"
            try """
            { "defaults": { "input": "\(csv)", "size": "800x600" },
              "jobs": [ { "output": "\(workDir)/batch-a.png" }, { "output": "\(workDir)/batch-b.png", "cluster": false },
                        { "output": "\(workDir)/batch-c.png", "filter": \(filters.0) },
                        { "output": "\(workDir)/batch-d.png", "filter": \(filters.1), "cluster": false } ] }
            """.write(toFile: manifest, atomically: true, encoding: .utf8)
            inputs.append((csv, moved, manifest))
        }
        let commands: [(String, (Int) -> Measured)] = [
            ("render pins --no-cluster", { maprender([inputs[$0].csv, "--no-cluster", "-o", "\(workDir)/s-pins.png", "--quiet"]) }),
            ("render clustered", { maprender([inputs[$0].csv, "-o", "\(workDir)/s-clustered.png", "--quiet"]) }),
            ("render clustered SVG", { maprender([inputs[$0].csv, "-o", "\(workDir)/s-clustered.svg", "--quiet"]) }),
            // Every marker in the SVG (a <use> each, ids renumbered over the whole text).
            ("render pins --no-cluster SVG", { maprender([inputs[$0].csv, "--no-cluster", "-o", "\(workDir)/s-pins.svg", "--quiet"]) }),
            ("cluster --zoom 2", { maprender(["cluster", inputs[$0].csv, "--zoom", "2", "-o", "\(workDir)/s-cluster.geojson"], summary: false) }),
            ("cluster --zoom 16", { maprender(["cluster", inputs[$0].csv, "--zoom", "16", "-o", "\(workDir)/s-cluster16.geojson"], summary: false) }),
            ("inspect", { maprender(["inspect", inputs[$0].csv], summary: false) }),
            ("animate 2 keyframes, 10 frames", {
                defer { try? FileManager.default.removeItem(atPath: "\(workDir)/s-frames") }
                return maprender(["animate", inputs[$0].csv, inputs[$0].moved, "--frames", "9", "-o", "\(workDir)/s-frames", "--quiet"])
            }),
            ("batch 4 maps", { maprender(["batch", inputs[$0].manifest, "--quiet", "--report", "\(workDir)/s-report.json"], summary: false) }),
        ]
        // A command's four sizes run one right after the other, round after round: the machine's
        // speed drifts by tens of per cent over minutes here, and a doubling's ratio compares
        // runs made seconds apart, not the first size's runs with the last's minutes later.
        var all = [[[Measured]]](repeating: [[Measured]](repeating: [], count: sizes.count), count: commands.count)
        // The peer's own scaling on the same files: pysupercluster's whole hierarchy (its
        // `index_s`, timed inside the peer, without its CSV read), at most three rounds (its
        // Python CSV reader takes seconds a million rows), in the same rounds as maprender's.
        // Per size, per round (nil: that run failed), so that rounds stay paired.
        var peerIndex = [[Double?]](repeating: [], count: sizes.count)
        for round in 0..<repeats {
            for (c, command) in commands.enumerated() {
                for k in sizes.indices { all[c][k].append(command.1(k)) }
            }
            if useCluster && round < 3 {
                for k in sizes.indices {
                    let m = run([peerPython, peerCluster!, inputs[k].csv, "--zoom", "2"])
                    peerIndex[k].append(peerJSON(m.stdout)["index_s"] as? Double)
                }
            }
        }
        // The stage rows of a command (row name, stage key): a map's fixed stages, every stage any
        // of `animate`'s runs reported.
        func stageRows(_ c: Int) -> [(row: String, key: String)] {
            let name = commands[c].0
            if name.hasPrefix("render") { return ["read", "cluster", "layout", "render", "write"].map { ("  \(name): \($0)", $0) } }
            if name.hasPrefix("animate") { return Set(all[c].joined().flatMap { $0.stages.keys }).sorted().map { ("  animate: \($0)", $0) } }
            return []
        }
        for c in commands.indices {
            paired[commands[c].0] = pairedRatios(all[c].map { $0.map { $0.ok ? $0.cpu : nil } })
            for (row, key) in stageRows(c) {
                paired[row] = pairedRatios(all[c].map { $0.map { $0.ok ? $0.stages[key] : nil } })
            }
        }
        var peaks: [Double] = []
        for k in sizes.indices {
            for (c, (name, _)) in commands.enumerated() {
                let runs = all[c][k]
                let m = median(runs)
                add(name, m.ok ? m.cpu : .nan)
                peaks.append(m.peakMB)
                // A stage is the fastest of the runs: a stage of tens of milliseconds inside a run
                // only gains time from the machine (the kernel's page cache took 13-32 ms to write
                // the same 20 MB), so the least is its own cost.
                func fastest(_ key: String) -> Double {
                    runs.compactMap { $0.ok ? $0.stages[key] : nil }.min() ?? .nan
                }
                for (row, key) in stageRows(c) { add(row, fastest(key) / 1000) }
            }
        }
        // The peer's row only when it has a figure for every size (a failed peer run leaves none).
        let peerRow = "pysupercluster index_s (peer)"
        let peerFastest = peerIndex.compactMap { $0.compactMap { $0 }.min() }
        let hasPeerRow = peerFastest.count == sizes.count
        if hasPeerRow {
            for v in peerFastest { add(peerRow, v) }
            paired[peerRow] = pairedRatios(peerIndex)
        }
        print("")
        print("\(d.name): per command CPU seconds (user + system, steadier than wall time on a shared machine),")
        print("  per stage wall seconds from --summary, the fastest of the runs; then the ratio of each doubling")
        if hasPeerRow { print("  (last row: the peer's clustering of the same files, fastest of \(min(repeats, 3)), for comparison)") }
        print("  x1-x3: each doubling's ratio, the median over rounds of each round's own ratio (the round's")
        print("  two runs seconds apart); 'of the table' is the worst ratio of the seconds printed, for comparison")
        print(pad("stage", 44) + sizes.map { lpad("\($0 / 1000)k", 9) }.joined() + "   " + (1..<sizes.count).map { lpad("x\($0)", 6) }.joined()
              + "  worst         of the table")
        for (name, v) in table {
            guard v.count == sizes.count else { continue }
            let ofTable = (1..<v.count).map { v[$0] / v[$0 - 1] }
            let r = paired[name] ?? ofTable
            // (A step without a figure is a miss, wherever it stands: `max` ignores NaN by position.)
            let worst = r.contains { $0.isNaN } ? .nan : r.max() ?? .nan
            // Stages under 0.1 s are too small to time on a shared machine: no verdict for them.
            let small = v.last! < 0.1
            let judged = name == peerRow ? "(peer)" : small ? "(too small)" : verdict(worst, 2.2)
            print(pad(name, 44) + v.map { lpad(String(format: "%.3f", $0), 9) }.joined() + "   "
                  + r.map { lpad(String(format: "%.2f", $0), 6) }.joined() + "  " + pad(judged, 14)
                  + String(format: "%.2f", ofTable.max() ?? .nan))
        }
        print(pad("peak memory at \(sizes.last! / 1000)k, largest command", 44) + mb(peaks.suffix(9).max() ?? 0))
    }
}

// MARK: 3. cluster command on cities

if sections.contains("cluster") {
    print("")
    print("== 3. maprender cluster --zoom 8 on GeoNames cities (output written to a file) ==")
    let c170 = "\(workDir)/cities-170k.csv"
    if !FileManager.default.fileExists(atPath: c170) { try jitterCities(citiesFile, copies: 5, to: c170) }
    for (name, file, target) in [("34k cities (samples/world_cities.csv)", citiesFile, 0.3),
                                 ("170k cities (world_cities.csv x5, jittered ±0.5°)", c170, 1.0)] {
        let out = "\(workDir)/cities-z8.geojson"
        let m = median((0..<repeats).map { _ in maprender(["cluster", file, "--zoom", "8", "-o", out], summary: false) })
        let bytes = (try? FileManager.default.attributesOfItem(atPath: out)[.size] as? Int) ?? 0
        print(pad(name, 52) + pad(m.ok ? secs(m.wall) : "EXIT \(m.status)", 11) + pad("cpu " + secs(m.cpu), 13) + pad(mb(m.peakMB), 8)
              + pad(String(format: "%.1f MB out", Double(bytes) / 1e6), 14) + "target <= \(target) s " + verdict(m.wall, target))
    }
}

// MARK: 4. GeoJSON input

if sections.contains("geojson") {
    print("")
    print("== 4. GeoJSON input: \(mainN) point features against the same points as CSV (maprender inspect) ==")
    let d = distributions.first { $0.name == "gen_points" } ?? distributions[0]
    let csv = try dataFile(d, mainN)
    let geojson = "\(workDir)/\(d.name)-\(mainN).geojson"
    if !FileManager.default.fileExists(atPath: geojson) {
        if d.name == "gen_points", let g = genPoints {
            _ = run(["python3", g, "-n", "\(mainN)", "--seed", "42", "--geojson", geojson])
        } else {
            try csvToGeoJSON(csv, to: geojson)
        }
    }
    let size = (try? FileManager.default.attributesOfItem(atPath: geojson)[.size] as? Int) ?? 0
    let g = median((0..<repeats).map { _ in maprender(["inspect", geojson], summary: false) })
    let c = median((0..<repeats).map { _ in maprender(["inspect", csv], summary: false) })
    print(pad("GeoJSON (\(d.name), \(size / 1_000_000) MB)", 40) + pad(g.ok ? secs(g.wall) : "EXIT \(g.status)", 11)
          + pad("cpu " + secs(g.cpu), 13) + pad(mb(g.peakMB), 9)
          + "target <= 1.0 s " + verdict(g.wall, 1.0) + ", <= 250 MB " + verdict(g.peakMB, 250))
    print(pad("CSV, same points", 40) + pad(secs(c.wall), 11) + pad("cpu " + secs(c.cpu), 13) + pad(mb(c.peakMB), 9) + "GeoJSON / CSV: " + ratio(g.wall / c.wall))
}

// MARK: 5b. Lines and polygons

/// Natural Earth 1:50m countries (the embedded 1:50m basemap) as GeoJSON polygons with a `rate`
/// property spread over 0..99 for a four-step choropleth.
func writeCountries50m(to path: String) throws {
    let shapes = DefaultBasemap.detailed
    var out = try CSVFile(path, header: "")
    out.add(#"{"type":"FeatureCollection","features":["#)
    for s in 0..<shapes.shapeCount {
        var rings: [String] = []
        for r in shapes.rings(of: s) {
            let v = shapes.vertices(of: r)
            rings.append("[" + v.map { "[\(f5(shapes.coords[2 * $0])),\(f5(shapes.coords[2 * $0 + 1]))]" }.joined(separator: ",") + "]")
        }
        out.add((s == 0 ? "" : ",") + #"{"type":"Feature","properties":{"rate":\#((s * 37) % 100)},"geometry":{"type":"Polygon","coordinates":[\#(rings.joined(separator: ","))]}}"#)
    }
    out.add("]}")
    try out.close()
}

/// One LineString of `n` vertices like a long GPS recording: 20 m steps whose heading turns
/// slowly (a random walk of the heading), with 3 m of jitter, kept inside Europe.
func writeLongLine(_ n: Int, to path: String) throws {
    var rng = SplitMix64(state: 7)
    var out = try CSVFile(path, header: "")
    out.add(#"{"type":"Feature","properties":{},"geometry":{"type":"LineString","coordinates":["#)
    var lon = 10.0, lat = 50.0, heading = 0.3
    for i in 0..<n {
        heading += rng.gaussian() * 0.02
        lon += 0.00028 * sin(heading) / cos(lat * .pi / 180)
        lat += 0.00018 * cos(heading)
        if lon < -10 || lon > 30 || lat < 36 || lat > 60 { heading += .pi; lon = min(max(lon, -10), 30); lat = min(max(lat, 36), 60) }
        out.add((i == 0 ? "" : ",") + "[\(f5(lon + rng.gaussian() * 0.00004)),\(f5(lat + rng.gaussian() * 0.00003))]")
    }
    out.add("]}}")
    try out.close()
}

if sections.contains("shapes") {
    print("")
    print("== 5b. Lines and polygons: a choropleth of Natural Earth 1:50m countries (against Mapnik), a 1M-vertex line, 1M points over polygons ==")
    let countries50 = "\(workDir)/countries50m.geojson"
    if !FileManager.default.fileExists(atPath: countries50) { try writeCountries50m(to: countries50) }
    let style = "\(workDir)/choropleth50.json"
    try Data(##"{"layers":[{"id":"c","type":"fill","paint":{"fill-color":["step",["get","rate"],"#fee5d9",25,"#fcae91",50,"#fb6a4a",75,"#cb181d"],"fill-outline-color":"#ffffff","fill-outline-width":0.5}}]}"##.utf8)
        .write(to: URL(fileURLWithPath: style))
    let view = ["--center", "50,10", "--zoom", "3.5", "--size", "1024x768", "--no-basemap"]
    let ours = median((0..<repeats).map { _ in maprender([countries50, "--style", style, "-o", "\(workDir)/choropleth50.png"] + view) })
    var mapnikLine = "Mapnik: skipped (\(haveMapnik ? "no \(mapnikOracle)" : "\(mapnikPython) cannot import mapnik"))"
    if haveMapnik, FileManager.default.fileExists(atPath: mapnikOracle) {
        // The same extent as maprender's view: centre 50N 10E, zoom 3.5, 1024x768.
        let ws = 512 * pow(2, 3.5), c = 2 * Double.pi * 6378137
        let cx = (10 + 180) / 360.0, cy = 0.5 - log(tan(Double.pi / 4 + 50 * Double.pi / 360)) / (2 * Double.pi)
        let hw = 512 / ws, hh = 384 / ws
        let spec: [String: Any] = ["width": 1024, "height": 768, "background": "#bcd6e6",
                                   "extent": [(cx - hw - 0.5) * c, (0.5 - cy - hh) * c, (cx + hw - 0.5) * c, (0.5 - cy + hh) * c],
                                   "rules": [["filter": "[rate] < 25", "polygon": ["fill": "#fee5d9"]],
                                             ["filter": "[rate] >= 25 and [rate] < 50", "polygon": ["fill": "#fcae91"]],
                                             ["filter": "[rate] >= 50 and [rate] < 75", "polygon": ["fill": "#fb6a4a"]],
                                             ["filter": "[rate] >= 75", "polygon": ["fill": "#cb181d"]],
                                             ["line": ["stroke": "#ffffff", "stroke-width": 0.5]]]]
        let specPath = "\(workDir)/choropleth50-mapnik.json"
        try JSONSerialization.data(withJSONObject: spec).write(to: URL(fileURLWithPath: specPath))
        let theirs = median((0..<repeats).map { _ in run([mapnikPython, mapnikOracle, countries50, "\(workDir)/choropleth50-mapnik.png", specPath]) })
        mapnikLine = "Mapnik " + (theirs.ok ? secs(theirs.wall) : "EXIT \(theirs.status)") + ", maprender / Mapnik " + ratio(ours.wall / theirs.wall)
            + " (target <= 0.3 " + verdict(ours.wall / theirs.wall, 0.3) + ")"
    }
    print(pad("choropleth 1:50m (\(DefaultBasemap.detailed.shapeCount) polygons)", 44) + pad(ours.ok ? secs(ours.wall) : "EXIT \(ours.status)", 11)
          + pad(mb(ours.peakMB), 9) + mapnikLine + "  " + stageText(ours))
    let line = "\(workDir)/track-1m.geojson"
    if !FileManager.default.fileExists(atPath: line) { try writeLongLine(1_000_000, to: line) }
    let l = median((0..<repeats).map { _ in maprender([line, "--size", "1024x768", "-o", "\(workDir)/line-1m.png"]) })
    print(pad("1M-vertex line, fitted", 44) + pad(l.ok ? secs(l.wall) : "EXIT \(l.status)", 11) + pad(mb(l.peakMB), 9)
          + "target <= 0.3 s " + verdict(l.wall, 0.3) + "  " + stageText(l))
    let z = median((0..<repeats).map { _ in maprender([line, "--size", "1024x768", "--center", "50,10", "--zoom", "9", "-o", "\(workDir)/line-1m-z9.png"]) })
    print(pad("1M-vertex line, zoom 9 (part seen)", 44) + pad(z.ok ? secs(z.wall) : "EXIT \(z.status)", 11) + pad(mb(z.peakMB), 9) + stageText(z))
    let d = distributions.first { $0.name == "land" } ?? distributions[0]
    let pts = try dataFile(d, mainN)
    let plain = median((0..<repeats).map { _ in maprender([pts, "--no-cluster", "--marker", "circle", "--marker-size", "4", "-o", "\(workDir)/pts.png"]) })
    let over = median((0..<repeats).map { _ in maprender([pts, "--no-cluster", "--marker", "circle", "--marker-size", "4",
                                                          "--basemap", "\(samples)/ne_110m_admin_0_countries.geojson", "-o", "\(workDir)/pts-polygons.png"]) })
    print(pad("\(mainN) points (\(d.name)), built-in land", 44) + pad(secs(plain.wall), 11) + pad(mb(plain.peakMB), 9) + stageText(plain))
    print(pad("the same, 1:110m countries as a --basemap layer", 44) + pad(secs(over.wall), 11) + pad(mb(over.peakMB), 9)
          + "ratio " + ratio(over.wall / plain.wall) + " (target <= 1.1 " + verdict(over.wall / plain.wall, 1.1) + ")  " + stageText(over))
}

// MARK: 5c. Routes: great-circle arcs

/// `n` flows between GeoNames cities (world_cities.csv): each from one of 100 hub cities to a
/// city drawn at random, with a `count` of 1...100; about a third cross 180°.
func writeFlows(_ n: Int, cities: String, to path: String) throws {
    let text = try String(contentsOfFile: cities, encoding: .utf8)
    var places: [(Double, Double)] = []
    let lines = text.split(separator: "\n").map { $0.split(separator: ",", omittingEmptySubsequences: false) }
    guard let header = lines.first, let la = header.firstIndex(of: "lat"), let lo = header.firstIndex(of: "lon") else {
        throw CocoaError(.fileReadCorruptFile)
    }
    for f in lines.dropFirst() where f.count > max(la, lo) {
        if let a = Double(f[la]), let b = Double(f[lo]) { places.append((a, b)) }
    }
    guard places.count > 100 else { throw CocoaError(.fileReadCorruptFile) }
    var rng = SplitMix64(state: 4_800_000)
    let hubs = (0..<100).map { _ in places[Int(rng.next() % UInt64(places.count))] }
    var out = try CSVFile(path, header: "lat,lon,dest_lat,dest_lon,count")
    for _ in 0..<n {
        let o = hubs[Int(rng.next() % 100)], d = places[Int(rng.next() % UInt64(places.count))]
        out.add("\(o.0),\(o.1),\(d.0),\(d.1),\(1 + rng.next() % 100)")
    }
    try out.close()
}

/// The same flows as GeoJSON LineStrings of the arcs in 1° steps (`GreatCircle.arc`; maprender
/// cuts its own from the two ends when laid out, to a fifth of a pixel of the true arc),
/// longitudes unwrapped past ±180° (Mapnik draws no world copies), for Mapnik.
func writeFlowLines(_ csv: String, to path: String) throws {
    let text = try String(contentsOfFile: csv, encoding: .utf8)
    var out = try CSVFile(path, header: #"{"type":"FeatureCollection","features":["#)
    var first = true
    for line in text.split(separator: "\n").dropFirst() {
        let f = line.split(separator: ",").compactMap { Double($0) }
        guard f.count == 5, let arc = GreatCircle.arc(lat1: f[0], lon1: f[1], lat2: f[2], lon2: f[3]) else { continue }
        var coords: [String] = []
        var prev = arc[0]
        for k in 0..<(arc.count / 2) {
            var x = arc[2 * k]
            while x - prev > 180 { x -= 360 }
            while x - prev < -180 { x += 360 }
            prev = x
            coords.append("[\(f5(x)),\(f5(arc[2 * k + 1]))]")
        }
        out.add((first ? "" : ",") + #"{"type":"Feature","properties":{"count":\#(Int(f[4]))},"geometry":{"type":"LineString","coordinates":[\#(coords.joined(separator: ","))]}}"#)
        first = false
    }
    out.add("]}")
    try out.close()
}

if sections.contains("routes") {
    print("")
    print("== 5c. Routes: 10k great-circle arcs at 1024x768, width by count (against Mapnik drawing the same vertices) ==")
    let flows = "\(workDir)/flows-10k.csv"
    if !FileManager.default.fileExists(atPath: flows) { try writeFlows(10_000, cities: citiesFile, to: flows) }
    let style = "\(workDir)/flows-style.json"
    try Data(##"{"layers":[{"id":"flows","type":"line","paint":{"line-color":"#c2185b","line-opacity":0.35,"line-width":["interpolate",["linear"],["get","count"],1,0.5,100,2.5]}}]}"##.utf8)
        .write(to: URL(fileURLWithPath: style))
    let args = [flows, "--to-lat", "dest_lat", "--to-lon", "dest_lon", "--line-only", "--style", style, "--size", "1024x768", "--no-basemap"]
    let ours = median((0..<repeats).map { _ in maprender(args + ["-o", "\(workDir)/flows-10k.png"]) })
    var mapnikLine = "Mapnik: skipped (\(haveMapnik ? "no \(mapnikOracle)" : "\(mapnikPython) cannot import mapnik"))"
    if haveMapnik, FileManager.default.fileExists(atPath: mapnikOracle), ours.ok, let z = ours.zoom {
        let lines = "\(workDir)/flows-10k.geojson"
        if !FileManager.default.fileExists(atPath: lines) { try writeFlowLines(flows, to: lines) }
        // The whole world at maprender's zoom, centred on 0°: Mapnik draws the same lines
        // (projected by the oracle script) with the same widths in 5 steps.
        let ws = 512 * pow(2, z), c = 2 * Double.pi * 6378137
        let hw = 512 / ws, hh = 384 / ws
        var rules: [[String: Any]] = []
        for k in 0..<5 {
            let lo = 1 + 20 * k, hi = lo + 20
            rules.append(["filter": "[count] >= \(lo) and [count] < \(hi)",
                          "line": ["stroke": "#c2185b", "stroke-opacity": 0.35, "stroke-width": 0.5 + 2 * Double(lo + 10 - 1) / 99]])
        }
        let spec: [String: Any] = ["width": 1024, "height": 768, "background": "#bcd6e6", "project": true,
                                   "extent": [(-hw) * c, (-hh) * c, hw * c, hh * c], "rules": rules]
        let specPath = "\(workDir)/flows-mapnik.json"
        try JSONSerialization.data(withJSONObject: spec).write(to: URL(fileURLWithPath: specPath))
        let theirs = median((0..<repeats).map { _ in run([mapnikPython, mapnikOracle, lines, "\(workDir)/flows-mapnik.png", specPath]) })
        mapnikLine = "Mapnik (vertices given, projected by the script) " + (theirs.ok ? secs(theirs.wall) : "EXIT \(theirs.status)")
            + ", maprender / Mapnik " + ratio(ours.wall / theirs.wall)
    }
    print(pad("10k arcs (flows between cities)", 44) + pad(ours.ok ? secs(ours.wall) : "EXIT \(ours.status)", 11)
          + pad(mb(ours.peakMB), 9) + "target <= 0.3 s " + verdict(ours.wall, 0.3) + "  " + mapnikLine + "  " + stageText(ours))

    // 1M GPS rows of 1,000 devices (1,000 rows each, in time order) joined into one line per device.
    let tracks = "\(workDir)/tracks-1m.csv"
    if !FileManager.default.fileExists(atPath: tracks) { try writeDeviceTracks(devices: 1000, rows: 1000, to: tracks) }
    let lineArgs = [tracks, "--line-by", "device", "--line-only", "--size", "1024x768", "--no-basemap"]
    let lines = median((0..<repeats).map { _ in maprender(lineArgs + ["-o", "\(workDir)/tracks-1m.png"]) })
    print(pad("1M rows into 1,000 lines (--line-by)", 44) + pad(lines.ok ? secs(lines.wall) : "EXIT \(lines.status)", 11)
          + pad(mb(lines.peakMB), 9) + "target <= 0.6 s " + verdict(lines.wall, 0.6) + "  " + stageText(lines))
}

/// `devices` random walks of `rows` GPS fixes each (device, time, lat, lon), rows interleaved by
/// time as a fleet's log is: the input of `--line-by device`.
func writeDeviceTracks(devices: Int, rows: Int, to path: String) throws {
    var rng = SplitMix64(state: 1_000_000)
    var pos = (0..<devices).map { _ in (rng.uniform() * 100 - 45, rng.uniform() * 340 - 170) }
    var out = try CSVFile(path, header: "device,time,lat,lon")
    for t in 0..<rows {
        for d in 0..<devices {
            pos[d].0 = min(max(pos[d].0 + (rng.uniform() - 0.5) * 0.02, -80), 80)
            pos[d].1 = min(max(pos[d].1 + (rng.uniform() - 0.5) * 0.02, -179), 179)
            out.add("dev\(d),\(t),\(f5(pos[d].0)),\(f5(pos[d].1))")
        }
    }
    try out.close()
}

// MARK: 5d. Icons

if sections.contains("icons") {
    print("")
    print("== 5d. Icon markers: 100k points, unclustered, 1024x768, icons against pins ==")
    let points = "\(workDir)/clumps-100k-icons.csv"
    if !FileManager.default.fileExists(atPath: points) { try generateClumps(count: 100_000, to: points) }
    let base = [points, "--no-cluster", "--size", "1024x768", "--no-basemap"]
    let pins = median((0..<repeats).map { _ in maprender(base + ["--marker", "pin", "-o", "\(workDir)/icons-pins.png"]) })
    print(pad("100k pins", 44) + pad(pins.ok ? secs(pins.wall) : "EXIT \(pins.status)", 11) + pad(mb(pins.peakMB), 9) + stageText(pins))
    for icon in ["pin.svg", "park.png"] {
        let m = median((0..<repeats).map { _ in maprender(base + ["--marker-icon", "\(samples)/icons/\(icon)", "-o", "\(workDir)/icons-\(icon).png"]) })
        let r = pins.ok && m.ok ? m.wall / pins.wall : .infinity
        print(pad("100k icons (samples/icons/\(icon))", 44) + pad(m.ok ? secs(m.wall) : "EXIT \(m.status)", 11) + pad(mb(m.peakMB), 9)
              + "icons / pins " + ratio(r) + ", target <= 1.5 " + verdict(r, 1.5) + "  " + stageText(m))
    }
}

// MARK: 6. Tiles

/// The loopback tile server of the tests (Fixtures/tile_server.py), `delayMS` before each answer.
final class BenchTileServer {
    let process = Process()
    var port = 0
    init(delayMS: Int) throws {
        process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        process.arguments = ["python3", "\(tileFixtures)/tile_server.py", "--delay-ms", "\(delayMS)"]
        let out = Pipe()
        process.standardOutput = out
        try process.run()
        var line = Data()
        while true {
            let b = out.fileHandleForReading.readData(ofLength: 1)
            if b.isEmpty || b[b.startIndex] == 0x0A { break }
            line.append(b)
        }
        port = Int(String(decoding: line, as: UTF8.self)) ?? 0
    }
    /// Requests per path so far.
    func counts() -> [String: Int] {
        let m = run(["python3", "-c", "import urllib.request,sys; sys.stdout.write(urllib.request.urlopen('http://127.0.0.1:\(port)/stats').read().decode())"])
        let j = (try? JSONSerialization.jsonObject(with: Data(m.stdout.utf8))) as? [String: Any]
        return j?["counts"] as? [String: Int] ?? [:]
    }
    func stop() { kill(process.processIdentifier, SIGKILL); process.waitUntilExit() }
}

if sections.contains("tiles") {
    print("")
    print("== 6. tiles: a 1024x768 map of central Paris (GeoNames places on city tiles, zooms 10-14) ==")
    print("tile stage from --summary (ms, median of \(max(3, repeats)) runs); tiles: requested/fromCache/fetched")
    let city = ["\(citiesFile)", "--bbox=2.22,48.80,2.48,48.92", "--size", "1024x768", "--no-cluster", "--label", "name"]
    let out = "\(workDir)/tiles-city.png"
    func tileLine(_ name: String, _ m: Measured, target: Double) {
        let t = m.stages["tiles"] ?? .nan
        let counts = ["requested", "fromCache", "fetched"].map { "\(m.tiles[$0] ?? -1)" }.joined(separator: "/")
        print(pad(name, 44) + pad(m.ok ? String(format: "%.1f ms", t) : "EXIT \(m.status)", 12) + pad("tiles " + counts, 20)
              + pad("whole run " + secs(m.wall), 22) + "target <= \(Int(target)) ms " + verdict(t, target))
    }
    let runs = max(3, repeats)
    for file in ["city.mbtiles", "city.pmtiles"] {
        let m = median((0..<runs).map { _ in maprender(city + ["--tiles", "\(tileFixtures)/\(file)", "-o", out]) })
        tileLine("local \(file)", m, target: 40)
    }
    if let server = try? BenchTileServer(delayMS: 20), server.port > 0 {
        let template = "http://127.0.0.1:\(server.port)/mb/city/{z}/{x}/{y}.png"
        // Cold: a new cache folder for each run (and a server 20 ms away), then warm: that cache again.
        var colds: [Measured] = []
        var cache = ""
        for k in 0..<runs {
            cache = "\(workDir)/tilecache-cold-\(getpid())-\(k)"
            try? FileManager.default.removeItem(atPath: cache)
            colds.append(maprender(city + ["--tiles", template, "--tile-cache", cache, "-o", out]))
        }
        let warm = median((0..<runs).map { _ in maprender(city + ["--tiles", template, "--tile-cache", cache, "-o", out]) })
        tileLine("HTTP, warm disk cache", warm, target: 40)
        tileLine("HTTP, cold, +20 ms a tile, 2 connections", median(colds), target: 500)
        // The same with more connections than the 2 a public server asks for (your own server).
        let wide = median((0..<runs).map { k -> Measured in
            let c = "\(workDir)/tilecache-cold8-\(getpid())-\(k)"
            try? FileManager.default.removeItem(atPath: c)
            return maprender(city + ["--tiles", template, "--tile-cache", c, "--tile-connections", "8", "-o", out])
        })
        tileLine("HTTP, cold, +20 ms a tile, 8 connections", wide, target: 500)
        // 200 maps of one region in one batch: one fetcher, one cache.
        let batchDir = "\(workDir)/tiles-batch"
        try? FileManager.default.removeItem(atPath: batchDir)
        try FileManager.default.createDirectory(atPath: batchDir + "/maps", withIntermediateDirectories: true)
        let before = server.counts().filter { $0.key.hasPrefix("/mb/city/") }
        var jobs: [String] = []
        for k in 0..<200 {
            // The same region, slightly different framings and thresholds, as a report's maps would be.
            let dx = Double(k % 5) * 0.004, dy = Double(k / 5 % 4) * 0.003
            jobs.append(#"{ "output": "maps/m\#(k).png", "filter": ["\#(k % 2 == 0 ? ">=" : "<")", ["get", "population"], \#(20000 + 500 * k)], "bbox": "\#(2.22 + dx),\#(48.80 + dy),\#(2.46 + dx),\#(48.90 + dy)" }"#)
        }
        let manifest = """
        { "defaults": { "input": "\(citiesFile)", "size": "1024x768", "cluster": false, "label": "name",
                        "tiles": "\(template)", "tile-cache": "\(batchDir)/cache" },
          "jobs": [\(jobs.joined(separator: ",\n"))] }
        """
        try manifest.write(toFile: batchDir + "/maps.json", atomically: true, encoding: .utf8)
        let b = run([binary, "batch", batchDir + "/maps.json", "--allow-outside-root"])
        let after = server.counts().filter { $0.key.hasPrefix("/mb/city/") }
        var requests = 0, distinct = 0, twice = 0
        for (path, n) in after {
            let new = n - (before[path] ?? 0)
            guard new > 0 else { continue }
            requests += new; distinct += 1
            if new > 1 { twice += 1 }
        }
        print(pad("batch: 200 maps of one region, cold cache", 44) + pad(b.ok ? secs(b.wall) : "EXIT \(b.status)", 12)
              + "\(requests) requests for \(distinct) distinct tiles (\(twice) fetched more than once)  target: each once "
              + (requests == distinct && b.ok ? "ok" : "MISSED"))
        server.stop()
    } else {
        print("note: no loopback tile server (python3 \(tileFixtures)/tile_server.py): HTTP figures skipped")
    }
}

// MARK: 8. Vector basemaps

if sections.contains("vector") {
    print("")
    print("== 8. vector basemaps: styles/basemap-light.json over Natural Earth vector tiles (zooms 0-6), 1024x768 ==")
    // The shipped style with its source made absolute (the PMTiles file; MapLibre Native reads the
    // MBTiles it was converted from: its pmtiles:// is not supported here).
    let repoRoot = (samples as NSString).deletingLastPathComponent
    let styleText = try String(contentsOfFile: "\(repoRoot)/styles/basemap-light.json", encoding: .utf8)
        .replacingOccurrences(of: "pmtiles://../samples/", with: "pmtiles://\(samples)/")
    let style = "\(workDir)/basemap-light.json"
    try styleText.write(toFile: style, atomically: true, encoding: .utf8)
    let noSymbols = "\(workDir)/basemap-light-nosymbols.json"
    if var j = try JSONSerialization.jsonObject(with: Data(styleText.utf8)) as? [String: Any] {
        j["layers"] = (j["layers"] as? [[String: Any]] ?? []).filter { $0["type"] as? String != "symbol" }
        try JSONSerialization.data(withJSONObject: j).write(to: URL(fileURLWithPath: noSymbols))
    }
    let empty = "\(workDir)/empty.geojson"
    try #"{"type": "FeatureCollection", "features": []}"#.write(toFile: empty, atomically: true, encoding: .utf8)
    let mbtiles = "\(tileFixtures)/vector/ne-omt.mbtiles"
    let oracle = pymglOracle
    let runs = max(5, repeats)
    func ours(_ s: String, _ lat: Double, _ lon: Double, _ z: Double) -> Measured {
        median((0..<runs).map { _ in maprender([empty, "--allow-empty", "--basemap-style", s, "--center", "\(lat),\(lon)", "--zoom", "\(z)",
                                                "--size", "1024x768", "-o", "\(workDir)/vector.png"]) })
    }
    func theirs(_ lat: Double, _ lon: Double, _ z: Double) -> Measured {
        median((0..<runs).map { _ in run(["env", "EGL_PLATFORM=surfaceless", "python3", oracle, style, "\(workDir)/vector-mgl.png",
                                          "1024", "768", "\(lon)", "\(lat)", "\(z)", mbtiles]) })
    }
    print("whole process, median of \(runs) cold runs; basemap stage from --summary")
    for (name, lat, lon, z, target) in [("Europe z4", 50.0, 10.0, 4.0, 150.0), ("world z1", 20.0, 0.0, 1.0, 100.0)] {
        let a = ours(noSymbols, lat, lon, z), l = ours(style, lat, lon, z), m = theirs(lat, lon, z)
        let stage = a.stages["basemap"] ?? .nan, stageL = l.stages["basemap"] ?? .nan
        print(pad("\(name), no labels: maprender", 48) + pad(a.ok ? secs(a.wall) : "EXIT \(a.status)", 12)
              + pad("basemap stage \(String(format: "%.1f", stage)) ms", 28) + "target <= \(Int(target)) ms " + verdict(stage, target))
        print(pad("\(name), no labels: MapLibre Native (pymgl)", 48) + pad(m.ok ? secs(m.wall) : "EXIT \(m.status)", 12)
              + "maprender / MapLibre \(String(format: "%.2f", a.wall / m.wall))x  target <= 1.0x " + verdict(a.wall / m.wall, 1.0))
        print(pad("\(name), with labels: maprender", 48) + pad(l.ok ? secs(l.wall) : "EXIT \(l.status)", 12)
              + "basemap stage \(String(format: "%.1f", stageL)) ms, layout \(String(format: "%.1f", l.stages["layout"] ?? .nan)) ms")
    }
    // Warm: 100 maps in one process each (a batch; pymgl re-centring one Map).
    let n = 100
    var jobs: [String] = []
    for k in 0..<n { jobs.append(#"{ "output": "v\#(k).png", "center": "\#(40 + Double(k % 10)),\#(-5 + Double(k / 10) * 2)" }"#) }
    let batchDir = "\(workDir)/vector-batch"
    try? FileManager.default.removeItem(atPath: batchDir)
    try FileManager.default.createDirectory(atPath: batchDir, withIntermediateDirectories: true)
    try """
    { "defaults": { "input": "\(empty)", "allow-empty": true, "size": "1024x768", "zoom": 4, "basemap-style": "\(noSymbols)" },
      "jobs": [\(jobs.joined(separator: ",\n"))] }
    """.write(toFile: batchDir + "/maps.json", atomically: true, encoding: .utf8)
    let b = run([binary, "batch", batchDir + "/maps.json", "--allow-outside-root"])
    let warmScript = """
    import json, os, sys, time
    os.environ["EGL_PLATFORM"] = "surfaceless"
    from pymgl import Map
    style = json.load(open(sys.argv[1]))
    for s in style["sources"].values(): s["url"] = "mbtiles://" + sys.argv[2]
    style["layers"] = [l for l in style["layers"] if l["type"] != "symbol"]; style.pop("glyphs", None)
    m = Map(json.dumps(style), 1024, 768, 1, -5, 40, 4)
    m.renderPNG()
    t = time.time()
    for k in range(\(n)):
        m.setCenter(-5 + (k // 10) * 2, 40 + k % 10)
        open(sys.argv[3] + f"/m{k}.png", "wb").write(m.renderPNG())
    print(json.dumps({"perMap": (time.time() - t) / \(n)}))
    """
    let w = run(["python3", "-c", warmScript, style, mbtiles, batchDir])
    let perMap = peerJSON(w.stdout)["perMap"] as? Double ?? .nan
    print(pad("\(n) maps z4 in one batch: maprender", 48) + pad(b.ok ? secs(b.wall) : "EXIT \(b.status)", 12)
          + pad("MapLibre Native warm \(String(format: "%.1f", perMap * 1000)) ms a map", 38)
          + "target <= 2x its x\(n) (\(secs(2 * perMap * Double(n)))) " + verdict(b.wall, 2 * perMap * Double(n)))
}

// MARK: 5. 10M points

if big {
    print("")
    print("== 5. 10M points (clumps) ==")
    let csv = try dataFile(distributions[0], 10_000_000)
    let c = maprender([csv, "-o", "\(workDir)/big-clustered.png", "--quiet"])
    print(pad("CSV to clustered PNG", 40) + pad(secs(c.wall), 11) + pad(mb(c.peakMB), 9) + "target <= 8 s " + verdict(c.wall, 8)
          + ", <= 1.5 GB " + verdict(c.peakMB, 1536) + "   " + stageText(c))
    let p = maprender([csv, "--no-cluster", "-o", "\(workDir)/big-pins.png", "--quiet"])
    print(pad("CSV to unclustered PNG (pins)", 40) + pad(secs(p.wall), 11) + pad(mb(p.peakMB), 9) + "target <= 10 s " + verdict(p.wall, 10)
          + "   " + stageText(p))
}

// MARK: 7. Instructions per doubling

/// The instructions `exe args` executes, from callgrind (nil when it failed).
func instructions(_ exe: String, _ args: [String]) -> Double? {
    let out = "\(workDir)/callgrind-\(getpid()).out"
    defer { try? FileManager.default.removeItem(atPath: out) }
    let m = run(["valgrind", "--tool=callgrind", "--callgrind-out-file=\(out)", exe] + args)
    guard m.ok, let line = m.stderr.split(separator: "\n").last(where: { $0.contains("Collected :") }),
          let count = Double(line.split(separator: ":").last!.trimmingCharacters(in: .whitespaces)) else { return nil }
    return count
}

if sections.contains("instructions") {
    // Times per doubling move with the machine (caches, other processes, a page cache being
    // reclaimed); instruction counts do not, so they tell a quadratic path from a cache effect.
    print("")
    print("== 7. instructions per doubling, 1M -> 2M points (valgrind --tool=callgrind: the same on any machine and load) ==")
    if !run(["valgrind", "--version"]).ok {
        print("valgrind not found: skipped (Debian: apt-get install valgrind)")
    } else {
        // A copy without debug information (valgrind reads Swift's DWARF slowly).
        let stripped = "\(workDir)/maprender-stripped-\(getpid())"
        defer { try? FileManager.default.removeItem(atPath: stripped) }
        let exe = run(["objcopy", "--strip-debug", binary, stripped]).ok ? stripped : binary
        print(pad("command", 40) + lpad("1000k", 16) + lpad("2000k", 16) + lpad("ratio", 8) + "   target <= 2.2")
        let commands: [(String, (String) -> [String])] = [
            ("render pins --no-cluster", { [$0, "--no-cluster", "-o", "\(workDir)/instructions.png", "--quiet"] }),
            ("render clustered", { [$0, "-o", "\(workDir)/instructions.png", "--quiet"] }),
            ("cluster --zoom 2", { ["cluster", $0, "--zoom", "2", "-o", "\(workDir)/instructions.geojson"] }),
            ("inspect", { ["inspect", $0] }),
        ]
        for d in distributions where scalingOnly?.contains(d.name) ?? true {
            let files = try [1_000_000, 2_000_000].map { try dataFile(d, $0) }
            for (name, argv) in commands {
                let counts = files.map { instructions(exe, argv($0)) }
                guard let a = counts[0], let b = counts[1] else {
                    print(pad("\(d.name): \(name)", 40) + "  failed under valgrind")
                    continue
                }
                print(pad("\(d.name): \(name)", 40) + lpad(String(format: "%.2fG", a / 1e9), 16)
                      + lpad(String(format: "%.2fG", b / 1e9), 16) + lpad(String(format: "%.2f", b / a), 8)
                      + "   " + verdict(b / a, 2.2))
            }
        }
    }
}
