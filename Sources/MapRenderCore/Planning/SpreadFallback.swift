import Foundation

/// One encoding per stack (a spread group: points sharing one coordinate): spread while a reader
/// can count it, else a count on its point (issue 47).
///
/// A group is spread (legs from its true position to each member) only when one of its layouts
/// (`SpreadLayout`: the planned ring or spiral, a tight ring, a packed spiral) has room: every
/// marker and every leg inside the image and the world (never in the letterbox), the true
/// position too (so a leg never leaves the image), and no marker or leg on another mark (a pin
/// or a marker over 8 px not in a group, a bubble, or a group kept before it). A layout crossing
/// the image's edge is first moved inside as a whole (its legs still start at the true position).
/// A group none of them fits is a bubble with its count on its true position; a group of 2 to
/// `stackMaximum` gets a small badge (`badgeScale` of the style's radius), never one pin seeming
/// alone. The exceptions, drawn stacked (`MarkPlan.spreadStacked`): a group of at most
/// `stackMaximum` small dots (circles and squares of at most 8 px, no pin), since on a dot density
/// map overlapping dots are the encoding; and a group of at most `stackMaximum` pins in a carpet of
/// pins (every pixel of its box under other pins: `crowdedShare`), where no pin reads as one point
/// anyway: 1M pins with 2% exact duplicates would otherwise draw 19,000 "2" badges over the carpet
/// (and take three times as long).
///
/// The passes, each a function tested on its own (`SpreadFallbackPassTests`):
/// 1. `candidates`: each group's layouts, moved inside the frame, with their marker boxes and
///    leg boxes (a pure function of the group; on both cores for many groups);
/// 2. `fixedMarks`: the marks that do not change (unspread pins and large markers) as an
///    `ObstacleRaster` (four reads a question, however dense; conservative by a pixel);
/// 3. `roomAlone`: per candidate, whether it fits the frame and misses the fixed marks;
/// 4. `choose`: rounds over the groups in plan order on one `CollisionIndex` of what changes
///    (bubbles, fallen-back groups, kept groups and their legs) until no group falls back;
/// 5. `rebuild`: the plan in place (kept groups' layouts, fallen-back groups' bubbles).
/// Runs on the final view, after any refit.
/// - Complexity: O(m + W·H) for the raster (m markers, W·H image pixels), O(g · L · (k + l)) for
///   the room alone (g groups, L ≤ 3 layouts, k members, l leg boxes), and per round
///   O(g · L · (k + l) · e) in the index (e entries a cell, few). Rounds: at most one per group.
public enum SpreadFallback {
    /// One way to draw a group: its layout, each member's anchor and box, and its legs as boxes.
    struct Candidate {
        var layout: SpreadLayout
        var x: [Double], y: [Double]
        var boxes: [Rect]
        /// Small squares along each leg (`legBoxes`), so no leg crosses another mark.
        var legs: [Rect]
        /// Whether the anchors differ from the plan's (another layout, or moved inside the image).
        var moved: Bool
    }

    /// What became of a group.
    enum Outcome: Equatable {
        /// Spread with its candidate of this index.
        case spread(Int)
        /// A bubble with its count (a badge for up to `stackMaximum` members).
        case bubble
        /// Its markers at their true position (small dots, or pins in a carpet of pins).
        case stacked
    }

    /// The largest group shown as a badge (or stacked: small dots, a carpet of pins) when it cannot spread.
    public static let stackMaximum = 4
    /// A small group whose box (its members at their true position) has at least this share of
    /// its pixels under other pins is in a carpet of pins: drawn stacked, not as a badge.
    public static let crowdedShare = 1.0
    /// A badge's radius as a share of the style's radius for its count.
    public static let badgeScale = 0.7
    /// How far outside the frame a true position may lie and still be spread, CSS px: a leg's
    /// start within half a pixel of the edge is drawn on the edge's pixels (a point on a `--bbox`
    /// edge projects there give or take rounding).
    static let edgeTolerance = 0.5
    /// Leg boxes: squares of this side (CSS px, the leg and its anti-aliasing) every `legStep` px.
    static let legSquare = 2.0, legStep = 3.0

    /// Groups at least, for their candidates and their room alone to be found in parts on both
    /// cores (below, one thread). Tests set it lower.
    @TaskLocal static var partsFrom = 2048

    /// Applies the layouts and the fallback; returns how many groups fell back to a bubble, on the
    /// image or not (the plan's `spreadFallbacks` counts those on the image only).
    @discardableResult
    public static func apply(to plan: inout MarkPlan, data: ProjectedPoints, viewport v: Viewport,
                             bubbles style: Style.Cluster, naming: Bool,
                             rank: (column: Int, smallerFirst: Bool)? = nil, label: Int? = nil) -> Int {
        guard !plan.spreadGroups.isEmpty else { return 0 }
        let frame = viewFrame(v)
        let candidates = candidates(plan: plan, data: data, frame: frame)
        let fixed = fixedMarks(plan: plan, data: data, viewport: v)
        let alone = roomAlone(candidates, groups: plan.spreadGroups, frame: frame, fixed: fixed)
        let head = data.styles.symbols.map(isHead)
        // Small groups that stack rather than show a badge: of small dots, or in a carpet of pins.
        let stacksAsIs = plan.spreadGroups.map { g in
            g.members.count <= stackMaximum && (!g.members.contains { head[Int(data.styles.index[$0])] }
                || crowded(stackBoxes(g, data: data, viewport: v), fixed: fixed))
        }
        let outcomes = choose(groups: plan.spreadGroups, candidates: candidates, alone: alone,
                              bubbles: plan.bubbles.map { ($0.x, $0.y, $0.radius + style.strokeWidth / 2) },
                              viewport: v, style: style, stacksAsIs: stacksAsIs,
                              stackBoxes: { stackBoxes($0, data: data, viewport: v) })
        return rebuild(&plan, outcomes: outcomes, candidates: candidates, data: data, viewport: v, style: style,
                       naming: naming, rank: rank, label: label)
    }

    // MARK: - Pass 1: candidates

    /// Where a spread may draw: the image, less the letterbox (`WorldFrame`) when the world does
    /// not cover it.
    static func viewFrame(_ v: Viewport) -> Rect {
        let image = Rect(x: 0, y: 0, width: v.width, height: v.height)
        guard let w = WorldFrame.rect(viewport: v) else { return image }
        let x0 = max(0, w.x), y0 = max(0, w.y), x1 = min(v.width, w.maxX), y1 = min(v.height, w.maxY)
        return Rect(x: x0, y: y0, width: max(0, x1 - x0), height: max(0, y1 - y0))
    }

    /// Every group's candidate layouts (`candidates(for:...)`), on both cores for many groups,
    /// each part with its own cache of offsets, so any number of parts gives the same candidates.
    static func candidates(plan: MarkPlan, data: ProjectedPoints, frame: Rect) -> [[Candidate]] {
        let groups = plan.spreadGroups, plannedX = plan.markerX, plannedY = plan.markerY
        var out = [[Candidate]](repeating: [], count: groups.count)
        out.withUnsafeMutableBufferPointer { out in
            inParts(groups.count, minimum: partsFrom) { range in
                var cache: [OffsetKey: [(dx: Double, dy: Double)]?] = [:]
                for gi in range {
                    let g = groups[gi]
                    let symbols = g.members.map { data.styles.symbols[Int(data.styles.index[$0])] }
                    let range = g.firstMarker..<(g.firstMarker + g.members.count)
                    out[gi] = candidates(for: g, symbols: symbols, plannedX: range.map { plannedX[$0] },
                                         plannedY: range.map { plannedY[$0] }, frame: frame, cache: &cache)
                }
            }
        }
        return out
    }

    /// Offsets per layout, size and extent: 1M points with 2% duplicates make thousands of groups
    /// of two with the same symbol.
    struct OffsetKey: Hashable { var layout: UInt8, count: Int, t: UInt64, r: UInt64, b: UInt64, l: UInt64 }

    /// A group's layouts in order of preference: the planned one (`plannedX`, `plannedY`), then the
    /// compact ones, each moved inside `frame` as a whole when it crosses its edge (only when the
    /// true position lies in the frame, `onFrame`; a layout larger than the frame is left as it
    /// is, and will not fit).
    static func candidates(for g: MarkPlan.SpreadGroup, symbols: [MarkerSymbol], plannedX: [Double], plannedY: [Double],
                           frame: Rect, cache: inout [OffsetKey: [(dx: Double, dy: Double)]?]) -> [Candidate] {
        var ext = EdgeInsets.zero
        for s in symbols {
            let e = s.extent
            ext = EdgeInsets(top: max(ext.top, e.top), right: max(ext.right, e.right),
                             bottom: max(ext.bottom, e.bottom), left: max(ext.left, e.left))
        }
        let centreInside = onFrame(g, frame)
        var list: [Candidate] = []
        for layout in SpreadLayout.allCases {
            var xs: [Double], ys: [Double]
            if layout == .planned {
                xs = plannedX; ys = plannedY
            } else {
                let k = OffsetKey(layout: layout.rawValue, count: g.members.count, t: ext.top.bitPattern,
                                  r: ext.right.bitPattern, b: ext.bottom.bitPattern, l: ext.left.bitPattern)
                let offsets: [(dx: Double, dy: Double)]?
                if let cached = cache[k] { offsets = cached } else {
                    offsets = layout.offsets(count: g.members.count, extent: ext)
                    cache[k] = .some(offsets)
                }
                guard let offsets else { continue }
                xs = offsets.map { g.x + $0.dx }; ys = offsets.map { g.y + $0.dy }
            }
            var boxes = xs.indices.map { box(symbols[$0].extent, xs[$0], ys[$0]) }
            var shifted = false
            if centreInside, let all = union(boxes), let shift = SpreadLayout.shiftedInside(all, image: frame), shift != (0, 0) {
                shifted = true
                for k in xs.indices {
                    xs[k] += shift.dx; ys[k] += shift.dy
                    boxes[k] = Rect(x: boxes[k].x + shift.dx, y: boxes[k].y + shift.dy, width: boxes[k].width, height: boxes[k].height)
                }
            }
            var legs: [Rect] = []
            for k in xs.indices { legs += legBoxes(fromX: g.x, fromY: g.y, toX: xs[k], toY: ys[k]) }
            list.append(Candidate(layout: layout, x: xs, y: ys, boxes: boxes, legs: legs, moved: shifted || layout != .planned))
        }
        return list
    }

    /// Squares of `legSquare` px centred every at most `legStep` px along a leg, both ends
    /// included: a leg crossing a mark at least `legStep` px across meets one of them.
    static func legBoxes(fromX x0: Double, fromY y0: Double, toX x1: Double, toY y1: Double) -> [Rect] {
        let dx = x1 - x0, dy = y1 - y0
        let length = (dx * dx + dy * dy).squareRoot()
        guard length.isFinite else { return [] }
        let steps = max(1, Int((length / legStep).rounded(.up)))
        let h = legSquare / 2
        return (0...steps).map { s in
            let t = Double(s) / Double(steps)
            return Rect(x: x0 + dx * t - h, y: y0 + dy * t - h, width: legSquare, height: legSquare)
        }
    }

    // MARK: - Pass 2: the fixed marks

    /// Whether a mark is one a spread must not cover: a pin, or a marker over 8 px. Small dots
    /// overlap each other anyway in dense areas.
    static func isHead(_ s: MarkerSymbol) -> Bool { s.shape == .pin || s.size > 8 }

    /// The boxes of every marker not in a spread group whose symbol is a head (`isHead`), on a
    /// raster of the image (a box reaching past the image is clipped: a spread's boxes lie inside).
    static func fixedMarks(plan: MarkPlan, data: ProjectedPoints, viewport v: Viewport) -> ObstacleRaster {
        var inGroup = [Bool](repeating: false, count: plan.markerPoint.count)
        for g in plan.spreadGroups { for k in g.firstMarker..<(g.firstMarker + g.members.count) { inGroup[k] = true } }
        let head = data.styles.symbols.map(isHead), extents = data.styles.symbols.map(\.extent)
        var raster = ObstacleRaster(width: v.width, height: v.height)
        for k in plan.markerPoint.indices where !inGroup[k] {
            let s = Int(data.styles.index[plan.markerPoint[k]])
            guard head[s] else { continue }
            raster.add(box(extents[s], plan.markerX[k], plan.markerY[k]))
        }
        raster.finish()
        return raster
    }

    // MARK: - Pass 3: room alone

    /// Per group and candidate: whether its markers and legs lie in `frame` and miss the fixed
    /// marks. A leg lies in the frame when both its ends do (the frame is convex): the true
    /// position and its marker's anchor, inside the marker's box. (Its boxes are not asked: a
    /// true position on the image's edge would put half its first box outside.) What the rounds
    /// of `choose` do not change, asked once.
    static func roomAlone(_ candidates: [[Candidate]], groups: [MarkPlan.SpreadGroup], frame: Rect,
                         fixed: ObstacleRaster) -> [[Bool]] {
        // Forgiving the rounding of a layout moved onto the edge.
        let inside = Rect(x: frame.x - 1e-6, y: frame.y - 1e-6, width: frame.width + 2e-6, height: frame.height + 2e-6)
        var out = [[Bool]](repeating: [], count: candidates.count)
        out.withUnsafeMutableBufferPointer { out in
            inParts(candidates.count, minimum: partsFrom) { range in
                for gi in range {
                    let g = groups[gi]
                    let centre = onFrame(g, frame)
                    out[gi] = candidates[gi].map { c in
                        centre && c.boxes.allSatisfy { inside.contains($0) && fixed.isFree($0) }
                            && c.legs.allSatisfy { fixed.isFree($0) }
                    }
                }
            }
        }
        return out
    }

    /// Whether a small group's boxes lie in a carpet of pins: at least `crowdedShare` of their
    /// pixels (those on the image) covered by the fixed marks.
    static func crowded(_ boxes: [Rect], fixed: ObstacleRaster) -> Bool {
        var covered = 0, area = 0
        for b in boxes {
            covered += fixed.coveredPixels(in: b)
            let x0 = max(0, b.x.rounded(.down)), x1 = min(Double(fixed.width), b.maxX.rounded(.up))
            let y0 = max(0, b.y.rounded(.down)), y1 = min(Double(fixed.height), b.maxY.rounded(.up))
            if x1 > x0 && y1 > y0 { area += Int((x1 - x0) * (y1 - y0)) }
        }
        return area > 0 && Double(covered) >= crowdedShare * Double(area)
    }

    // MARK: - Pass 4: choose

    /// Each group's outcome: groups in plan order take their first candidate with room alone
    /// that meets nothing already placed (the plan's bubbles, fallen-back groups, kept groups and
    /// their legs) in one `CollisionIndex`; a group with none falls back (a bubble or badge on its
    /// position, or stacked where `stacksAsIs`), which may leave no room for a group kept before
    /// it, so rounds repeat until none falls back.
    /// - Parameters:
    ///   - bubbles: the plan's bubbles as circles, their stroke included.
    ///   - stackBoxes: a group's boxes when stacked at its true position.
    static func choose(groups: [MarkPlan.SpreadGroup], candidates: [[Candidate]], alone: [[Bool]],
                       bubbles: [(x: Double, y: Double, r: Double)], viewport v: Viewport, style: Style.Cluster,
                       stacksAsIs: [Bool], stackBoxes: (MarkPlan.SpreadGroup) -> [Rect]) -> [Outcome] {
        var outcome = [Outcome](repeating: .spread(0), count: groups.count)
        var index = CollisionIndex(width: v.width, height: v.height, bounds: nil, cellSize: 32)
        func fallback(_ gi: Int) -> Outcome { stacksAsIs[gi] ? .stacked : .bubble }
        var changed = true
        while changed {
            changed = false
            index.removeAll()
            for b in bubbles { index.insert(Rect(x: b.x - b.r, y: b.y - b.r, width: 2 * b.r, height: 2 * b.r)) }
            for (gi, g) in groups.enumerated() {
                switch outcome[gi] {
                case .stacked: index.insert(contentsOf: stackBoxes(g))
                case .bubble: index.insert(bubbleBox(g, style: style))
                case .spread: break
                }
            }
            for gi in groups.indices {
                guard case .spread = outcome[gi] else { continue }
                let pick = candidates[gi].indices.first { p in
                    alone[gi][p] && candidates[gi][p].boxes.allSatisfy(index.canPlace)
                        && candidates[gi][p].legs.allSatisfy(index.canPlace)
                }
                if let p = pick {
                    index.insert(contentsOf: candidates[gi][p].boxes)
                    index.insert(contentsOf: candidates[gi][p].legs)
                    outcome[gi] = .spread(p)
                } else {
                    outcome[gi] = fallback(gi)
                    if outcome[gi] == .stacked { index.insert(contentsOf: stackBoxes(groups[gi])) } else { index.insert(bubbleBox(groups[gi], style: style)) }
                    changed = true
                }
            }
        }
        return outcome
    }

    /// The radius a fallen-back group's bubble is drawn with (stroke not included): a badge's
    /// for up to `stackMaximum` members, the style's for its count above.
    public static func bubbleRadius(count: Int, style: Style.Cluster) -> Double {
        let r = style.step(for: count).radius
        return count <= stackMaximum ? r * badgeScale : r
    }

    /// A fallen-back group's bubble's square, its stroke included.
    static func bubbleBox(_ g: MarkPlan.SpreadGroup, style: Style.Cluster) -> Rect {
        let r = bubbleRadius(count: g.members.count, style: style) + style.strokeWidth / 2
        return Rect(x: g.x - r, y: g.y - r, width: 2 * r, height: 2 * r)
    }

    /// A stacked group's boxes: each member's own symbol at its own true position.
    static func stackBoxes(_ g: MarkPlan.SpreadGroup, data: ProjectedPoints, viewport v: Viewport) -> [Rect] {
        g.members.map { i in
            let p = v.pixel(x: data.x[i], y: data.y[i])
            return box(data.styles.symbols[Int(data.styles.index[i])].extent, p.x, p.y)
        }
    }

    // MARK: - Pass 5: rebuild

    /// Writes the outcomes into the plan in place: fallen-back groups' markers become one bubble
    /// each (named as `BubbleNaming` says), stacked groups' markers go to their true positions,
    /// kept groups take their chosen layout. The marker arrays are taken out of the plan, edited
    /// and compacted in place and put back (no copies of a million-entry array). Returns how many
    /// groups became bubbles.
    static func rebuild(_ plan: inout MarkPlan, outcomes: [Outcome], candidates: [[Candidate]], data: ProjectedPoints,
                        viewport v: Viewport, style: Style.Cluster, naming: Bool,
                        rank: (column: Int, smallerFirst: Bool)?, label: Int?) -> Int {
        let groups = plan.spreadGroups
        let count = outcomes.filter { $0 == .bubble }.count
        let stacks = outcomes.filter { $0 == .stacked }.count
        let relaid = outcomes.indices.contains { gi in
            if case .spread(let p) = outcomes[gi] { return candidates[gi][p].moved } else { return false }
        }
        guard count > 0 || stacks > 0 || relaid else { return 0 }
        var markerPoint: [Int] = [], markerX: [Double] = [], markerY: [Double] = []
        swap(&markerPoint, &plan.markerPoint); swap(&markerX, &plan.markerX); swap(&markerY, &plan.markerY)
        var drop = [Bool](repeating: false, count: count > 0 ? markerPoint.count : 0)
        var kept: [MarkPlan.SpreadGroup] = []
        for (gi, g) in groups.enumerated() {
            let markers = g.firstMarker..<(g.firstMarker + g.members.count)
            switch outcomes[gi] {
            case .stacked:
                // Plain markers at their true positions (no legs: no longer a spread group).
                for (m, k) in markers.enumerated() {
                    let p = v.pixel(x: data.x[g.members[m]], y: data.y[g.members[m]])
                    markerX[k] = p.x; markerY[k] = p.y
                }
            case .bubble:
                for k in markers { drop[k] = true }
                // Without a ranking, after the label value most members share (`BubbleNaming.sharedLabel`).
                let name = !naming ? nil : rank == nil
                    ? label.flatMap { BubbleNaming.sharedLabel(of: g.members, properties: data.points.properties, column: $0) }
                    : BubbleNaming.representative(of: g.members, properties: data.points.properties, rank: rank)
                var b = MarkPlan.Bubble(x: g.x, y: g.y, count: g.members.count, clusterID: nil, aggregates: [:],
                                        representative: name, style: style)
                b.radius = bubbleRadius(count: g.members.count, style: style)
                b.badge = g.members.count <= stackMaximum
                b.membersShareName = BubbleNaming.allShare(g.members, representative: name, properties: data.points.properties,
                                                           column: naming ? label : nil)
                plan.bubbles.append(b)
            case .spread(let p):
                let c = candidates[gi][p]
                for (m, k) in markers.enumerated() { markerX[k] = c.x[m]; markerY[k] = c.y[m] }
                var g = g
                g.layout = c.layout
                kept.append(g)
            }
        }
        if count > 0 {
            // The kept groups' first markers after the compaction, found in one pass.
            let byFirst = kept.indices.sorted { kept[$0].firstMarker < kept[$1].firstMarker }
            var next = 0, w = 0
            for k in markerPoint.indices where !drop[k] {
                while next < byFirst.count && kept[byFirst[next]].firstMarker == k { kept[byFirst[next]].firstMarker = w; next += 1 }
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
        // Counted (for the summary and the warning) only where a reader can see them: a bubble
        // when its disc's box touches the image, a stack when one of its markers' boxes does (as
        // `MapLayout.markers` culls them).
        let image = Rect(x: 0, y: 0, width: v.width, height: v.height)
        for (gi, g) in groups.enumerated() {
            switch outcomes[gi] {
            case .bubble where bubbleBox(g, style: style).intersects(image): plan.spreadFallbacks += 1
            case .stacked where stackBoxes(g, data: data, viewport: v).contains(where: { $0.intersects(image) }): plan.spreadStacked += 1
            default: break
            }
        }
        return count
    }

    // MARK: - Helpers

    /// Whether a group's true position lies in `frame`, or within `edgeTolerance` of it.
    static func onFrame(_ g: MarkPlan.SpreadGroup, _ frame: Rect) -> Bool {
        let t = edgeTolerance
        return g.x >= frame.x - t && g.x <= frame.maxX + t && g.y >= frame.y - t && g.y <= frame.maxY + t
    }

    /// The box of a mark of extent `e` anchored at (x, y).
    static func box(_ e: EdgeInsets, _ x: Double, _ y: Double) -> Rect {
        Rect(x: x - e.left, y: y - e.top, width: e.left + e.right, height: e.top + e.bottom)
    }

    private static func union(_ boxes: [Rect]) -> Rect? {
        guard var x0 = boxes.first?.x else { return nil }
        var y0 = boxes[0].y, x1 = boxes[0].maxX, y1 = boxes[0].maxY
        for b in boxes { x0 = min(x0, b.x); y0 = min(y0, b.y); x1 = max(x1, b.maxX); y1 = max(y1, b.maxY) }
        return Rect(x: x0, y: y0, width: x1 - x0, height: y1 - y0)
    }
}
