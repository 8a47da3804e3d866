/// Spread groups take room honestly: each group takes the first of its layouts (`SpreadLayout`:
/// the planned ring or spiral, a tight ring, a packed spiral, small dots in a grid) whose markers
/// stay in the image and cover no bubble, no other group's markers and no other marker's head;
/// a layout crossing the image edge is first moved inside it as a whole (its legs still start at
/// the true position). A group none of them fits is drawn as a bubble with its count instead (its
/// "fallback"). Runs on the final view, after any refit.
///
/// A fallback bubble must say something a reader can see, so a group with no room is drawn
/// *stacked* instead (its markers at their true positions, as if never spread; `spreadStacked`):
/// - when its members are all small dots (circles and squares <= 8 px, no pin): a bubble is many
///   times a dot's size, and on a dot density map thousands of "2" bubbles would hide the density;
///   dots overlap each other anyway in dense areas;
/// - when it has at most `stackMaximum` members and its bubble would overlap a bubble already
///   there (a cluster bubble or an earlier fallback) by more than a quarter of the smaller radius
///   (`BubbleSpacing`'s allowance): bubbles on bubbles would be nudged into a pile whose counts
///   hide each other, and a stack of two or three pins hides little. This bounds the small
///   fallback bubbles by the image's area, not by the number of points: 1M pins with 2% exact
///   duplicates no longer make 15,000 "2" bubbles (and a quadratic nudge among them). Larger
///   groups (a hub's neighbours of 20 pins) keep their bubble.
/// A stacked group's boxes at its true position are obstacles like a bubble's: no kept group covers them.
///
/// Groups are taken in plan order (by first member), each against the image, every bubble, every
/// unspread marker and the groups kept before it.
/// - Complexity: one pass over the markers plus, per round, O(g · L · m + b) through a grid of
///   64 px cells (g groups, L = 4 layouts, b bubbles, m marks near a group); no pairwise scans.
///   Rounds: at most one per group (each round but the last turns a group into a bubble or a stack).
public enum SpreadFallback {
    /// One way to draw a group: its layout and each member's anchor and box.
    struct Candidate {
        var layout: SpreadLayout
        var x: [Double], y: [Double]
        var boxes: [Rect]
        /// Whether the anchors differ from the plan's (another layout, or moved inside the image).
        var moved: Bool
    }

    /// How much two bubbles may overlap, as a fraction of the smaller radius, before a group's
    /// fallback bubble is dropped for a stack (the same allowance as `BubbleSpacing.maxOverlap`).
    public static let bubbleOverlap = 0.25
    /// The largest group drawn stacked rather than as a bubble on another bubble.
    public static let stackMaximum = 4

    /// Groups at least, for their candidates and their room among the markers to be found in
    /// parts on both cores (below, one thread). Tests set it lower.
    @TaskLocal static var partsFrom = 2048
    /// Markers at least, for their buckets to be made in parts on both cores; and at least this
    /// many markers per cell of the parts' own tables (`markersPerPartCell`): each part counts
    /// and hulls every 8 px cell (44 bytes a cell), which for a huge image with few markers
    /// would cost more than the markers. Tests set both lower.
    @TaskLocal static var markerPartsFrom = 1 << 16
    @TaskLocal static var markersPerPartCell = 1.0

    /// Applies the layouts and the fallback; returns how many groups fell back to a bubble, on the
    /// image or not (the plan's `spreadFallbacks` counts those on the image only).
    @discardableResult
    public static func apply(to plan: inout MarkPlan, data: ProjectedPoints, viewport v: Viewport,
                             bubbles style: Style.Cluster, naming: Bool,
                             rank: (column: Int, smallerFirst: Bool)? = nil, label: Int? = nil) -> Int {
        guard !plan.spreadGroups.isEmpty else { return 0 }
        let image = Rect(x: 0, y: 0, width: v.width, height: v.height)
        // The image for "stays inside", forgiving the rounding of a layout moved onto the edge.
        let inside = Rect(x: -1e-6, y: -1e-6, width: v.width + 2e-6, height: v.height + 2e-6)
        func symbol(_ point: Int) -> MarkerSymbol { data.styles.symbols[Int(data.styles.index[point])] }
        /// The box of a mark of extent `e` anchored at (x, y).
        func box(_ e: EdgeInsets, _ x: Double, _ y: Double) -> Rect {
            Rect(x: x - e.left, y: y - e.top, width: e.left + e.right, height: e.top + e.bottom)
        }
        func box(_ s: MarkerSymbol, _ x: Double, _ y: Double) -> Rect { box(s.extent, x, y) }
        // Every group's candidate layouts, each moved inside the image when it crosses the edge
        // (only when the true position itself is in the image). A pure function of the group: on
        // both cores for many groups (`inParts`), each part with its own cache, so any number of
        // parts gives the same candidates (1M gen_points pins, 19k groups: 29 ms on one core).
        let groups = plan.spreadGroups, plannedX = plan.markerX, plannedY = plan.markerY
        // Offsets per layout, size and extent, computed once a part: 1M points with 2% duplicates
        // make thousands of groups of two with the same symbol.
        struct OffsetKey: Hashable { var layout: UInt8, count: Int, t: UInt64, r: UInt64, b: UInt64, l: UInt64 }
        func candidateList(_ g: MarkPlan.SpreadGroup, _ offsetCache: inout [OffsetKey: [(dx: Double, dy: Double)]?]) -> [Candidate] {
            let range = g.firstMarker..<(g.firstMarker + g.members.count)
            let symbols = g.members.map(symbol)
            var ext = EdgeInsets.zero
            for s in symbols {
                let e = s.extent
                ext = EdgeInsets(top: max(ext.top, e.top), right: max(ext.right, e.right),
                                 bottom: max(ext.bottom, e.bottom), left: max(ext.left, e.left))
            }
            var list: [Candidate] = []
            for layout in SpreadLayout.allCases {
                var xs: [Double], ys: [Double]
                if layout == .planned {
                    xs = range.map { plannedX[$0] }; ys = range.map { plannedY[$0] }
                } else if let offsets = { () -> [(dx: Double, dy: Double)]? in
                    let k = OffsetKey(layout: layout.rawValue, count: g.members.count, t: ext.top.bitPattern,
                                      r: ext.right.bitPattern, b: ext.bottom.bitPattern, l: ext.left.bitPattern)
                    if let cached = offsetCache[k] { return cached }
                    let o = layout.offsets(count: g.members.count, extent: ext)
                    offsetCache[k] = .some(o)
                    return o
                }() {
                    xs = offsets.map { g.x + $0.dx }; ys = offsets.map { g.y + $0.dy }
                } else { continue }
                var shifted = false
                var boxes = xs.indices.map { box(layout.symbol(symbols[$0]), xs[$0], ys[$0]) }
                if Rect(x: -1, y: -1, width: v.width + 2, height: v.height + 2).contains(Rect(x: g.x, y: g.y, width: 0, height: 0)),
                   let all = union(boxes),
                   let shift = SpreadLayout.shiftedInside(all, image: image), shift != (0, 0) {
                    shifted = true
                    for k in xs.indices {
                        xs[k] += shift.dx; ys[k] += shift.dy
                        boxes[k] = Rect(x: boxes[k].x + shift.dx, y: boxes[k].y + shift.dy, width: boxes[k].width, height: boxes[k].height)
                    }
                }
                list.append(Candidate(layout: layout, x: xs, y: ys, boxes: boxes, moved: shifted || layout != .planned))
            }
            return list
        }
        var candidates = [[Candidate]](repeating: [], count: groups.count)
        candidates.withUnsafeMutableBufferPointer { candidates in
            inParts(groups.count, minimum: partsFrom) { range in
                var offsetCache: [OffsetKey: [(dx: Double, dy: Double)]?] = [:]
                for gi in range { candidates[gi] = candidateList(groups[gi], &offsetCache) }
            }
        }
        // Everything is checked through a coarse grid of 64 px cells: unspread markers only in the
        // cells the groups' layouts reach (one pass over the markers), bubbles and kept groups as boxes.
        let cell = 64.0
        func key(_ cx: Int, _ cy: Int) -> Int { cy &* 100_003 &+ cx }
        func cells(_ r: Rect, _ body: (Int) -> Void) {
            let x0 = Int((r.x / cell).rounded(.down)), x1 = Int((r.maxX / cell).rounded(.down))
            let y0 = Int((r.y / cell).rounded(.down)), y1 = Int((r.maxY / cell).rounded(.down))
            for cy in y0...y1 { for cx in x0...x1 { body(key(cx, cy)) } }
        }
        // The unspread markers are only ever looked up around a layout box inside the image
        // (`roomAlone` checks the image first), so within the 64 px cells from -2 to two past the
        // image's far edge: flat arrays over that window replace hashing (a million pins with 2%
        // duplicates made ~10M dictionary lookups here). Markers outside it are never looked at.
        let cxLo = -2, cyLo = -2
        let cxHi = Int(((v.width + cell + 1) / cell).rounded(.down)) + 1
        let cyHi = Int(((v.height + cell + 1) / cell).rounded(.down)) + 1
        let coarseW = cxHi - cxLo + 1, coarseH = cyHi - cyLo + 1
        var inGroup = [Bool](repeating: false, count: plan.markerPoint.count)
        var reach = [Bool](repeating: false, count: coarseW * coarseH)
        for (gi, g) in plan.spreadGroups.enumerated() {
            for k in g.firstMarker..<(g.firstMarker + g.members.count) { inGroup[k] = true }
            for c in candidates[gi] {
                for a in c.boxes where a.x.isFinite && a.y.isFinite && abs(a.x) < 1e7 && abs(a.y) < 1e7 {
                    let x0 = max(cxLo, Int(((a.x - cell) / cell).rounded(.down)))
                    let x1 = min(cxHi, Int(((a.x - cell + (a.width + 2 * cell)) / cell).rounded(.down)))
                    let y0 = max(cyLo, Int(((a.y - cell) / cell).rounded(.down)))
                    let y1 = min(cyHi, Int(((a.y - cell + (a.height + 2 * cell)) / cell).rounded(.down)))
                    guard x0 <= x1, y0 <= y1 else { continue }
                    for cy in y0...y1 { for cx in x0...x1 { reach[(cy - cyLo) * coarseW + (cx - cxLo)] = true } }
                }
            }
        }
        // Small dots (circles and squares <= 8 px) overlap each other anyway in dense areas: only
        // pins and larger marks count as heads a group must not cover.
        let head = data.styles.symbols.map { $0.shape == .pin || $0.size > 8 }
        // Groups of small dots only: no room means a stack, never a bubble.
        let dotsOnly = plan.spreadGroups.map { g in !g.members.contains { head[Int(data.styles.index[$0])] } }
        /// A group's fallback bubble's radius, its stroke included.
        func bubbleRadius(_ g: MarkPlan.SpreadGroup) -> Double { style.step(for: g.members.count).radius + style.strokeWidth / 2 }
        // A stacked group's boxes: each member's own symbol at its own true position.
        func stackBoxes(_ g: MarkPlan.SpreadGroup) -> [Rect] {
            g.members.map { i in
                let p = v.pixel(x: data.x[i], y: data.y[i])
                return box(symbol(i), p.x, p.y)
            }
        }
        // The markers of the reached 64 px cells, bucketed again in 8 px cells, each with the hull
        // of its boxes: a tight downtown stacks thousands of markers in one cell, and a group
        // ringed around it must not scan them all for each of its boxes.
        let fine = 8.0, perCell = Int(cell / fine)
        let fxLo = cxLo * perCell, fyLo = cyLo * perCell, fineW = coarseW * perCell, fineH = coarseH * perCell
        var reachExtent = 0.0   // the largest extent of a head symbol, for which fine cells to look at
        for (i, sym) in data.styles.symbols.enumerated() where head[i] {
            let e = sym.extent
            reachExtent = max(reachExtent, e.left, e.right, e.top, e.bottom)
        }
        reachExtent += 1
        // The smallest extents of a head symbol: every marker anchored in a fine cell whose whole
        // area lies that far inside a box meets the box.
        var least = EdgeInsets(top: .infinity, right: .infinity, bottom: .infinity, left: .infinity)
        for (i, sym) in data.styles.symbols.enumerated() where head[i] {
            let e = sym.extent
            least = EdgeInsets(top: min(least.top, e.top), right: min(least.right, e.right),
                               bottom: min(least.bottom, e.bottom), left: min(least.left, e.left))
        }
        // Flat buckets (counted, then filled in marker order): per fine cell its
        // markers `fineMarkers[fineStart[f]..<fineStart[f + 1]]` (4 bytes each; the box is made
        // again when looked at, so 1M pins do not hold 32 MB of boxes) and their hull. With groups all over a
        // dense map nearly every marker is bucketed: an array per cell cost an allocation, its
        // growth and two uniqueness checks per append (1M pins: ~40% of this function).
        let fineCount = fineW * fineH
        let extents = data.styles.symbols.map(\.extent)
        func markerBox(_ k: Int) -> Rect {
            box(extents[Int(data.styles.index[plan.markerPoint[k]])], plan.markerX[k], plan.markerY[k])
        }
        let (fineStart, fineMarkers, hullMinX, hullMinY, hullMaxX, hullMaxY) = { () -> ([Int], [Int32], [Double], [Double], [Double], [Double]) in
            let markerPoint = plan.markerPoint, markerX = plan.markerX, markerY = plan.markerY
            let styleIndex = data.styles.index, inGroup = inGroup, reach = reach
            // In parts of the markers on both cores: each part finds its markers' cells, counts
            // them and makes its hulls per cell (reading the markers in order); a part's markers
            // of a cell go after the earlier parts' (marker order, as on one thread). Four parts,
            // each with its own hulls. (1M gen_points pins: 24 ms on one core; hulls made per
            // cell afterwards read the markers at random, 17 ms.)
            let m = markerPoint.count
            let worthParts = Double(m) >= markersPerPartCell * Double(4 * fineCount)
            let parts = partRanges(m, minimum: worthParts ? markerPartsFrom : Int.max, parts: 4)
            var cellOf = [Int32](repeating: -1, count: m)
            var counts = [Int32](repeating: 0, count: parts.count * fineCount)
            // Per part and cell: min x, min y, max x, max y.
            var hulls = [Double](repeating: 0, count: parts.count * fineCount * 4)
            cellOf.withUnsafeMutableBufferPointer { cellOf in
            counts.withUnsafeMutableBufferPointer { counts in
            hulls.withUnsafeMutableBufferPointer { hulls in
                eachPart(parts) { h in
                    let count = counts.baseAddress! + h * fineCount, hull = hulls.baseAddress! + h * fineCount * 4
                    for f in 0..<fineCount {
                        hull[4 * f] = .infinity; hull[4 * f + 1] = .infinity
                        hull[4 * f + 2] = -.infinity; hull[4 * f + 3] = -.infinity
                    }
                    for k in parts[h] where !inGroup[k] {
                        let style = Int(styleIndex[markerPoint[k]])
                        guard head[style] else { continue }
                        let x = markerX[k], y = markerY[k]
                        guard x.isFinite, y.isFinite, abs(x) < 1e7, abs(y) < 1e7 else { continue }
                        let cx = Int((x / cell).rounded(.down)), cy = Int((y / cell).rounded(.down))
                        guard cx >= cxLo, cx <= cxHi, cy >= cyLo, cy <= cyHi, reach[(cy - cyLo) * coarseW + (cx - cxLo)] else { continue }
                        let f = (Int((y / fine).rounded(.down)) - fyLo) * fineW + (Int((x / fine).rounded(.down)) - fxLo)
                        cellOf[k] = Int32(f)
                        count[f] += 1
                        let b = box(extents[style], x, y)
                        hull[4 * f] = min(hull[4 * f], b.x); hull[4 * f + 1] = min(hull[4 * f + 1], b.y)
                        hull[4 * f + 2] = max(hull[4 * f + 2], b.maxX); hull[4 * f + 3] = max(hull[4 * f + 3], b.maxY)
                    }
                }
            }
            }
            }
            // Where each cell starts, where each part's markers of it go, and its hull.
            var start = [Int](repeating: 0, count: fineCount + 1)
            var next = [Int](repeating: 0, count: parts.count * fineCount)
            var minX = [Double](repeating: .infinity, count: fineCount), minY = minX
            var maxX = [Double](repeating: -.infinity, count: fineCount), maxY = maxX
            var total = 0
            for f in 0..<fineCount {
                start[f] = total
                for h in parts.indices {
                    next[h * fineCount + f] = total
                    total += Int(counts[h * fineCount + f])
                    let hull = (h * fineCount + f) * 4
                    minX[f] = min(minX[f], hulls[hull]); minY[f] = min(minY[f], hulls[hull + 1])
                    maxX[f] = max(maxX[f], hulls[hull + 2]); maxY[f] = max(maxY[f], hulls[hull + 3])
                }
            }
            start[fineCount] = total
            var boxes = [Int32](repeating: 0, count: total)
            boxes.withUnsafeMutableBufferPointer { boxes in
            next.withUnsafeMutableBufferPointer { next in
                eachPart(parts) { h in
                    let fill = next.baseAddress! + h * fineCount
                    for k in parts[h] where cellOf[k] >= 0 {
                        let f = Int(cellOf[k])
                        boxes[fill[f]] = Int32(k); fill[f] += 1
                    }
                }
            }
            }
            return (start, boxes, minX, minY, maxX, maxY)
        }()
        /// Whether `a` covers an unspread marker's head: the markers of the 64 px cells around it,
        /// looked up through the 8 px cells their anchors could be in.
        func hitsMarker(_ a: Rect) -> Bool {
            let grown = Rect(x: a.x - cell, y: a.y - cell, width: a.width + 2 * cell, height: a.height + 2 * cell)
            let cx0 = Int((grown.x / cell).rounded(.down)), cx1 = Int((grown.maxX / cell).rounded(.down))
            let cy0 = Int((grown.y / cell).rounded(.down)), cy1 = Int((grown.maxY / cell).rounded(.down))
            // A marker box meets `a` only when its anchor is within its extent of `a`.
            // Clamped to the window too (a no-op for a box inside the image).
            let fx0 = max(cx0 * perCell, Int(((a.x - reachExtent) / fine).rounded(.down)), fxLo)
            let fx1 = min(cx1 * perCell + perCell - 1, Int(((a.maxX + reachExtent) / fine).rounded(.down)), fxLo + fineW - 1)
            let fy0 = max(cy0 * perCell, Int(((a.y - reachExtent) / fine).rounded(.down)), fyLo)
            let fy1 = min(cy1 * perCell + perCell - 1, Int(((a.maxY + reachExtent) / fine).rounded(.down)), fyLo + fineH - 1)
            guard fx0 <= fx1, fy0 <= fy1 else { return false }
            // First the cells `a` covers so fully that any marker anchored in them meets it: in a
            // dense area one of them answers at once. (Scanning cells in order, markers that miss
            // `a` in the cells at its edges were read first: 28 per question at 1M gen_points pins,
            // 56 at 2M, so this cost grew with the square of the density.) A margin of 1e-6 px
            // covers the rounding of a marker box's edges.
            let margin = 1e-6
            for fy in fy0...fy1 {
                let top = Double(fy) * fine
                guard top + fine - least.top + margin <= a.maxY, top + least.bottom - margin > a.y else { continue }
                let row = (fy - fyLo) * fineW - fxLo
                for fx in fx0...fx1 {
                    let left = Double(fx) * fine
                    guard left + fine - least.left + margin <= a.maxX, left + least.right - margin > a.x else { continue }
                    if fineStart[row + fx] < fineStart[row + fx + 1] { return true }
                }
            }
            for fy in fy0...fy1 {
                let row = (fy - fyLo) * fineW - fxLo
                for fx in fx0...fx1 {
                    let f = row + fx
                    let lo = fineStart[f], hi = fineStart[f + 1]
                    guard lo < hi,
                          hullMinX[f] < a.maxX && a.x < hullMaxX[f] && hullMinY[f] < a.maxY && a.y < hullMaxY[f] else { continue }
                    for b in lo..<hi where markerBox(Int(fineMarkers[b])).intersects(a) { return true }
                }
            }
            return false
        }
        // What does not change between rounds (the image, the unspread markers) is checked once
        // per group, not once per round: the rounds only see bubbles and kept groups change.
        // (Per group, reading only what is fixed by now: on both cores like the candidates.)
        var roomAlone = [[Bool]](repeating: [], count: groups.count)
        roomAlone.withUnsafeMutableBufferPointer { roomAlone in
            inParts(groups.count, minimum: partsFrom) { range in
                for gi in range {
                    roomAlone[gi] = candidates[gi].map { c in
                        c.boxes.allSatisfy { inside.contains($0) } && !c.boxes.contains(where: hitsMarker)
                    }
                }
            }
        }
        // Per group: the index of the chosen candidate, or nil once it fell back (to a bubble, or
        // to a stack when `stacked`).
        var chosen = [Int?](repeating: 0, count: plan.spreadGroups.count)
        var stacked = [Bool](repeating: false, count: plan.spreadGroups.count)
        // Repeat until stable: a group that falls back becomes a bubble, which may leave no room
        // for a layout chosen earlier. At most one round per group.
        var changed = true
        while changed {
            changed = false
            var obstacles: [Int: [Rect]] = [:]   // bubbles (with fallen-back groups) and kept groups
            func add(_ r: Rect) { cells(r) { obstacles[$0, default: []].append(r) } }
            func hitsObstacle(_ a: Rect) -> Bool {
                var hit = false
                cells(a) { c in if !hit, let list = obstacles[c] { hit = list.contains { $0.intersects(a) } } }
                return hit
            }
            // Bubble circles (x, y, r) in the same cells, for whether a new fallback bubble would
            // sit on one.
            var circles: [(x: Double, y: Double, r: Double)] = []
            var circleCells: [Int: [Int]] = [:]
            var maxR = 0.0
            func addBubble(_ x: Double, _ y: Double, _ r: Double) {
                let box = Rect(x: x - r, y: y - r, width: 2 * r, height: 2 * r)
                add(box)
                cells(box) { circleCells[$0, default: []].append(circles.count) }
                circles.append((x, y, r)); maxR = max(maxR, r)
            }
            func onABubble(_ x: Double, _ y: Double, _ r: Double) -> Bool {
                var hit = false
                cells(Rect(x: x - r - maxR, y: y - r - maxR, width: 2 * (r + maxR), height: 2 * (r + maxR))) { c in
                    guard !hit, let list = circleCells[c] else { return }
                    hit = list.contains { k in
                        let o = circles[k], allowed = r + o.r - bubbleOverlap * min(r, o.r)
                        let dx = o.x - x, dy = o.y - y
                        return dx * dx + dy * dy < allowed * allowed
                    }
                }
                return hit
            }
            for b in plan.bubbles {
                addBubble(b.x, b.y, b.radius + style.strokeWidth / 2)
            }
            for (gi, g) in plan.spreadGroups.enumerated() where chosen[gi] == nil {
                if stacked[gi] { stackBoxes(g).forEach(add); continue }
                addBubble(g.x, g.y, bubbleRadius(g))
            }
            for (gi, g) in plan.spreadGroups.enumerated() where chosen[gi] != nil {
                let pick = candidates[gi].indices.first { p in
                    roomAlone[gi][p] && !candidates[gi][p].boxes.contains(where: hitsObstacle)
                }
                if let p = pick {
                    candidates[gi][p].boxes.forEach(add)
                    chosen[gi] = p
                } else {
                    chosen[gi] = nil
                    let r = bubbleRadius(g)
                    if dotsOnly[gi] || (g.members.count <= stackMaximum && onABubble(g.x, g.y, r)) {
                        stacked[gi] = true
                        stackBoxes(g).forEach(add)
                    } else {
                        addBubble(g.x, g.y, r)
                    }
                    changed = true
                }
            }
        }
        let count = chosen.indices.filter { chosen[$0] == nil && !stacked[$0] }.count
        let stacks = stacked.filter { $0 }.count
        let relaid = chosen.indices.contains { gi in chosen[gi].map { candidates[gi][$0].moved } ?? false }
        guard count > 0 || stacks > 0 || relaid else { return 0 }
        // Rebuild the plan in place: fallen-back groups' markers become one bubble each; the
        // others take their chosen layout. The marker arrays are taken out of the plan, edited and
        // compacted in place and put back (no copies of a million-entry array: 1M pins with 2%
        // exact duplicates used to hold the old and the new plan at once).
        var markerPoint: [Int] = [], markerX: [Double] = [], markerY: [Double] = []
        swap(&markerPoint, &plan.markerPoint); swap(&markerX, &plan.markerX); swap(&markerY, &plan.markerY)
        var drop = [Bool](repeating: false, count: markerPoint.count)
        var anyDropped = false
        var newBubbles: [MarkPlan.Bubble] = []
        for (gi, g) in plan.spreadGroups.enumerated() {
            if stacked[gi] {
                // Plain markers at their true positions (no legs: no longer a spread group).
                for (m, k) in (g.firstMarker..<(g.firstMarker + g.members.count)).enumerated() {
                    let p = v.pixel(x: data.x[g.members[m]], y: data.y[g.members[m]])
                    markerX[k] = p.x; markerY[k] = p.y
                }
                continue
            }
            guard let p = chosen[gi] else {
                for k in g.firstMarker..<(g.firstMarker + g.members.count) { drop[k] = true }
                anyDropped = true
                // Without a ranking, after the label value most members share (`BubbleNaming.sharedLabel`).
                let name = !naming ? nil : rank == nil
                    ? label.flatMap { BubbleNaming.sharedLabel(of: g.members, properties: data.points.properties, column: $0) }
                    : BubbleNaming.representative(of: g.members, properties: data.points.properties, rank: rank)
                newBubbles.append(.init(x: g.x, y: g.y, count: g.members.count, clusterID: nil, aggregates: [:],
                                        representative: name, style: style))
                continue
            }
            let c = candidates[gi][p]
            for (m, k) in (g.firstMarker..<(g.firstMarker + g.members.count)).enumerated() { markerX[k] = c.x[m]; markerY[k] = c.y[m] }
        }
        plan.bubbles.append(contentsOf: newBubbles)
        // The kept groups, with their first marker's index after the compaction (found in one
        // pass over the markers, the groups' first markers in increasing order).
        var kept: [MarkPlan.SpreadGroup] = []
        for (gi, var g) in plan.spreadGroups.enumerated() {
            guard let p = chosen[gi] else { continue }
            g.layout = candidates[gi][p].layout
            kept.append(g)
        }
        if anyDropped {
            let byFirst = kept.indices.sorted { kept[$0].firstMarker < kept[$1].firstMarker }
            var next = 0, w = 0
            for k in markerPoint.indices where !drop[k] {
                while next < byFirst.count && kept[byFirst[next]].firstMarker == k {
                    kept[byFirst[next]].firstMarker = w; next += 1
                }
                markerPoint[w] = markerPoint[k]; markerX[w] = markerX[k]; markerY[w] = markerY[k]
                w += 1
            }
            markerPoint.removeLast(markerPoint.count - w)
            markerX.removeLast(markerX.count - w)
            markerY.removeLast(markerY.count - w)
        }
        drop = []
        swap(&markerPoint, &plan.markerPoint); swap(&markerX, &plan.markerX); swap(&markerY, &plan.markerY)
        plan.spreadGroups = kept
        // Counted (for the summary and the warning) only where a reader can see them: a group off
        // the image has no room by definition (its layouts cannot stay inside), and an empty map
        // of a view given by hand warned of groups "with no room" it did not show.
        // A bubble is shown when its disc's box touches the image, a stack when one of its
        // markers' boxes does (as `MapLayout.markers` culls them).
        func shown(_ gi: Int) -> Bool {
            let g = groups[gi]
            if stacked[gi] { return stackBoxes(g).contains { $0.intersects(image) } }
            let r = bubbleRadius(g)
            return g.x + r >= 0 && g.x - r <= v.width && g.y + r >= 0 && g.y - r <= v.height
        }
        plan.spreadFallbacks += chosen.indices.filter { chosen[$0] == nil && !stacked[$0] && shown($0) }.count
        plan.spreadStacked += stacked.indices.filter { stacked[$0] && shown($0) }.count
        return count
    }

    private static func union(_ boxes: [Rect]) -> Rect? {
        guard var x0 = boxes.first?.x else { return nil }
        var y0 = boxes[0].y, x1 = boxes[0].maxX, y1 = boxes[0].maxY
        for b in boxes { x0 = min(x0, b.x); y0 = min(y0, b.y); x1 = max(x1, b.maxX); y1 = max(y1, b.maxY) }
        return Rect(x: x0, y: y0, width: x1 - x0, height: y1 - y0)
    }
}
