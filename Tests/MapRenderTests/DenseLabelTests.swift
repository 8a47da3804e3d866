import Foundation
import Testing
@testable import MapRenderCore
@testable import MapRender
import MapRenderCairo

/// Issue 47 on real data: a 1024x768 world dot map of GeoNames cities ≥ 15,000 (34k; the 170k
/// cities1000 file the issue used is not in the repository) with labels by population.
@Suite struct DenseLabelTests {
    static func render() throws -> (result: RenderResult, rows: [(name: String, lat: Double, lon: Double, pop: Double)]) {
        var r = RenderRequest()
        r.inputs = [TestPaths.shared("world_cities_15000.csv")]
        r.clustering = nil
        r.style.marker.shape = .circle
        r.style.marker.size = 4
        r.layout.labelField = "name"
        r.layout.labelPriority = "population"
        r.width = 1024; r.height = 768
        let result = try MapRenderer.render(r)
        // The rows read again here, with a CSV split of our own (quoted names hold commas).
        let text = try String(contentsOfFile: r.inputs[0], encoding: .utf8)
        var rows: [(name: String, lat: Double, lon: Double, pop: Double)] = []
        for line in text.split(separator: "\n").dropFirst() {
            var f: [String] = [], cur = "", quoted = false
            for ch in line {
                if ch == "\"" { quoted.toggle() } else if ch == "," && !quoted { f.append(cur); cur = "" } else { cur.append(ch) }
            }
            f.append(cur)
            guard f.count == 6, let lat = Double(f[3]), let lon = Double(f[4]) else { continue }
            rows.append((f[1], lat, lon, Double(f[5]) ?? 0))
        }
        return (result, rows)
    }

    /// Great-circle distance, km.
    static func km(_ a: (lat: Double, lon: Double), _ b: (lat: Double, lon: Double)) -> Double {
        let r = Double.pi / 180
        let h = pow(sin((b.lat - a.lat) * r / 2), 2) + cos(a.lat * r) * cos(b.lat * r) * pow(sin((b.lon - a.lon) * r / 2), 2)
        return 2 * 6371 * asin(min(1, h.squareRoot()))
    }

    /// Of the 50 most populous places at least 300 km from every more populous one of them, how
    /// many are named. The issue asks for 47 of 50 on the 170k file: NOT met. On this 34k file the
    /// map names 41: 38 greedily; then a top-ranked name with no free side searches for moves of
    /// placed names (`placeByMoving`: up to three pushed per box, three levels deep, with
    /// backtracking). Letting a moved name of the full type take the smaller one
    /// (a trial, not kept: `settle`) names 43, but then Beijing, Seoul, Guangzhou, Mumbai and Delhi read in
    /// the smaller type beside a full-size Ho Chi Minh City: the type no longer ranks the places,
    /// so it is off. Hanoi, Taipei, Wuzhong, Qingdao, Shenyang, Hyderabad, Ahmedabad, Bangkok and
    /// Dalian are not named: each of their eight sides is taken by a name ranked higher
    /// (Guangzhou, Shenzhen, Wuhan, Beijing, Tianjin, Seoul, Mumbai...:
    /// `unnamedPlacesYieldOnlyToHigherRanks`), and no moves within the search's budget free one.
    /// At this scale 300 km is about 8 px, and the 12 px names of the east of China fill it. The
    /// floor guards against losing more.
    @Test func denseWorldDotMapNamesTheLargestPlaces() throws {
        let (result, rows) = try Self.render()
        #expect(rows.count == result.summary.input.pointsRead)
        let labels = result.scene.labels
        let named = Set(labels.compactMap(\.owner))
        // Owners are rows: the text of each names its row.
        for l in labels { if let o = l.owner { #expect(rows[o].name.hasPrefix(l.text.replacingOccurrences(of: "…", with: ""))) } }
        let order = rows.indices.sorted { rows[$0].pop != rows[$1].pop ? rows[$0].pop > rows[$1].pop : $0 < $1 }
        var apart: [Int] = []
        for i in order where apart.count < 50 {
            if apart.allSatisfy({ Self.km((rows[$0].lat, rows[$0].lon), (rows[i].lat, rows[i].lon)) >= 300 }) { apart.append(i) }
        }
        let count = apart.filter(named.contains).count
        print("dense world dot map: \(count) of the 50 most populous places 300 km apart named; missing: "
              + apart.filter { !named.contains($0) }.map { rows[$0].name }.joined(separator: ", "))
        #expect(apart.count == 50)
        #expect(count >= 41, "\(count) of 50 named")
        #expect(["Shanghai", "Beijing", "Seoul", "Mumbai", "Tokyo", "Moscow", "London", "Lagos", "Cairo", "Mexico City", "Delhi"]
            .allSatisfy { n in labels.contains { $0.text == n } })
    }

    /// The priority rule on the real map, checked by brute force over the scene's names: each of
    /// the 50 places left unnamed has every one of its eight sides (its box in the smaller type,
    /// measured by Pango, around its drawn dot) off the image or within the text padding of a
    /// name ranked higher. (Dots are soft: names may cover them.)
    @Test func unnamedPlacesYieldOnlyToHigherRanks() throws {
        let (result, rows) = try Self.render()
        let labels = result.scene.labels
        let named = Set(labels.compactMap(\.owner))
        let order = rows.indices.sorted { rows[$0].pop != rows[$1].pop ? rows[$0].pop > rows[$1].pop : $0 < $1 }
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
        let placed = labels.map { (box: grow(Rect(x: $0.x, y: $0.y, width: $0.width, height: $0.height), reserve + pad), rank: rank[$0.owner ?? -1] ?? .max) }
        let image = Rect(x: 0, y: 0, width: result.viewport.width, height: result.viewport.height)
        let measurer = PangoText()
        var checked = 0
        for i in apart where !named.contains(i) {
            let p = result.viewport.pixel(x: WebMercator.x(lon: rows[i].lon), y: WebMercator.y(lat: rows[i].lat))
            guard let k = (0..<batch.count).first(where: { abs(batch.x[$0] - p.x) < 0.01 && abs(batch.y[$0] - p.y) < 0.01 }) else {
                Issue.record("\(rows[i].name): no dot"); continue
            }
            let t = measurer.measure(rows[i].name, font: FontSpec(family: st.font, size: st.size * LabelLayout.smallerType, weight: st.weight), maxWidth: nil)
            let label = LabelPlacer.Label(markBox: batch.box(at: k), anchorBox: batch.labelAnchor(at: k),
                                          size: TextSize(width: t.width + 2 * reserve, height: t.height + 2 * reserve), priority: 0)
            for side in LabelSide.allCases {
                let b = LabelPlacer.box(side, for: label, gap: st.offset)
                let blocked = !image.contains(b) || placed.contains { $0.rank < rank[i]! && $0.box.intersects(grow(b, pad)) }
                #expect(blocked, "\(rows[i].name): its \(side) side is free or taken by lower ranks only")
            }
            checked += 1
        }
        #expect(checked == 50 - apart.filter(named.contains).count)
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
