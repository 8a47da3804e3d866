/// Spread groups take room honestly: a group whose spread markers would leave the image, or cover
/// a bubble, another group's markers or another marker's head, is drawn as a bubble with its count
/// instead (its "fallback"). Runs on the final view, after any refit.
///
/// Groups are taken in plan order (by first member), each against the image, every bubble, every
/// unspread marker and the groups kept before it.
/// - Complexity: one pass over the markers plus, per round, O(g · m + b) through a grid of 64 px
///   cells (g groups, b bubbles, m marks near a group); no pairwise scans.
public enum SpreadFallback {
    /// Applies the fallback; returns how many groups fell back.
    @discardableResult
    public static func apply(to plan: inout MarkPlan, data: ProjectedPoints, viewport v: Viewport,
                             bubbles style: Style.Cluster, naming: Bool) -> Int {
        guard !plan.spreadGroups.isEmpty else { return 0 }
        let image = Rect(x: 0, y: 0, width: v.width, height: v.height)
        func box(_ k: Int) -> Rect {
            let e = data.styles.symbols[Int(data.styles.index[plan.markerPoint[k]])].extent
            return Rect(x: plan.markerX[k] - e.left, y: plan.markerY[k] - e.top, width: e.left + e.right, height: e.top + e.bottom)
        }
        // Everything is checked through a coarse grid of 64 px cells: unspread markers only in the
        // cells the groups reach (one pass over the markers), bubbles and kept groups as boxes.
        let cell = 64.0
        func key(_ cx: Int, _ cy: Int) -> Int { cy &* 100_003 &+ cx }
        func cells(_ r: Rect, _ body: (Int) -> Void) {
            let x0 = Int((r.x / cell).rounded(.down)), x1 = Int((r.maxX / cell).rounded(.down))
            let y0 = Int((r.y / cell).rounded(.down)), y1 = Int((r.maxY / cell).rounded(.down))
            for cy in y0...y1 { for cx in x0...x1 { body(key(cx, cy)) } }
        }
        var inGroup = [Bool](repeating: false, count: plan.markerPoint.count)
        var groupBoxes: [[Rect]] = []
        var reach = Set<Int>()
        for g in plan.spreadGroups {
            let range = g.firstMarker..<(g.firstMarker + g.members.count)
            for k in range { inGroup[k] = true }
            let boxes = range.map(box)
            groupBoxes.append(boxes)
            for a in boxes { cells(Rect(x: a.x - cell, y: a.y - cell, width: a.width + 2 * cell, height: a.height + 2 * cell)) { reach.insert($0) } }
        }
        // Small dots (circles and squares <= 8 px) overlap each other anyway in dense areas: only
        // pins and larger marks count as heads a group must not cover.
        let head = data.styles.symbols.map { $0.shape == .pin || $0.size > 8 }
        // The markers of the reached 64 px cells, bucketed again in 8 px cells, each with the hull
        // of its boxes: a tight downtown stacks thousands of markers in one cell, and a group
        // ringed around it must not scan them all for each of its boxes.
        let fine = 8.0, perCell = Int(cell / fine)
        func fineKey(_ fx: Int, _ fy: Int) -> Int { fy &* 4_194_304 &+ fx }
        var fineIndex: [Int: Int] = [:]
        var hulls: [(minX: Double, minY: Double, maxX: Double, maxY: Double)] = [], lists: [[Rect]] = []
        var reachExtent = 0.0   // the largest extent of a head symbol, for which fine cells to look at
        for (i, sym) in data.styles.symbols.enumerated() where head[i] {
            let e = sym.extent
            reachExtent = max(reachExtent, e.left, e.right, e.top, e.bottom)
        }
        reachExtent += 1
        for k in plan.markerPoint.indices where !inGroup[k] && head[Int(data.styles.index[plan.markerPoint[k]])] {
            let x = plan.markerX[k], y = plan.markerY[k]
            guard x.isFinite, y.isFinite, abs(x) < 1e7, abs(y) < 1e7 else { continue }
            let c = key(Int((x / cell).rounded(.down)), Int((y / cell).rounded(.down)))
            guard reach.contains(c) else { continue }
            let f = fineKey(Int((x / fine).rounded(.down)), Int((y / fine).rounded(.down)))
            let b = box(k)
            if let n = fineIndex[f] {
                lists[n].append(b)
                hulls[n] = (min(hulls[n].minX, b.x), min(hulls[n].minY, b.y), max(hulls[n].maxX, b.maxX), max(hulls[n].maxY, b.maxY))
            } else {
                fineIndex[f] = lists.count
                lists.append([b]); hulls.append((b.x, b.y, b.maxX, b.maxY))
            }
        }
        /// Whether `a` covers an unspread marker's head: the markers of the 64 px cells around it,
        /// looked up through the 8 px cells their anchors could be in.
        func hitsMarker(_ a: Rect) -> Bool {
            let grown = Rect(x: a.x - cell, y: a.y - cell, width: a.width + 2 * cell, height: a.height + 2 * cell)
            let cx0 = Int((grown.x / cell).rounded(.down)), cx1 = Int((grown.maxX / cell).rounded(.down))
            let cy0 = Int((grown.y / cell).rounded(.down)), cy1 = Int((grown.maxY / cell).rounded(.down))
            // A marker box meets `a` only when its anchor is within its extent of `a`.
            let fx0 = max(cx0 * perCell, Int(((a.x - reachExtent) / fine).rounded(.down)))
            let fx1 = min(cx1 * perCell + perCell - 1, Int(((a.maxX + reachExtent) / fine).rounded(.down)))
            let fy0 = max(cy0 * perCell, Int(((a.y - reachExtent) / fine).rounded(.down)))
            let fy1 = min(cy1 * perCell + perCell - 1, Int(((a.maxY + reachExtent) / fine).rounded(.down)))
            guard fx0 <= fx1, fy0 <= fy1 else { return false }
            for fy in fy0...fy1 {
                for fx in fx0...fx1 {
                    guard let n = fineIndex[fineKey(fx, fy)] else { continue }
                    let h = hulls[n]
                    guard h.minX < a.maxX && a.x < h.maxX && h.minY < a.maxY && a.y < h.maxY else { continue }
                    if lists[n].contains(where: { $0.intersects(a) }) { return true }
                }
            }
            return false
        }
        // What does not change between rounds (the image, the unspread markers) is checked once
        // per group, not once per round: the rounds only see bubbles and kept groups change.
        let roomAlone = groupBoxes.map { boxes in
            boxes.allSatisfy { image.contains($0) } && !boxes.contains(where: hitsMarker)
        }
        var fallback = [Bool](repeating: false, count: plan.spreadGroups.count)
        // Repeat until stable: a group that falls back becomes a bubble, which may leave no room
        // for a group kept earlier. At most one round per group.
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
            for b in plan.bubbles {
                let r = b.radius + style.strokeWidth / 2
                add(Rect(x: b.x - r, y: b.y - r, width: 2 * r, height: 2 * r))
            }
            for (gi, g) in plan.spreadGroups.enumerated() where fallback[gi] {
                let r = style.step(for: g.members.count).radius + style.strokeWidth / 2
                add(Rect(x: g.x - r, y: g.y - r, width: 2 * r, height: 2 * r))
            }
            for gi in plan.spreadGroups.indices where !fallback[gi] {
                let boxes = groupBoxes[gi]
                let ok = roomAlone[gi] && !boxes.contains(where: hitsObstacle)
                if ok { boxes.forEach(add) } else { fallback[gi] = true; changed = true }
            }
        }
        let count = fallback.filter { $0 }.count
        guard count > 0 else { return 0 }
        // Rebuild the plan without the fallen-back groups' markers; each becomes a bubble.
        var out = MarkPlan()
        out.bubbles = plan.bubbles
        var drop = [Bool](repeating: false, count: plan.markerPoint.count)
        for (gi, g) in plan.spreadGroups.enumerated() where fallback[gi] {
            for k in g.firstMarker..<(g.firstMarker + g.members.count) { drop[k] = true }
            out.bubbles.append(.init(x: g.x, y: g.y, count: g.members.count, clusterID: nil, aggregates: [:],
                                     representative: naming ? g.members.min() : nil, style: style))
        }
        var newIndex = [Int](repeating: -1, count: plan.markerPoint.count)
        for k in plan.markerPoint.indices where !drop[k] {
            newIndex[k] = out.markerPoint.count
            out.markerPoint.append(plan.markerPoint[k]); out.markerX.append(plan.markerX[k]); out.markerY.append(plan.markerY[k])
        }
        for (gi, var g) in plan.spreadGroups.enumerated() where !fallback[gi] {
            g.firstMarker = newIndex[g.firstMarker]
            out.spreadGroups.append(g)
        }
        out.spreadFallbacks = plan.spreadFallbacks + count
        plan = out
        return count
    }
}
