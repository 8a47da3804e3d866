import Foundation

/// Where every point goes in one view: alone, in a bubble, or spread around a shared position.
public enum MarkPlanner {
    /// - Parameters:
    ///   - clusters: the cluster index's items for this view and zoom, or nil when clustering is off
    ///     (then every point is a candidate marker).
    ///   - leaves: the point indexes of a cluster id (to tell a cluster of colocated points, which
    ///     zooming never separates, from a real one).
    ///   - oneCoordinatePossible: false for a cluster id whose points cannot all share one
    ///     coordinate (`ClusterIndex.mayHoldOneCoordinate`): with a spread tolerance of 0 its
    ///     members are not looked up (the first look-up groups every point).
    ///   - naming: when labels are on, how members rank and the label column (`BubbleNaming`):
    ///     each bubble is then named after its top member, or without a ranking after the label
    ///     value most members share (`BubbleNaming.sharedLabel`). nil: bubbles are not named.
    ///   - priority: (old spelling) the column of a larger-first priority property.
    ///   - bubbles: the bubble style, which gives each bubble its radius and text.
    ///   - only: with clustering off, plans only these points (ascending): each gets the marks it
    ///     gets among all points as long as every point sharing its coordinate is in it too
    ///     (the view's refit looks only at the points near the image's edges).
    ///   - duplicates: with clustering off, every point planned and a spread tolerance of 0: the
    ///     groups of points sharing a coordinate, as `duplicateGroups` gives them (they do not
    ///     depend on the view, so a refit does not hash the points again).
    public static func plan(viewport v: Viewport, data: ProjectedPoints, clusters: [ClusterItem]?,
                            leaves: (Int) -> [Int]?, oneCoordinatePossible: (Int) -> Bool = { _ in true },
                            spread: SpreadOptions, priority: Int? = nil,
                            bubbles: Style.Cluster = Style.default.cluster,
                            naming: (rank: (column: Int, smallerFirst: Bool)?, label: Int?)? = nil,
                            only: [Int]? = nil, duplicates: [[Int]]? = nil) -> MarkPlan {
        let naming = naming ?? priority.map { (rank: (column: $0, smallerFirst: false), label: nil) }
        var plan = MarkPlan()
        // The points planned one by one (not in a bubble): without clusters and `only`, every
        // point, not listed (`singles` empty: a list of 10M indexes is 80 MB of fresh memory).
        var singles: [Int] = []
        if let items = clusters {
            for item in items {
                if let p = item.pointIndex { singles.append(p); continue }
                if item.count <= spread.maximum, spread.tolerance > 0 || oneCoordinatePossible(item.id),
                   let members = leaves(item.id),
                   colocated(members, data: data, viewport: v, tolerance: spread.tolerance) {
                    addGroup(members, data: data, viewport: v, to: &plan)
                    continue
                }
                let p = v.pixel(x: item.x, y: item.y)
                var representative: Int?, shared = false
                if let n = naming, n.rank == nil, let members = leaves(item.id) {
                    representative = n.label.flatMap { BubbleNaming.sharedLabel(of: members, properties: data.points.properties, column: $0) }
                } else if let n = naming, let rank = n.rank, let members = leaves(item.id) {
                    // Named after a member near where the bubble is drawn, not after a top member
                    // far from it.
                    let reach = BubbleNaming.reach * bubbles.step(for: item.count).radius / v.worldSize
                    representative = BubbleNaming.representative(
                        of: members, properties: data.points.properties, rank: rank,
                        near: .init(x: item.x, y: item.y, reach: reach), x: data.x, y: data.y)
                }
                if representative != nil, let n = naming, let members = leaves(item.id) {
                    shared = BubbleNaming.allShare(members, representative: representative, properties: data.points.properties, column: n.label)
                }
                plan.bubbles.append(.init(x: p.x, y: p.y, count: item.count, clusterID: item.id, aggregates: item.aggregates,
                                          representative: representative, style: bubbles))
                plan.bubbles[plan.bubbles.count - 1].membersShareName = shared
            }
        } else if let only {
            singles = only
        }
        let listed = clusters != nil || only != nil
        let n = listed ? singles.count : data.x.count
        @inline(__always) func point(_ k: Int) -> Int { listed ? singles[k] : k }
        let x = data.x, y = data.y, pixels = v.toPixels
        // Colocated singles (clustering off, or zoom above the cluster max zoom). Pixel positions
        // are needed for grouping only within a tolerance.
        var px: [Double] = [], py: [Double] = []
        if spread.tolerance > 0 {
            px = [Double](repeating: 0, count: n); py = px
            for k in 0..<n { px[k] = pixels.x(x[point(k)]); py[k] = pixels.y(y[point(k)]) }
        }
        // Without clusters every point is a single (singles[k] == k): its key is read straight from
        // the coordinates (`duplicateGroups`), one random memory access less per occupied hash slot.
        let lon = data.points.lon, lat = data.points.lat
        let everyPoint = !listed && spread.tolerance <= 0
        precondition(duplicates == nil || everyPoint,
                     "duplicate groups are given for all points, clustering off, exact duplicates")
        var groups = duplicates ?? (everyPoint ? duplicateGroups(data)
            : ColocatedSpreader.groups(count: n, exactKey: { k in (lon[point(k)].bitPattern, lat[point(k)].bitPattern) },
                                       px: px, py: py, tolerance: spread.tolerance))
        px = []; py = []
        // Icons that hide one another are a stack too (`iconStacks`).
        let icons = iconStacks(count: n, point: point, data: data, viewport: v, maximum: spread.maximum)
        if !icons.isEmpty { groups = merge(groups, icons) }
        var grouped = [Bool](repeating: false, count: groups.isEmpty ? 0 : n)
        var groupedCount = 0
        for g in groups {
            // (Counted once each: `fill` makes room for exactly the others.)
            for k in g where !grouped[k] { grouped[k] = true; groupedCount += 1 }
            let members = g.map(point)
            if members.count > spread.maximum {
                var cx = 0.0, cy = 0.0
                for i in members { cx += pixels.x(x[i]); cy += pixels.y(y[i]) }
                cx /= Double(g.count); cy /= Double(g.count)
                let representative = naming.flatMap { n in n.rank == nil
                    ? n.label.flatMap { BubbleNaming.sharedLabel(of: members, properties: data.points.properties, column: $0) }
                    : BubbleNaming.representative(of: members, properties: data.points.properties, rank: n.rank) }
                plan.bubbles.append(.init(x: cx, y: cy, count: members.count, clusterID: nil, aggregates: [:],
                                          representative: representative, style: bubbles))
                plan.bubbles[plan.bubbles.count - 1].membersShareName = BubbleNaming.allShare(
                    members, representative: representative, properties: data.points.properties, column: naming?.label)
            } else {
                addGroup(members, data: data, viewport: v, to: &plan)
            }
        }
        // The ungrouped singles after the groups' markers, written once into arrays made at
        // their final size: appended to the groups' markers, 10M pins with duplicates copied
        // three arrays of 10M into fresh memory (a third of a second of page faults here).
        let total = plan.markerPoint.count + n - groupedCount
        func fill<T>(_ headPart: [T], _ value: (Int) -> T) -> [T] {
            [T](unsafeUninitializedCapacity: total) { out, initialized in
                var w = headPart.count
                headPart.withUnsafeBufferPointer { _ = out.initialize(fromContentsOf: $0) }
                if grouped.isEmpty {
                    for k in 0..<n { (out.baseAddress! + w).initialize(to: value(k)); w += 1 }
                } else {
                    for k in 0..<n where !grouped[k] { (out.baseAddress! + w).initialize(to: value(k)); w += 1 }
                }
                initialized = w
            }
        }
        plan.markerPoint = fill(plan.markerPoint) { point($0) }
        plan.markerX = fill(plan.markerX) { pixels.x(x[point($0)]) }
        plan.markerY = fill(plan.markerY) { pixels.y(y[point($0)]) }
        return plan
    }

    /// The groups of points sharing a coordinate exactly (`ColocatedSpreader.groups` with
    /// tolerance 0 over every point): point indexes, ascending, groups by first member. Pixel
    /// positions are not needed (only a tolerance reads them), so the groups hold for every view.
    public static func duplicateGroups(_ data: ProjectedPoints) -> [[Int]] {
        let lon = data.points.lon, lat = data.points.lat
        return ColocatedSpreader.groups(count: lon.count, exactKey: { k in (lon[k].bitPattern, lat[k].bitPattern) },
                                        px: [], py: [], tolerance: 0)
    }

    /// Icon markers drawn over one another: groups of the candidates `0..<count` (point
    /// `point(k)`) whose symbols are icons and whose boxes overlap so much that each covers at
    /// least a quarter of the other's (boxes of one size: centres less than half a width and
    /// half a height apart), joined in chains. A pin's tip shows its place under a neighbour's
    /// head, but an icon hides the icon under it; so such icons are a stack, spread around their
    /// shared position by the stack rules as pins on one coordinate are (ring or spiral with
    /// legs, compact layouts, a badge or bubble with its count when none has room). A chain of
    /// more than `maximum` icons (a carpet) is left as it is, as a carpet of pins is drawn.
    /// Each group ascending, groups by first member; none when fewer than two candidates are icons.
    /// - Complexity: O(icons) expected (a grid of cells as large as the largest icon).
    static func iconStacks(count n: Int, point: (Int) -> Int, data: ProjectedPoints, viewport v: Viewport,
                           maximum: Int) -> [[Int]] {
        let symbols = data.styles.symbols
        guard symbols.contains(where: { $0.icon != nil }) else { return [] }
        let index = data.styles.index, isIcon = symbols.map { $0.icon != nil }
        // Each icon's box centre and half its width and height, pixels.
        var members: [Int] = [], cx: [Double] = [], cy: [Double] = [], hw: [Double] = [], hh: [Double] = []
        // Cells of side `side`, the least half width or half height of any icon: two icons in one
        // cell are closer than that on both axes, so they hide each other without a test, and a
        // carpet of 100k icons costs a look-up each, not a test per pair (25 s with cells as
        // large as an icon). Icons that hide each other lie within `reachX`, `reachY` cells.
        var side = Double.infinity, reachX = 0.0, reachY = 0.0
        let pixels = v.toPixels
        for k in 0..<n {
            let i = point(k), s = Int(index[i])
            guard isIcon[s] else { continue }
            let e = symbols[s].extent
            let x = pixels.x(data.x[i]), y = pixels.y(data.y[i])
            let w = (e.left + e.right) / 2, h = (e.top + e.bottom) / 2
            guard x.isFinite, y.isFinite, w > 0, h > 0 else { continue }
            members.append(k)
            cx.append(x + (e.right - e.left) / 2); cy.append(y + (e.bottom - e.top) / 2)
            hw.append(w); hh.append(h)
            side = min(side, w, h); reachX = max(reachX, w); reachY = max(reachY, h)
        }
        guard members.count >= 2 else { return [] }
        var parent = Array(0..<members.count)
        func find(_ a: Int) -> Int {
            var a = a
            while parent[a] != a { parent[a] = parent[parent[a]]; a = parent[a] }
            return a
        }
        // Each group's size at its root: two groups both past `maximum` are left alone either way,
        // so a carpet's dense cells are not tested pair by pair against each other.
        var groupSize = [Int](repeating: 1, count: members.count)
        func union(_ a: Int, _ b: Int) {
            let ra = find(a), rb = find(b)
            guard ra != rb else { return }
            parent[max(ra, rb)] = min(ra, rb)
            groupSize[min(ra, rb)] += groupSize[max(ra, rb)]
        }
        struct Cell: Hashable { var x: Int, y: Int }
        // Each icon's cell, then the icons of each cell together (a counting sort: no array per cell).
        var cellOf: [Cell: Int32] = [:]
        var cells: [Cell] = []
        var cellOfIcon = [Int32](repeating: 0, count: members.count)
        for a in members.indices {
            let c = Cell(x: Int((cx[a] / side).rounded(.down)), y: Int((cy[a] / side).rounded(.down)))
            if let k = cellOf[c] { cellOfIcon[a] = k } else {
                cellOfIcon[a] = Int32(cells.count)
                cellOf[c] = Int32(cells.count)
                cells.append(c)
            }
        }
        var start = [Int](repeating: 0, count: cells.count + 1)
        for a in members.indices { start[Int(cellOfIcon[a]) + 1] += 1 }
        for k in cells.indices { start[k + 1] += start[k] }
        var fill = start, inCells = [Int](repeating: 0, count: members.count)
        for a in members.indices {
            let k = Int(cellOfIcon[a])
            inCells[fill[k]] = a
            fill[k] += 1
            union(a, inCells[start[k]])
        }
        let rx = Int((reachX / side).rounded(.up)), ry = Int((reachY / side).rounded(.up))
        for k in cells.indices {
            let c = cells[k]
            for dy in 0...ry {
                for dx in -rx...rx where dy > 0 || dx > 0 {
                    guard let j32 = cellOf[Cell(x: c.x + dx, y: c.y + dy)] else { continue }
                    let j = Int(j32)
                    let rk = find(inCells[start[k]]), rj = find(inCells[start[j]])
                    guard rk != rj, groupSize[rk] <= maximum || groupSize[rj] <= maximum else { continue }
                    // One pair that hides each other joins the two cells' icons (each cell's are one group).
                    search: for a in inCells[start[k]..<start[k + 1]] {
                        for b in inCells[start[j]..<start[j + 1]]
                        where abs(cx[a] - cx[b]) < (hw[a] + hw[b]) / 2 && abs(cy[a] - cy[b]) < (hh[a] + hh[b]) / 2 {
                            union(a, b)
                            break search
                        }
                    }
                }
            }
        }
        // Groups of 2...maximum, in the order of their first member (members are ascending).
        var size = [Int32](repeating: 0, count: members.count)
        for a in members.indices { size[find(a)] += 1 }
        var groupOfRoot = [Int32](repeating: -1, count: members.count)
        var out: [[Int]] = []
        for a in members.indices {
            let r = find(a)
            guard size[r] >= 2 && Int(size[r]) <= maximum else { continue }
            if groupOfRoot[r] < 0 { groupOfRoot[r] = Int32(out.count); out.append([]) }
            out[Int(groupOfRoot[r])].append(members[a])
        }
        return out
    }

    /// Two lists of groups of candidates joined where they share a member (a point on one
    /// coordinate with an icon stack), each ascending, groups by first member.
    static func merge(_ a: [[Int]], _ b: [[Int]]) -> [[Int]] {
        guard !a.isEmpty else { return b }
        let all = a + b
        var parent = Array(all.indices)
        func find(_ g: Int) -> Int {
            var g = g
            while parent[g] != g { parent[g] = parent[parent[g]]; g = parent[g] }
            return g
        }
        var groupOf: [Int: Int] = [:]
        for (g, members) in all.enumerated() {
            for k in members {
                if let h = groupOf[k] {
                    let rg = find(g), rh = find(h)
                    if rg != rh { parent[max(rg, rh)] = min(rg, rh) }
                } else {
                    groupOf[k] = g
                }
            }
        }
        var byRoot: [Int: Set<Int>] = [:]
        for (g, members) in all.enumerated() { byRoot[find(g), default: []].formUnion(members) }
        return byRoot.values.map { $0.sorted() }.sorted { $0[0] < $1[0] }
    }

    static func colocated(_ members: [Int], data: ProjectedPoints, viewport v: Viewport, tolerance: Double) -> Bool {
        guard let first = members.first else { return false }
        if tolerance <= 0 {
            let lon = data.points.lon[first], lat = data.points.lat[first]
            return members.allSatisfy { data.points.lon[$0] == lon && data.points.lat[$0] == lat }
        }
        let p0 = v.pixel(x: data.x[first], y: data.y[first])
        return members.allSatisfy {
            let p = v.pixel(x: data.x[$0], y: data.y[$0])
            return hypot(p.x - p0.x, p.y - p0.y) <= tolerance
        }
    }

    /// Spreads `members` around their shared position (their mean, when grouped by tolerance).
    static func addGroup(_ members: [Int], data: ProjectedPoints, viewport v: Viewport, to plan: inout MarkPlan) {
        let ordered = members.sorted { a, b in
            let c = compareIDs(data.points.id(at: a), data.points.id(at: b))
            return c != 0 ? c < 0 : a < b
        }
        var cx = 0.0, cy = 0.0
        for i in ordered {
            let p = v.pixel(x: data.x[i], y: data.y[i])
            cx += p.x; cy += p.y
        }
        cx /= Double(ordered.count); cy /= Double(ordered.count)
        var ext = EdgeInsets.zero
        for i in ordered {
            let e = data.styles.symbols[Int(data.styles.index[i])].extent
            ext = EdgeInsets(top: max(ext.top, e.top), right: max(ext.right, e.right),
                             bottom: max(ext.bottom, e.bottom), left: max(ext.left, e.left))
        }
        let offsets = ColocatedSpreader.offsets(count: ordered.count, separation: ColocatedSpreader.separation(for: ext))
        let first = plan.markerPoint.count
        for (k, i) in ordered.enumerated() {
            plan.markerPoint.append(i)
            plan.markerX.append(cx + offsets[k].dx)
            plan.markerY.append(cy + offsets[k].dy)
        }
        plan.spreadGroups.append(.init(x: cx, y: cy, members: ordered, firstMarker: first))
    }

    /// Orders ids: numbers (numerically) before strings (by code points), missing ids last.
    static func compareIDs(_ a: PropertyValue, _ b: PropertyValue) -> Int {
        func rank(_ v: PropertyValue) -> Int {
            switch v { case .number: return 0; case .string: return 1; default: return 2 }
        }
        let ra = rank(a), rb = rank(b)
        if ra != rb { return ra < rb ? -1 : 1 }
        switch (a, b) {
        case (.number(let x), .number(let y)): return x < y ? -1 : (x > y ? 1 : 0)
        case (.string(let x), .string(let y)):
            return x.unicodeScalars.lexicographicallyPrecedes(y.unicodeScalars) ? -1 : (x == y ? 0 : 1)
        default: return 0
        }
    }
}
