/// Spread groups take room honestly: a group whose spread markers would leave the image, or cover
/// a bubble, another group's markers or another marker's head, is drawn as a bubble with its count
/// instead (its "fallback"). Runs on the final view, after any refit.
///
/// Groups are kept largest first is not attempted: they are taken in plan order (by first member),
/// each against the image, every bubble, every unspread marker and the groups kept before it.
/// - Complexity: O(g · (g + b) + g · m) for g groups, b bubbles, m markers near a group (a grid of
///   unspread markers bounds the head checks); independent of points elsewhere.
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
        // Markers not in any group, bucketed in a coarse grid for the head checks.
        var inGroup = [Bool](repeating: false, count: plan.markerPoint.count)
        for g in plan.spreadGroups { for k in g.firstMarker..<(g.firstMarker + g.members.count) { inGroup[k] = true } }
        let cell = 64.0
        var grid: [Int: [Int]] = [:]
        func key(_ cx: Int, _ cy: Int) -> Int { cy &* 100_003 &+ cx }
        for k in plan.markerPoint.indices where !inGroup[k] {
            let x = plan.markerX[k], y = plan.markerY[k]
            guard x > -cell, y > -cell, x < v.width + cell, y < v.height + cell else { continue }
            grid[key(Int((x / cell).rounded(.down)), Int((y / cell).rounded(.down))), default: []].append(k)
        }
        var fallback = [Bool](repeating: false, count: plan.spreadGroups.count)
        // Repeat until stable: a group that falls back becomes a bubble, which may leave no room
        // for a group kept earlier. At most one round per group.
        var changed = true
        while changed {
        changed = false
        var kept: [Rect] = []   // marker boxes of groups kept so far
        var bubbleBoxes = plan.bubbles.map { b -> Rect in
            let r = b.radius + style.strokeWidth / 2
            return Rect(x: b.x - r, y: b.y - r, width: 2 * r, height: 2 * r)
        }
        for (gi, g) in plan.spreadGroups.enumerated() where fallback[gi] {
            let r = style.step(for: g.members.count).radius + style.strokeWidth / 2
            bubbleBoxes.append(Rect(x: g.x - r, y: g.y - r, width: 2 * r, height: 2 * r))
        }
        for (gi, g) in plan.spreadGroups.enumerated() where !fallback[gi] {
            let range = g.firstMarker..<(g.firstMarker + g.members.count)
            let boxes = range.map(box)
            var ok = boxes.allSatisfy { image.contains($0) }
            if ok { ok = !boxes.contains { a in bubbleBoxes.contains { a.intersects($0) } } }
            if ok { ok = !boxes.contains { a in kept.contains { a.intersects($0) } } }
            if ok {
                outer: for a in boxes {
                    let x0 = Int((a.x / cell).rounded(.down)) - 1, x1 = Int((a.maxX / cell).rounded(.down)) + 1
                    let y0 = Int((a.y / cell).rounded(.down)) - 1, y1 = Int((a.maxY / cell).rounded(.down)) + 1
                    for cy in y0...y1 { for cx in x0...x1 {
                        for k in grid[key(cx, cy)] ?? [] where box(k).intersects(a) { ok = false; break outer }
                    } }
                }
            }
            if ok { kept += boxes } else { fallback[gi] = true; changed = true }
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
