import Foundation

/// Places one label (or callout) per drawn marker without overlaps, in priority order.
///
/// Every marker, bubble, spread leg and the attribution are obstacles; each label takes the first
/// free position around its marker (right, left, above, below, then the diagonals), or is dropped.
/// Plain labels (`placePlain`) and callouts (`placeCallouts`) are two placements over the same
/// candidates: the drawn markers that have a text, in draw order.
enum LabelLayout {
    /// The smaller type's size, as a share of the style's.
    static let smallerType = 5.0 / 6
    /// On a dense dot map, how many of the first labels in priority order that find no side may
    /// move placed labels to other sides to find room (`PlainPlacer.placeByMoving`): the names
    /// that matter.
    static let movableLabels = 120
    /// On a dense dot map, a leading place's dot is at least this far (CSS px) from every
    /// leading place ranked above it: nearer, it reads as part of that place (Foshan beside
    /// Guangzhou). At the world dot map's scale, about 300 km.
    static let leadingSpacing = 8.0
    /// `DenseLabelPlan`: how many of the first point names it plans, and how many steps it searches.
    static let plannedLabels = 150
    static let planIterations = 25_000
    /// `placeByMoving`: how many placed labels one box may push away, how many levels of pushes,
    /// and how many boxes one search may try.
    static let maxBlockers = 3
    static let moveDepth = 3
    static let moveBudget = 250
    /// Cell side (px) of the grid that finds the movable labels under a box.
    static let movableCell = 32.0
    /// A label position covering at most this many small markers is taken without looking further.
    static let fewMarkers = 4
    /// On a dense dot map, what a label box across a coastline costs, in small markers covered.
    static let coastCost = 4
    /// A bubble's name keeps at least this much more room (CSS px) from every other bubble than
    /// from its own, and its centre lies nearer its own bubble than any other (`BubbleDiscs.
    /// isUnambiguous`), so that no reader pairs it with the wrong bubble; with no such position it
    /// is dropped.
    static let ambiguityMargin = 5.0

    /// The boxes halfway between neighbouring sides of a mark, round it from the right through
    /// the top (a label slid half its height up from the right, and so on): on a dense dot map a
    /// name may take them after its eight sides, as a cartographer slides a name along its dot.
    /// Each with the side it is halfway from.
    static func halfwayBoxes(for label: LabelPlacer.Label, gap: Double) -> [(box: Rect, side: LabelSide)] {
        let ring: [LabelSide] = [.right, .topRight, .above, .topLeft, .left, .bottomLeft, .below, .bottomRight]
        return ring.indices.map { k in
            let a = LabelPlacer.box(ring[k], for: label, gap: gap), b = LabelPlacer.box(ring[(k + 1) % ring.count], for: label, gap: gap)
            return (Rect(x: (a.x + b.x) / 2, y: (a.y + b.y) / 2, width: a.width, height: a.height), ring[k])
        }
    }

    /// From point (x, y) to the nearest point of `r` (0 inside).
    static func distance(_ r: Rect, _ x: Double, _ y: Double) -> Double {
        let dx = max(r.x - x, 0, x - r.maxX), dy = max(r.y - y, 0, y - r.maxY)
        return (dx * dx + dy * dy).squareRoot()
    }

    /// `r` grown by `p` on every side.
    static func padded(_ r: Rect, by p: Double) -> Rect {
        p == 0 ? r : Rect(x: r.x - p, y: r.y - p, width: r.width + 2 * p, height: r.height + 2 * p)
    }

    /// The smallest rect holding both.
    static func union(_ a: Rect, _ b: Rect) -> Rect {
        let x0 = min(a.x, b.x), y0 = min(a.y, b.y)
        return Rect(x: x0, y: y0, width: max(a.maxX, b.maxX) - x0, height: max(a.maxY, b.maxY) - y0)
    }

    /// Small dots are soft obstacles (labels may cover a few); pins and larger marks are hard.
    static func isSoft(_ s: MarkerSymbol) -> Bool { s.shape != .pin && s.size <= 8 && s.icon == nil }

    struct Output {
        var items: [SceneItem]
        var dropped: Int
        /// The side each label or callout took.
        var sides = LabelSides()
    }

    /// What both placements read: the label column, its ranking and the label style.
    struct Context {
        var data: ProjectedPoints
        var column: Int
        /// The ranking column (`BubbleNaming.rankColumn`): `--label-priority`, else a
        /// population-like column (larger first) or a rank-like one (smaller first).
        var rank: (column: Int, smallerFirst: Bool)?
        var style: Style.Label
        var font: FontSpec
        var viewport: Viewport
        var obstacles: [Rect]
        var allowOverlap: Bool
        /// The side each label or callout tries first (an animation frame keeps the previous
        /// frame's), and per point index its label's opacity when below 1 (it fades with its marker).
        var hints = LabelSides()
        var opacity: [Int: Double] = [:]
        /// Per bubble representative, its name's opacity when below 1 (`MarkPlan.bubbleLabelOpacity`).
        var bubbleOpacity: [Int: Double] = [:]

        /// The opacity of a point's label or callout: its marker's, quantised as markers are (in
        /// sixteenths); 0 (nothing to draw) below half a step.
        func alpha(_ row: Int) -> Double {
            opacity[row].map(Self.quantised) ?? 1
        }

        /// The opacity of the name of a bubble named after `representative`, quantised as `alpha`.
        func bubbleAlpha(_ representative: Int?) -> Double {
            representative.flatMap { bubbleOpacity[$0] }.map(Self.quantised) ?? 1
        }

        static func quantised(_ a: Double) -> Double { max(0, min(1, (a * 16).rounded() / 16)) }

        /// The texts a bubble's label or callout tries, in order: its representative's text with
        /// the count of the others ("Paris +41"), then the name alone (one member, or members that
        /// all carry the name, `MarkPlan.Bubble.membersShareName`: the name).
        /// nil when the bubble shows no count or is not `nameable` (a bubble growing in or
        /// shrinking away in an animation frame) or its centre is off the image (as a marker is named only when its
        /// head's centre is in it).
        func bubbleTexts(_ b: MarkPlan.Bubble) -> [String]? {
            guard b.showsText, b.nameable, b.x >= 0, b.x <= viewport.width, b.y >= 0, b.y <= viewport.height,
                  let rep = b.representative, let name = text(rep) else { return nil }
            // Every member carries the name (one airport's routes): the name alone. (In an
            // animation frame the count is the one the bubble shows.)
            let count = b.shownCount ?? b.count
            return count > 1 && !b.membersShareName ? ["\(name) +\(count - 1)", name] : [name]
        }

        /// The row's label, cut at `LabelText`'s limit with an ellipsis; nil when empty.
        func text(_ row: Int) -> String? {
            guard let t = data.points.properties.value(column: column, row: row).displayText.map(LabelText.truncated),
                  !t.isEmpty else { return nil }
            return t
        }

        /// Whether `text(row)` is non-nil, for `rows`, in their order. With many rows, read in
        /// row order: the drawn order is north to south, and reading a column of 100k values and
        /// their strings in that order (a cache miss each, and a retain and a release of each
        /// string) took 65 ms of a 100k-point labelled map.
        func haveText(_ rows: [Int]) -> [Bool] {
            guard !rows.isEmpty else { return [] }
            let column = data.points.properties.columns[self.column]
            if rows.count * 4 < column.count { return rows.map { column[$0].hasDisplayText } }
            let byRow = column.map(\.hasDisplayText)
            return rows.map { byRow[$0] }
        }

        /// A bubble label's priority: with a ranking, its representative's (a bubble named after
        /// Delhi ranks as Delhi; one without a ranked representative last); without one, above
        /// every point's 0, so bubbles are named first.
        func bubblePriority(_ b: MarkPlan.Bubble) -> Double {
            guard rank != nil else { return .infinity }
            let p = b.representative.map(priority) ?? -.infinity
            return p.isNaN ? -.infinity : p
        }

        func priority(_ row: Int) -> Double {
            guard let r = rank else { return 0 }
            let p = data.points.properties.value(column: r.column, row: row).numberValue ?? 0
            return r.smallerFirst ? -p : p
        }
    }

    static func place(field: String, drawn: [Int], batch: MarkerBatch, bubbles: [MarkPlan.Bubble] = [],
                      data: ProjectedPoints, style: Style,
                      viewport v: Viewport, obstacles: [Rect], options: LayoutOptions,
                      measurer: TextMeasuring, hints: LabelSides = LabelSides(),
                      opacity: [Int: Double] = [:], bubbleOpacity: [Int: Double] = [:],
                      soft: MarkerDensity? = nil, skip: Set<Int> = [],
                      land: @autoclosure () -> LandMask? = nil, shapes: [ShapeLabels] = []) -> Output {
        let shapeCandidates = shapes.isEmpty || options.labelStyle != .plain ? []
            : ShapeLabelCandidate.make(shapes, viewport: v, rankName: options.labelPriority)
        // Points without the label's field: only the lines' and polygons' labels (if any).
        let col = data.points.properties.columnIndex(field)
        guard col != nil || !shapeCandidates.isEmpty else { return Output(items: [], dropped: 0) }
        let drawn = col == nil ? [] : drawn, bubbles = col == nil ? [] : bubbles
        let ls = style.label
        var context = Context(data: data, column: col ?? 0,
                              rank: BubbleNaming.rankColumn(options.labelPriority, properties: data.points.properties),
                              style: ls, font: FontSpec(family: ls.font, size: ls.size * options.textScale, weight: ls.weight),
                              viewport: v, obstacles: obstacles, allowOverlap: options.allowOverlap)
        context.hints = hints
        context.opacity = opacity
        context.bubbleOpacity = bubbleOpacity
        // A marker drawn past the image's edge (a fixed --bbox cuts through the data; markers
        // are drawn a little beyond it) is named only when the centre of its head is inside the
        // image: a name beside a pin that is not to be seen names nothing on the map.
        var skip = skip
        for (k, i) in drawn.enumerated() {
            let a = batch.labelAnchor(at: k)
            let cx = a.x + a.width / 2, cy = a.y + a.height / 2
            if !(cx >= 0 && cx <= v.width && cy >= 0 && cy <= v.height) { skip.insert(i) }
        }
        switch options.labelStyle {
        case .callout:
            // Callouts keep clear of each bubble's bounding square.
            context.obstacles += bubbles.map(\.box)
            return placeCallouts(drawn: drawn, batch: batch, bubbles: bubbles, context: context,
                                 maxWidth: ls.calloutMaxWidth * options.textScale, measurer: measurer, skip: skip)
        case .plain:
            return placePlain(drawn: drawn, batch: batch, bubbles: bubbles, outline: style.cluster.strokeWidth,
                              context: context, measurer: measurer, soft: soft, skip: skip, land: soft == nil ? nil : land(),
                              shapes: shapeCandidates, leaders: options.leaderLabels)
        }
    }

    /// Callouts: bubbles' first, largest bubble first, named as plain labels name them ("Paris +41",
    /// or "Paris" where that finds no room), pointing at the bubble's edge; then points', highest
    /// priority first (ties in draw order). Each is measured wrapped at `maxWidth`, when its turn
    /// comes and it might fit (`Callout.mightPlace`), and placed by `Callout.place` around its pin
    /// or bubble (the side of its hint first), or dropped.
    /// A callout fades with its marker, as a plain label does (nothing below half a step of the
    /// marker's quantised opacity).
    static func placeCallouts(drawn: [Int], batch: MarkerBatch, bubbles: [MarkPlan.Bubble] = [], context c: Context,
                              maxWidth: Double, measurer: TextMeasuring, skip: Set<Int> = []) -> Output {
        // Per candidate: its priority; where its pointer reaches for and what it must not cover;
        // the point it names (-1 for a bubble) or the bubble and its representative (-1: none; its
        // side is kept under it), and its opacity. Bubbles' texts (the name with the count, then
        // alone) here; a point's is read when its turn comes (most of a dense map's find no room:
        // reading a million up front took a string each).
        var bubbleTexts: [[String]] = [], priorities: [Double] = [], anchors: [(x: Double, y: Double, pin: Rect)] = []
        var owners: [Int] = [], named: [Int] = [], alphas: [Double] = [], representatives: [Int] = []
        // Largest first, equal counts in the plan's order (as plain labels take them).
        let largestFirst = bubbles.indices.sorted {
            bubbles[$0].count != bubbles[$1].count ? bubbles[$0].count > bubbles[$1].count : $0 < $1
        }
        for k in largestFirst {
            let b = bubbles[k]
            let alpha = c.bubbleAlpha(b.representative)
            guard alpha > 0, let texts = c.bubbleTexts(b) else { continue }
            bubbleTexts.append(texts)
            priorities.append(c.bubblePriority(b))
            anchors.append((b.x, b.y, b.box))
            owners.append(-1); named.append(k); alphas.append(alpha); representatives.append(b.representative ?? -1)
        }
        let bubbleCallouts = bubbleTexts.count
        let haveText = c.haveText(drawn)
        for (k, i) in drawn.enumerated() where haveText[k] && !skip.contains(i) {
            let alpha = c.alpha(i)
            guard alpha > 0 else { continue }
            owners.append(i); named.append(-1); alphas.append(alpha)
            let markBox = batch.box(at: k)
            // (A point without a number ranks last, as for plain labels: NaN would scramble the order.)
            let priority = c.priority(i)
            priorities.append(priority.isNaN ? -.infinity : priority)
            anchors.append((batch.x[k], markBox.y, markBox))
        }
        let v = c.viewport, ls = c.style
        // The fixed obstacles apart (`FixedObstacles`: exact answers, mostly from a raster), the
        // callouts placed in the index.
        let obstacles = FixedObstacles(width: v.width, height: v.height, obstacles: c.obstacles)
        var index = CollisionIndex(width: v.width, height: v.height, bounds: Rect(x: 0, y: 0, width: v.width, height: v.height))
        var opts = Callout.Options()
        opts.allowOverlap = c.allowOverlap
        // By priority (a bubble's is its representative's), ties: bubbles first in their order
        // (largest first), then points in draw order.
        let order = (0..<owners.count).sorted {
            priorities[$0] != priorities[$1] ? priorities[$0] > priorities[$1] : $0 < $1
        }
        var items: [SceneItem] = []
        var dropped = 0
        var sides = LabelSides()
        for j in order {
            let a = anchors[j], owner = owners[j], representative = j < bubbleCallouts ? representatives[j] : -1
            let previous = c.hints.side(point: owner, representative: representative).flatMap(Callout.Side.init(_:))
            var placement: (text: String, placed: CalloutPlacement)?
            // A kept side only (`LabelSides.only`): that side or none.
            var tried = opts
            if c.hints.only, let p = previous { tried.sides = [p] }
            if Callout.mightPlace(anchor: (a.x, a.y), pin: a.pin, index: index, obstacles: obstacles, options: tried,
                                  previous: previous) {
                let texts = j < bubbleCallouts ? bubbleTexts[j] : c.text(owner).map { [$0] } ?? []
                for text in texts where placement == nil {
                    let size = measurer.measure(text, font: c.font, maxWidth: maxWidth)
                    placement = Callout.place(anchor: (a.x, a.y), pin: a.pin, text: size, index: &index, obstacles: obstacles,
                                              options: tried, previous: previous).map { (text, $0) }
                }
            }
            guard let (text, placed) = placement else {
                dropped += 1
                continue
            }
            var mark = CalloutMark(
                text: text, font: c.font, color: ls.color, fill: ls.calloutFill, stroke: ls.calloutStroke,
                strokeWidth: 1, box: placed.box, cornerRadius: placed.cornerRadius, pointer: placed.pointer,
                textOrigin: placed.textOrigin, maxWidth: maxWidth)
            mark.opacity = alphas[j]
            if owner >= 0 { mark.owner = owner } else { mark.bubble = named[j] }
            sides.set(LabelSide(placed.side), point: owner, representative: representative)
            items.append(.callout(mark))
        }
        return Output(items: items, dropped: dropped, sides: sides)
    }

    /// Plain labels with a halo: cluster labels first, largest bubble first (a bubble is named
    /// after its top member plus the count of the others, "Paris +41", as MapKit names cluster
    /// annotations), then point labels highest priority first (ties in draw order).
    ///
    /// `soft`: small markers are soft obstacles (a label may cover a few, the fewest wins); `skip`:
    /// points not to label (a spread group sharing one label value is labelled once); `land`: where
    /// the basemap's land is, so that on a dense dot map labels prefer boxes that cross no coast.
    ///
    /// In four steps: the candidates (`PlainCandidates`), their order, then for each one a cheap
    /// probe (`PlainPlacer.mightFit`), the measured text at the first good side (`PlainPlacer.place`).
    ///
    /// Bubbles are round obstacles (`BubbleDiscs`, `outline`: their stroke width). A bubble's name
    /// touches its bubble and is `ambiguityMargin` px nearer to it than to any other bubble, or is
    /// dropped: "Mumbai +4145" beside the wrong one of two neighbouring bubbles reads as a wrong map.
    static func placePlain(drawn: [Int], batch: MarkerBatch, bubbles: [MarkPlan.Bubble], outline: Double = 0,
                           context c: Context, measurer: TextMeasuring, soft: MarkerDensity? = nil, skip: Set<Int> = [],
                           land: LandMask? = nil, shapes: [ShapeLabelCandidate] = [], leaders: Bool = true) -> Output {
        let candidates = PlainCandidates(drawn: drawn, batch: batch, bubbles: bubbles, context: c, skip: skip)
        // Bubbles, then the heads of pins and large markers (for the ambiguity test only).
        var dx = bubbles.map(\.x), dy = bubbles.map(\.y), dr = bubbles.map { $0.radius + outline / 2 }
        if !bubbles.isEmpty {
            for k in 0..<batch.count where !isSoft(batch.symbols[Int(batch.symbol[k])]) {
                let a = batch.labelAnchor(at: k)
                dx.append(a.x + a.width / 2); dy.append(a.y + a.height / 2); dr.append(max(a.width, a.height) / 2)
            }
        }
        let discs = BubbleDiscs(x: dx, y: dy, r: dr, bubbles: bubbles.count)
        // Points' and bubbles' labels (`PlainCandidates.order`) and the lines' and polygons' in
        // one order by priority, higher first; at equal priority points' first.
        let order = candidates.order()
        var placer = PlainPlacer(context: c, measurer: measurer, soft: soft, land: land, discs: discs)
        placer.leaders = leaders
        var leading = Set<Int>()
        if soft != nil {
            var dots: [(Double, Double)] = []
            for j in order.prefix(2000) where j >= candidates.bubbleLabels && dots.count < 200 {
                let a = candidates.labels[j].anchorBox, x = a.x + a.width / 2, y = a.y + a.height / 2
                if dots.allSatisfy({ ($0.0 - x) * ($0.0 - x) + ($0.1 - y) * ($0.1 - y) >= LabelLayout.leadingSpacing * LabelLayout.leadingSpacing }) {
                    dots.append((x, y)); leading.insert(j)
                }
            }
        }
        var preferred: [Int: PlainPlacer.Preferred] = [:], planned = Set<Int>()
        if soft != nil, leaders, c.hints.isEmpty, !c.allowOverlap, candidates.bubbleLabels == 0, shapes.isEmpty {
            (preferred, planned) = placer.plan(order: order, candidates: candidates, leading: leading, count: Self.plannedLabels,
                                               iterations: Self.planIterations)
        }
        var items: [SceneItem] = []
        var dropped = 0
        var sides = LabelSides()
        let shapeOrder = shapes.indices.sorted {
            shapes[$0].priority != shapes[$1].priority ? shapes[$0].priority > shapes[$1].priority : $0 < $1
        }
        var next = 0, nextShape = 0
        // Moving labels (`placeByMoving`): how many more candidates may try it, the labels
        // dropped meanwhile (tried again after a move; each with its place in `order`), and per
        // movable label its item and candidate.
        var movable = Self.movableLabels
        var droppedSoFar: [(index: Int, smallerType: Bool, position: Int)] = []
        var records: [(item: Int, candidate: Int)] = []
        // Per dropped candidate, its text's size in the smaller type (`moveFor`).
        var droppedSizes: [Int: TextSize] = [:]
        while next < order.count || nextShape < shapeOrder.count {
            if nextShape < shapeOrder.count
                && (next == order.count || candidates.labels[order[next]].priority < shapes[shapeOrder[nextShape]].priority) {
                let placed = placer.place(shapes[shapeOrder[nextShape]])
                nextShape += 1
                if placed.isEmpty { dropped += 1 }
                items += placed
                continue
            }
            let j = order[next]
            next += 1
            let isBubble = j < candidates.bubbleLabels
            let smaller = !isBubble && placer.soft != nil
            if tryPlace(j, smallerType: smaller) { continue }
            // A name among the first in priority that finds no side: on a dense dot map, placed
            // labels may move to other sides to make room for it (`PlainPlacer.placeByMoving`).
            if movable > 0, !isBubble, placer.soft != nil,
               c.hints.side(point: candidates.owners[j], representative: candidates.representative(j)) == nil {
                movable -= 1
                // A planned name (`DenseLabelPlan`) takes its planned place or any free one:
                // moves would undo the plan.
                if planned.contains(j) {
                    if tryLeader(j) { continue }
                } else {
                    if moveFor(j, position: next - 1) { continue }
                    // Last: the name set away with a leader line (`LeaderLabel`), in priority order
                    // as every label, so no lower-ranked name has taken its room; where it finds no
                    // place, with moves of placed names.
                    if tryLeader(j) { continue }
                    if placer.leaders && leading.contains(j) && moveFor(j, position: next - 1, leader: true) { continue }
                }
            }
            dropped += 1
            if movable > 0 { droppedSoFar.append((j, smaller, next - 1)) }
        }
        return Output(items: items, dropped: dropped, sides: sides)

        /// Candidate j placed by moving placed labels (`placeByMoving`). The moves made, the
        /// labels dropped so far that rank above it are tried again first: the room the moved
        /// ones left may be theirs. Then j takes the box made for it if still free, else any
        /// side; false when it is not placed (the moves stay: each moved label is still placed).
        func moveFor(_ j: Int, position: Int, leader: Bool = false) -> Bool {
            let higher = droppedSoFar.prefix { $0.position < position }.map { d -> LabelPlacer.Label in
                var l = candidates.labels[d.index]
                l.size = droppedSizes[d.index] ?? placer.measured(candidates.texts(d.index).last ?? "", font: placer.font(smallerType: true))
                droppedSizes[d.index] = l.size
                return l
            }
            guard let m = placer.placeByMoving(candidates.labels[j], texts: candidates.texts(j),
                                               dropped: higher, leader: leader) else {
                return false
            }
            for moved in m.moved {
                let (item, k) = records[moved.index]
                var mark = moved.mark
                mark.opacity = candidates.alphas[k]; mark.owner = candidates.owners[k]
                items[item] = .label(mark)
                sides.set(moved.side, point: candidates.owners[k], representative: candidates.representative(k))
            }
            var k = 0
            while k < droppedSoFar.count && droppedSoFar[k].position < position {
                if tryPlace(droppedSoFar[k].index, smallerType: droppedSoFar[k].smallerType)
                    || tryLeader(droppedSoFar[k].index) {
                    droppedSoFar.remove(at: k)
                    dropped -= 1
                } else {
                    k += 1
                }
            }
            if let mark = placer.take(m.taken) {
                append(j, mark, m.taken.side)
                return true
            }
            return tryPlace(j, smallerType: true) || (leader && tryLeader(j))
        }

        /// Candidate j at its first free side, appended; false when it finds none.
        func tryPlace(_ j: Int, smallerType: Bool) -> Bool {
            let owner = candidates.owners[j], representative = candidates.representative(j)
            let hint = c.hints.side(point: owner, representative: representative)
            let disc = j < candidates.bubbleLabels ? candidates.discs[j] : nil
            guard placer.mightFit(candidates.labels[j], disc: disc),
                  let placed = placer.place(candidates.labels[j], disc: disc, texts: candidates.texts(j), hint: hint,
                                            smallerType: smallerType, preferred: preferred[j]) else { return false }
            append(j, placed.mark, placed.side)
            return true
        }

        /// Candidate j (a point's) set away with a leader line, appended; false when no place is free.
        /// (Only a leading place, `leading`: a name set away that is near a larger place,
        /// "Queens" 45 px south-west of New York over Virginia, reads as a place of its own more
        /// than it names a dot.)
        func tryLeader(_ j: Int) -> Bool {
            guard placer.leaders, leading.contains(j), let placed = placer.placeLeadered(candidates.labels[j], texts: candidates.texts(j),
                                                                    preferred: preferred[j]) else { return false }
            append(j, placed.mark, placed.side)
            return true
        }

        func append(_ j: Int, _ placedMark: LabelMark, _ side: LabelSide) {
            let owner = candidates.owners[j], representative = candidates.representative(j)
            var mark = placedMark
            mark.opacity = candidates.alphas[j]
            if owner >= 0 { mark.owner = owner }
            mark.bubble = j < candidates.bubbleLabels ? candidates.discs[j] : nil
            // The placer's record of a movable label (a point's, on a dense dot map) is number
            // records.count: which item and candidate it is.
            if placer.movable.count > records.count { records.append((items.count, j)) }
            // On a dense dot map a named place's dot is kept clear of every later name: a name
            // over another named place's dot reads as naming it (Guangzhou's name set east over
            // Shenzhen's dot while Shenzhen's is set west over Guangzhou's swaps the two).
            if placer.soft != nil && owner >= 0 {
                let dot = candidates.labels[j].markBox
                placer.namedDots.insert(dot)
                if leading.contains(j) { placer.leadingDots.append(dot) }
                placer.namedCentres.append((dot.midX, dot.midY))
            }
            items.append(.label(mark))
            sides.set(side, point: owner, representative: representative)
        }
    }

    /// What plain labelling may place: bubble names first ("Paris +41", or "Paris" where that finds
    /// no room), then one label per drawn marker with a text, not skipped and not faded out.
    /// Texts are not measured here: most labels of a dense map are blocked anyway.
    struct PlainCandidates {
        var labels: [LabelPlacer.Label] = []
        /// The bubble labels' texts (`Context.bubbleTexts`: with the count, then the name alone);
        /// a point's text is read when its label is tried (`texts`): most labels of a dense map
        /// are blocked before that.
        var bubbleTexts: [[String]] = []
        /// Per candidate: its point (-1 for a bubble's label) and opacity (quantised as its marker's).
        var owners: [Int] = []
        /// Per bubble label: its bubble's representative, which its side is kept under from frame
        /// to frame (-1: none).
        var representatives: [Int] = []
        var alphas: [Double] = []
        /// Candidates before this index are bubble labels.
        var bubbleLabels = 0
        /// Per bubble label: its bubble's index in `bubbles`.
        var discs: [Int] = []
        /// Per bubble label: its bubble's count.
        var counts: [Int] = []
        let context: Context

        init(drawn: [Int], batch: MarkerBatch, bubbles: [MarkPlan.Bubble], context c: Context, skip: Set<Int>) {
            context = c
            let unmeasured = TextSize(width: 0, height: 0)
            for (k, b) in bubbles.enumerated() {
                let alpha = c.bubbleAlpha(b.representative)
                guard alpha > 0, let texts = c.bubbleTexts(b) else { continue }
                discs.append(k)
                labels.append(.init(markBox: b.box, anchorBox: b.box, size: unmeasured, priority: c.bubblePriority(b)))
                counts.append(b.count)
                bubbleTexts.append(texts)
                owners.append(-1); alphas.append(alpha); representatives.append(b.representative ?? -1)
            }
            bubbleLabels = labels.count
            let haveText = c.haveText(drawn)
            let room = bubbleLabels + haveText.reduce(0) { $0 + ($1 ? 1 : 0) }
            labels.reserveCapacity(room); owners.reserveCapacity(room); alphas.reserveCapacity(room)
            let noneSkipped = skip.isEmpty, noneFaded = c.opacity.isEmpty
            for (k, i) in drawn.enumerated() where haveText[k] && (noneSkipped || !skip.contains(i)) {
                let alpha = noneFaded ? 1 : c.alpha(i)
                guard alpha > 0 else { continue }
                owners.append(i); alphas.append(alpha)
                let priority = c.priority(i)
                labels.append(.init(markBox: batch.box(at: k), anchorBox: batch.labelAnchor(at: k), size: unmeasured,
                                    priority: priority.isNaN ? -.infinity : priority))
            }
        }

        /// The representative of candidate `j`'s bubble; -1 for a point's label or a bubble without one.
        func representative(_ j: Int) -> Int { j < bubbleLabels ? representatives[j] : -1 }

        /// The texts candidate `j` tries, in order.
        func texts(_ j: Int) -> [String] {
            guard j >= bubbleLabels else { return bubbleTexts[j] }
            return context.text(owners[j]).map { [$0] } ?? []
        }

        /// One order for bubbles' and points' labels: by priority, higher first (a bubble's is its
        /// representative's, `Context.bubblePriority`), so that no label takes the room of a more
        /// important one whatever it names; at equal priority bubbles first, larger first, then
        /// candidate order. Without a ranking every point's priority is 0: bubbles go first.
        func order() -> [Int] {
            labels.indices.sorted {
                let pa = labels[$0].priority, pb = labels[$1].priority
                if pa != pb { return pa > pb }
                let clusterA = $0 < bubbleLabels, clusterB = $1 < bubbleLabels
                if clusterA != clusterB { return clusterA }
                if clusterA && counts[$0] != counts[$1] { return counts[$0] > counts[$1] }
                return $0 < $1
            }
        }
    }

    /// Places plain labels one by one: fixed obstacles in a raster (O(1) queries however dense),
    /// placed labels in a grid index, small markers as a soft cost, the land for a coast cost.
    struct PlainPlacer {
        let c: Context
        let measurer: TextMeasuring
        let soft: MarkerDensity?
        let land: LandMask?
        let discs: BubbleDiscs
        let halo: Double, gap: Double
        /// A box smaller than any label could make (one pixel wide, 80% of a line high, plus the
        /// halo): each real box contains it, so when it is blocked at every side the label is
        /// dropped unmeasured (shaping text is the expensive part of layout).
        let probe: TextSize
        var raster: ObstacleRaster
        /// The placed labels' boxes, each grown by `padding`.
        var placedLabels: CollisionIndex
        /// On a dense dot map, the dots of the places named so far: no later name's box covers one
        /// (a name over another named place's dot reads as naming it). Leaders may cross them, but
        /// for a leading place's (`leadingDots`).
        var namedDots: CollisionIndex
        /// The dots of the leading places named so far: no leader crosses one
        /// (`crossesLeadingDot`).
        var leadingDots: [Rect] = []
        /// Their centres, for `nearestOwn`.
        var namedCentres: [(x: Double, y: Double)] = []
        /// Half the style's `text-padding`, added around every label's box (its halo reserve
        /// included) against other labels: two labels keep at least `text-padding` apart.
        let padding: Double
        /// The image: a label's box (unpadded) lies wholly inside it.
        let image: Rect
        /// On a dense dot map, the points' labels placed (in order), for `placeByMoving`.
        var movable: [(box: Rect, label: LabelPlacer.Label, text: String, font: FontSpec, side: LabelSide)] = []
        /// Per cell of `LabelLayout.movableCell` px, the movable labels whose padded box meets it.
        var movableGrid: [[Int]]
        /// Whether a name with no free side may be set away with a leader line (`placeLeadered`).
        var leaders = true
        /// The names set away with a leader line: their box, the squares along their leader and
        /// their priority. They do not move.
        var leadered: [(box: Rect, leader: [Rect], priority: Double)] = []
        let movableColumns: Int

        init(context c: Context, measurer: TextMeasuring, soft: MarkerDensity?, land: LandMask?,
             discs: BubbleDiscs = BubbleDiscs(x: [], y: [], r: [])) {
            self.c = c; self.measurer = measurer; self.soft = soft; self.land = land; self.discs = discs
            let v = c.viewport
            halo = c.style.haloWidth; gap = c.style.offset
            // Within every real box: of the smaller type where there is one (dense dot maps), with
            // the reserve the real boxes have (half the halo there). (It was the full type's
            // height with a whole halo: taller than a 5/6 label's box, so on dense maps labels of
            // the smaller type were dropped with a side free.)
            let smallest = soft != nil ? FontSpec(family: c.font.family, size: c.font.size * LabelLayout.smallerType, weight: c.font.weight) : c.font
            let lineHeight = measurer.measure("Hg", font: smallest).height
            let reserve = soft != nil ? halo / 2 : halo
            probe = TextSize(width: 1 + 2 * reserve, height: 0.8 * lineHeight + 2 * reserve)
            raster = ObstacleRaster(width: v.width, height: v.height)
            for o in c.obstacles { raster.add(o) }
            raster.finish()
            padding = c.style.textPadding / 2
            image = Rect(x: 0, y: 0, width: v.width, height: v.height)
            placedLabels = CollisionIndex(width: v.width, height: v.height, bounds: nil)
            namedDots = CollisionIndex(width: v.width, height: v.height, bounds: nil)
            movableColumns = soft == nil ? 1 : max(1, Int((v.width / LabelLayout.movableCell).rounded(.up)))
            let movableRows = soft == nil ? 1 : max(1, Int((v.height / LabelLayout.movableCell).rounded(.up)))
            movableGrid = Array(repeating: [], count: movableColumns * movableRows)
        }

        /// Inside the image, and no bubble, pin or decoration under the box (small markers may be:
        /// they are soft), nor any label within `text-padding` of it.
        func free(_ r: Rect) -> Bool {
            image.contains(r) && raster.isFree(r) && !discs.intersects(r) && placedLabels.canPlace(LabelLayout.padded(r, by: padding))
                && namedDots.canPlace(r)
        }

        /// Whether a leader line crosses the dot of a leading place named so far: a line through
        /// Shanghai's dot to a name out at sea reads as naming Shanghai (Wuhan's did, on the 170k
        /// GeoNames map).
        func crossesLeadingDot(_ l: LeaderLine) -> Bool {
            leadingDots.contains { DenseLabelPlan.Place.segment(l, hits: $0) }
        }

        /// On a dense dot map, whether a name's box beside its dot lies nearer its own dot than the
        /// dot of any place named before it: a name nearer another named dot reads as that place's
        /// (Shenzhen's name set west of its dot, beyond Guangzhou's, swapped the two).
        func nearestOwn(_ b: Rect, dot: Rect) -> Bool {
            guard soft != nil else { return true }
            let own = LabelLayout.distance(b, dot.midX, dot.midY)
            for c in namedCentres where abs(c.x - b.midX) < b.width / 2 + own && abs(c.y - b.midY) < b.height / 2 + own {
                if LabelLayout.distance(b, c.x, c.y) < own { return false }
            }
            return true
        }

        /// The box at `side`: around the mark, or touching bubble `disc`.
        func box(_ side: LabelSide, for label: LabelPlacer.Label, disc: Int?) -> Rect {
            disc.map { discs.box(side, of: $0, size: label.size, gap: gap) } ?? LabelPlacer.box(side, for: label, gap: gap)
        }

        /// The boxes tried at each side, in order: one around a mark, a few sliding along a bubble;
        /// `centred`: the box is centred on the bubble's right, left, top or bottom.
        func boxes(_ order: [LabelSide], for label: LabelPlacer.Label, disc: Int?) -> [(Rect, LabelSide, centred: Bool)] {
            guard let d = disc else {
                var out = order.map { (LabelPlacer.box($0, for: label, gap: gap), $0, false) }
                // On a dense dot map, also the boxes halfway between neighbouring sides (after them).
                if soft != nil && leaders && order.count == LabelSide.allCases.count {
                    out += LabelLayout.halfwayBoxes(for: label, gap: gap).map { ($0.box, $0.side, false) }
                }
                return out
            }
            return order.flatMap { side in
                discs.boxes(side, of: d, size: label.size, gap: gap).enumerated().map { k, b in
                    (b, side, k == 0 && [.right, .left, .above, .below].contains(side))
                }
            }
        }

        /// Free, and for a bubble's name, unambiguously its bubble's.
        func fits(_ r: Rect, disc: Int?, centred: Bool = false) -> Bool {
            free(r) && (disc.map { discs.isUnambiguous(r, own: $0, margin: LabelLayout.ambiguityMargin, centred: centred) } ?? true)
        }

        /// How many small markers the box covers.
        func cost(_ r: Rect) -> Int { soft?.count(in: r) ?? 0 }

        /// What a name's box costs on a dense dot map (0: take it): each small marker it covers
        /// beyond the few a name may, plus `coastCost` when it crosses a coastline.
        func positionCost(_ r: Rect) -> Int {
            max(0, cost(r) - LabelLayout.fewMarkers) + ((land?.crossesCoast(r) ?? false) ? LabelLayout.coastCost : 0)
        }

        /// Whether the probe box is free at some side (always true when overlaps are allowed).
        func mightFit(_ label: LabelPlacer.Label, disc: Int? = nil) -> Bool {
            guard !c.allowOverlap else { return true }
            var l = label
            l.size = probe
            guard disc == nil else { return LabelPlacer.Position.allCases.contains { free(box($0, for: l, disc: disc)) } }
            return boxes(LabelSide.allCases, for: l, disc: nil).contains { free($0.0) }
        }

        /// The font of a label: on a dense dot map, points' names in the smaller type (5/6 of the
        /// style's size), one type for all of them: a rule by placement order ("the first 40 full
        /// size") set a small "Delhi", which found room only in the smaller type, beside a large
        /// "Tokyo". Bubbles' names keep the style's size.
        func font(smallerType: Bool) -> FontSpec {
            var f = c.font
            if soft != nil && smallerType { f.size = c.font.size * LabelLayout.smallerType }
            return f
        }

        /// Places the first of `texts` that finds a side; inserts its box. A hinted side (the
        /// side this label took in the previous animation frame) is tried first.
        mutating func place(_ label: LabelPlacer.Label, disc: Int? = nil, texts: [String], hint: LabelSide?,
                            smallerType: Bool, preferred: Preferred? = nil) -> (mark: LabelMark, side: LabelSide)? {
            // On a dense dot map a bubble's name that finds no side in the full type tries the
            // smaller one before it is dropped (points' names are all in the smaller type).
            let fonts = [font(smallerType: smallerType)] + (soft != nil && !smallerType ? [font(smallerType: true)] : [])
            // A kept side only (`LabelSides.only`): that side or none.
            let order = hint.map { h in c.hints.only ? [h] : [h] + LabelSide.allCases.filter { $0 != h } } ?? LabelSide.allCases
            var label = label
            for labelFont in fonts {
                // The planned place first (`DenseLabelPlan`: a point's name, so in the smaller
                // type, the only one tried), when it is free.
                if let p = preferred, p.leader == nil, let text = texts.first, free(p.box),
                   nearestOwn(p.box, dot: label.markBox) {
                    label.size = measured(text, font: labelFont)
                    placedLabels.insert(LabelLayout.padded(p.box, by: padding))
                    addMovable((p.box, label, text, labelFont, p.side))
                    return (mark(text, font: labelFont, box: p.box), p.side)
                }
                for text in texts {
                    label.size = measured(text, font: labelFont)
                    guard let (b, side) = side(for: label, disc: disc, order: order, hint: hint) else { continue }
                    placedLabels.insert(LabelLayout.padded(b, by: padding))
                    // Movable later: a point's label on a dense dot map, unless it keeps a side
                    // given to it (an animation frame's: it must not change side mid-transition).
                    if soft != nil && disc == nil && hint == nil { addMovable((b, label, text, labelFont, side)) }
                    return (mark(text, font: labelFont, box: b), side)
                }
            }
            return nil
        }

        /// A point's label that `place` found no side for, placed by moving placed point labels
        /// to other sides: a joint placement of it and the labels around it. A side of its own
        /// whose only obstacles are at most `maxBlockers` placed labels, each of which then takes
        /// another side, free or itself cleared the same way, `moveDepth` levels deep: a search
        /// with backtracking (`settle`), at most `moveBudget` boxes tried. The moved labels stay
        /// placed, so no label is dropped for a lower-ranked one. Nil (and nothing changed) when
        /// no such placement is found. Dense dot maps only.
        ///
        /// With `leader`, the places tried are those with a leader line (`LeaderLabel`), each
        /// cleared the same way: its box and the squares along its leader (a name that covers the
        /// dot, moved to another side, lets the leader start).
        mutating func placeByMoving(_ label: LabelPlacer.Label, texts: [String],
                                    dropped: [LabelPlacer.Label] = [], leader: Bool = false)
            -> (taken: Taken, moved: [(index: Int, mark: LabelMark, side: LabelSide)])? {
            guard soft != nil, !c.allowOverlap else { return nil }
            // Points' names on a dense dot map are all in the smaller type.
            let labelFont = font(smallerType: true)
            var label = label
            var moves = Moves(budget: LabelLayout.moveBudget)
            for text in texts {
                label.size = measured(text, font: labelFont)
                let places: [(box: Rect, side: LabelSide, leader: LeaderLine?)] = leader
                    ? leaderCandidates(for: label).filter(clearOfFixedMarks).map { ($0.box, LabelSide.allCases[$0.direction], $0.leader) }
                    : LabelSide.allCases.map { (box($0, for: label, disc: nil), $0, nil) }
                for (b, side, line) in places {
                    if let l = line, crossesLeadingDot(l) { continue }
                    let squares = line.map(LeaderLabel.boxes(along:)) ?? []
                    guard push(b, leader: squares, depth: LabelLayout.moveDepth, moves: &moves) else { continue }
                    let before = moves.moves.map { (index: $0.index, box: movable[$0.index].box, side: movable[$0.index].side) }
                    for m in moves.moves { setMovable(m.index, box: m.box, side: m.side) }
                    // Moves that leave a label dropped so far (ranked higher) a side taken only
                    // by lower-ranked ones (this one included) are not made.
                    if yieldsToLower(dropped, own: b, ownLeader: squares, ownPriority: label.priority) {
                        for o in before.reversed() { setMovable(o.index, box: o.box, side: o.side) }
                        undo(to: (log: 0, moving: [], moves: 0), moves: &moves)
                        continue
                    }
                    var out: [(index: Int, mark: LabelMark, side: LabelSide)] = []
                    for m in moves.moves {
                        out.append((m.index, mark(movable[m.index].text, font: movable[m.index].font, box: m.box), m.side))
                    }
                    // The label's own box (and leader) is left out of the index: labels dropped
                    // so far (ranked higher) may take the room the moves left first (`take`).
                    placedLabels.remove(LabelLayout.padded(b, by: padding))
                    for r in squares { placedLabels.remove(r) }
                    return ((b, label, text, labelFont, side, line), out)
                }
            }
            return nil
        }

        /// Whether some label of `dropped` (measured) has a side clear of fixed marks whose placed
        /// labels in the way (the label at `own`, of `ownPriority`, counting) all rank below it,
        /// at least one of them: it would yield to lower ranks.
        /// The same for the places with a leader line (`LeaderLabel`) of such a label, where
        /// names may be set away.
        func yieldsToLower(_ dropped: [LabelPlacer.Label], own: Rect, ownLeader: [Rect] = [], ownPriority: Double) -> Bool {
            let ownPadded = LabelLayout.padded(own, by: padding)
            func hitsOwn(_ r: Rect) -> Bool { ownPadded.intersects(r) || ownLeader.contains { $0.intersects(r) } }
            return dropped.contains { l in
                let bySide = LabelSide.allCases.contains { side in
                    let b = box(side, for: l, disc: nil)
                    guard image.contains(b), raster.isFree(b), !discs.intersects(b), namedDots.canPlace(b) else { return false }
                    let pb = LabelLayout.padded(b, by: padding)
                    var priorities = movableHitting(pb, except: []).map { movable[$0].label.priority }
                    if hitsOwn(pb) { priorities.append(ownPriority) }
                    priorities += leadered.filter { $0.box.intersects(pb) || $0.leader.contains { $0.intersects(pb) } }.map(\.priority)
                    return !priorities.isEmpty && priorities.allSatisfy { $0 < l.priority }
                }
                guard !bySide, leaders else { return bySide }
                return leaderCandidates(for: l).contains { cand in
                    guard clearOfFixedMarks(cand), namedDots.canPlace(cand.box), !crossesLeadingDot(cand.leader) else { return false }
                    let pb = LabelLayout.padded(cand.box, by: padding), line = cand.leaderBoxes
                    func hits(_ r: Rect) -> Bool { r.intersects(pb) || line.contains { $0.intersects(r) } }
                    var priorities: [Double] = []
                    for q in movableHitting(LabelLayout.union(LabelLayout.padded(cand.leader.bounds, by: LeaderLabel.boxSide), pb), except: [])
                        where hits(LabelLayout.padded(movable[q].box, by: padding)) { priorities.append(movable[q].label.priority) }
                    if hits(ownPadded) || ownLeader.contains(where: hits) { priorities.append(ownPriority) }
                    priorities += leadered.filter { o in hits(LabelLayout.padded(o.box, by: padding)) || o.leader.contains(where: hits) }
                        .map(\.priority)
                    return !priorities.isEmpty && priorities.allSatisfy { $0 < l.priority }
                }
            }
        }

        /// The places with a leader line of a measured point label (`LeaderLabel.candidates`).
        func leaderCandidates(for l: LabelPlacer.Label) -> [LeaderLabel.Candidate] {
            let a = l.anchorBox
            return LeaderLabel.candidates(around: (a.x + a.width / 2, a.y + a.height / 2),
                                          radius: max(l.markBox.width, l.markBox.height) / 2, size: l.size)
        }

        /// Whether a leadered name's box and leader lie inside the image, clear of every fixed
        /// mark (bubbles, pins, decorations; small markers are soft).
        func clearOfFixedMarks(_ cand: LeaderLabel.Candidate) -> Bool {
            guard image.contains(cand.box), image.contains(cand.leader.bounds), raster.isFree(cand.box),
                  !discs.intersects(cand.box) else { return false }
            return cand.leaderBoxes.allSatisfy { raster.isFree($0) && !discs.intersects($0) }
        }

        /// Whether a leadered name fits: clear of fixed marks, its box `text-padding` from every
        /// label, its leader crossing no label and no other leader.
        func fits(_ cand: LeaderLabel.Candidate) -> Bool {
            clearOfFixedMarks(cand) && placedLabels.canPlace(LabelLayout.padded(cand.box, by: padding)) && namedDots.canPlace(cand.box)
                && cand.leaderBoxes.allSatisfy { placedLabels.canPlace($0) } && !crossesLeadingDot(cand.leader)
        }

        /// A point's label with no free side and no room made by moves, set away from its dot
        /// with a leader line, as an atlas sets a crowded coast's names out at sea: the nearest
        /// ring of `LeaderLabel.candidates` with a place that fits, there the place that covers
        /// the fewest small markers and crosses no coast (costs as `side(for:)` weighs them), ties
        /// in the ring's order. In the smaller type, as every point's name on a dense dot map.
        /// Inserts the box and the leader's squares; not movable afterwards. Dense dot maps only.
        mutating func placeLeadered(_ label: LabelPlacer.Label, texts: [String], preferred: Preferred? = nil)
            -> (mark: LabelMark, side: LabelSide)? {
            guard soft != nil, !c.allowOverlap else { return nil }
            // Points' names on a dense dot map are all in the smaller type.
            let labelFont = font(smallerType: true)
            var label = label
            for text in texts {
                label.size = measured(text, font: labelFont)
                var best: (cand: LeaderLabel.Candidate, cost: Int)?
                // The planned place first (`DenseLabelPlan`), when it is free.
                if let p = preferred, let line = p.leader,
                   let cand = leaderCandidates(for: label).first(where: { $0.box == p.box && $0.leader == line }), fits(cand) {
                    best = (cand, -1)
                }
                for cand in best == nil ? leaderCandidates(for: label) : [] {
                    if let b = best, cand.ring > b.cand.ring { break }
                    guard fits(cand) else { continue }
                    let cost = positionCost(cand.box)
                    if best == nil || cost < best!.cost { best = (cand, cost) }
                }
                guard let (cand, _) = best else { continue }
                let line = cand.leaderBoxes
                placedLabels.insert(LabelLayout.padded(cand.box, by: padding))
                for r in line { placedLabels.insert(r) }
                leadered.append((cand.box, line, label.priority))
                var m = mark(text, font: labelFont, box: cand.box)
                m.leader = cand.leader
                return (m, LabelSide.allCases[cand.direction])
            }
            return nil
        }

        /// A place planned for a name (`DenseLabelPlan`, in the smaller type, as every point's name
        /// on a dense dot map): its box (its reserve included), side and leader line (nil beside
        /// its dot).
        struct Preferred {
            var box: Rect
            var side: LabelSide
            var leader: LeaderLine?
        }

        /// The box `placeByMoving` made room for, and the label to put there.
        /// With a leader line when set away (`LeaderLabel`).
        typealias Taken = (box: Rect, label: LabelPlacer.Label, text: String, font: FontSpec, side: LabelSide, leader: LeaderLine?)

        /// Places a label at the box `placeByMoving` made room for, when it is still free (and its
        /// leader's squares); its mark. A name set away does not move afterwards.
        mutating func take(_ t: Taken) -> LabelMark? {
            guard free(t.box) else { return nil }
            guard let line = t.leader else {
                placedLabels.insert(LabelLayout.padded(t.box, by: padding))
                addMovable((t.box, t.label, t.text, t.font, t.side))
                return mark(t.text, font: t.font, box: t.box)
            }
            let squares = LeaderLabel.boxes(along: line)
            guard squares.allSatisfy({ placedLabels.canPlace($0) }) else { return nil }
            placedLabels.insert(LabelLayout.padded(t.box, by: padding))
            for r in squares { placedLabels.insert(r) }
            leadered.append((t.box, squares, t.label.priority))
            var m = mark(t.text, font: t.font, box: t.box)
            m.leader = line
            return m
        }

        /// What one `placeByMoving` has done so far: the index's changes (undone in reverse when a
        /// branch fails), the labels being moved, where they go, and how many more boxes it may try.
        struct Moves {
            var log: [(inserted: Bool, box: Rect)] = []
            var moving = Set<Int>()
            var moves: [(index: Int, box: Rect, side: LabelSide)] = []
            var budget: Int
        }

        /// Takes box `b` (unpadded) for a label: free but for at most `maxBlockers` movable labels
        /// (not already moving), which are moved away (`settle`, `depth` − 1 levels further). On
        /// success `b` is in the index; on failure `moves` is as it was (but for the budget).
        /// `leader`: the squares along a leader line to `b`, cleared and taken with it (their fixed
        /// marks already checked).
        private mutating func push(_ b: Rect, leader: [Rect] = [], depth: Int, moves: inout Moves) -> Bool {
            guard depth > 0, moves.budget > 0, image.contains(b), raster.isFree(b), !discs.intersects(b), namedDots.canPlace(b) else { return false }
            moves.budget -= 1
            let pb = LabelLayout.padded(b, by: padding)
            var blockers = movableHitting(pb, except: moves.moving)
            for r in leader {
                for q in movableHitting(r, except: moves.moving) where !blockers.contains(q) { blockers.append(q) }
                guard blockers.count <= LabelLayout.maxBlockers else { return false }
            }
            blockers.sort()
            guard (1...LabelLayout.maxBlockers).contains(blockers.count) else { return false }
            let mark = (log: moves.log.count, moving: moves.moving, moves: moves.moves.count)
            for q in blockers {
                let old = LabelLayout.padded(movable[q].box, by: padding)
                placedLabels.remove(old); moves.log.append((false, old))
                moves.moving.insert(q)
            }
            if placedLabels.canPlace(pb) && leader.allSatisfy({ placedLabels.canPlace($0) }) {
                placedLabels.insert(pb); moves.log.append((true, pb))
                for r in leader { placedLabels.insert(r); moves.log.append((true, r)) }
                if settle(blockers[...], depth: depth - 1, moves: &moves) { return true }
            }
            undo(to: mark, moves: &moves)
            return false
        }

        /// Finds a new side for each of `pending` (placed labels already out of the index), one
        /// after the other with backtracking: each tries its other sides that are free, then (with
        /// `depth` left) those it can `push` into, in its own type. When a later one finds none,
        /// the earlier ones try their next. On failure `moves` is as it was.
        ///
        /// A moved label keeps its type. (Letting a moved name of the full type take the smaller
        /// one named 43 of the 50 largest places on the 34k world dot map instead of 41, but
        /// Beijing, Seoul and Mumbai then read smaller than Ho Chi Minh City: type that no longer
        /// ranks the places misleads more.)
        private mutating func settle(_ pending: ArraySlice<Int>, depth: Int, moves: inout Moves) -> Bool {
            guard let q = pending.first else { return true }
            let rest = pending.dropFirst()
            let l = movable[q]
            let others = LabelSide.allCases.filter { $0 != l.side }.map { (box: box($0, for: l.label, disc: nil), side: $0) }
            let mark = (log: moves.log.count, moving: moves.moving, moves: moves.moves.count)
            // Free sides, cheapest first (small markers beyond the few a label may cover, a coast
            // crossed: as `side(for:)` weighs them), ties in the usual order.
            // (And nearer its own dot than any named one: `nearestOwn`.)
            let free = others.filter { fits($0.box, disc: nil) && nearestOwn($0.box, dot: l.label.markBox) }.map { o in
                (box: o.box, side: o.side,
                 cost: positionCost(o.box))
            }
            for f in free.indices.sorted(by: { (free[$0].cost, $0) < (free[$1].cost, $1) }) {
                guard moves.budget > 0 else { break }
                moves.budget -= 1
                let pa = LabelLayout.padded(free[f].box, by: padding)
                guard placedLabels.canPlace(pa) else { continue }
                placedLabels.insert(pa); moves.log.append((true, pa))
                moves.moves.append((q, free[f].box, free[f].side))
                if settle(rest, depth: depth, moves: &moves) { return true }
                undo(to: mark, moves: &moves)
            }
            // Then sides it can clear by pushing others.
            for (a, side) in others where depth > 0 && moves.budget > 0 && nearestOwn(a, dot: l.label.markBox) {
                guard push(a, depth: depth, moves: &moves) else { continue }
                moves.moves.append((q, a, side))
                if settle(rest, depth: depth, moves: &moves) { return true }
                undo(to: mark, moves: &moves)
            }
            return false
        }

        /// Undoes a branch of the search: back to the index, moving set and moves at `mark`.
        private mutating func undo(to mark: (log: Int, moving: Set<Int>, moves: Int), moves: inout Moves) {
            for e in moves.log[mark.log...].reversed() {
                if e.inserted { placedLabels.remove(e.box) } else { placedLabels.insert(e.box) }
            }
            moves.log.removeSubrange(mark.log...)
            moves.moving = mark.moving
            moves.moves.removeSubrange(mark.moves...)
        }

        /// The movable labels whose padded box meets `pb`, not in `except`, in the order placed:
        /// read from a grid of `movableCell` px cells.
        func movableHitting(_ pb: Rect, except: Set<Int>) -> [Int] {
            var found: [Int] = []
            for cell in movableCells(pb) {
                for q in movableGrid[cell] where !except.contains(q) && !found.contains(q)
                    && LabelLayout.padded(movable[q].box, by: padding).intersects(pb) { found.append(q) }
            }
            return found.sorted()
        }

        /// The grid cells a box covers (clamped to the image).
        func movableCells(_ r: Rect) -> [Int] {
            let cell = LabelLayout.movableCell, columns = movableColumns, rows = movableGrid.count / movableColumns
            func range(_ lo: Double, _ hi: Double, _ n: Int) -> ClosedRange<Int> {
                let a = Int(min(max(lo / cell, 0), Double(n - 1))), b = Int(min(max(hi / cell, 0), Double(n - 1)))
                return a...max(a, b)
            }
            var out: [Int] = []
            for row in range(r.y, r.maxY, rows) { for col in range(r.x, r.maxX, columns) { out.append(row * columns + col) } }
            return out
        }

        /// Records a movable label and files it in the grid.
        mutating func addMovable(_ m: (box: Rect, label: LabelPlacer.Label, text: String, font: FontSpec, side: LabelSide)) {
            movable.append(m)
            for cell in movableCells(LabelLayout.padded(m.box, by: padding)) { movableGrid[cell].append(movable.count - 1) }
        }

        /// Moves movable label `q` to `box` at `side`, in the grid too.
        mutating func setMovable(_ q: Int, box: Rect, side: LabelSide) {
            for cell in movableCells(LabelLayout.padded(movable[q].box, by: padding)) { movableGrid[cell].removeAll { $0 == q } }
            movable[q].box = box; movable[q].side = side
            for cell in movableCells(LabelLayout.padded(box, by: padding)) { movableGrid[cell].append(q) }
        }

        /// The halo reaches beyond the text: reserve it so halos do not overlap either. Dense dot
        /// maps reserve half the halo: halos may touch (but for `padding`), texts stay a halo apart.
        var reserve: Double { soft != nil ? halo / 2 : halo }

        /// The size a label of `text` takes: the text's and the reserve around it.
        func measured(_ text: String, font: FontSpec) -> TextSize {
            let size = measurer.measure(text, font: font)
            return TextSize(width: size.width + 2 * reserve, height: size.height + 2 * reserve)
        }

        /// The label drawn in box `b` (the text inside its reserve).
        func mark(_ text: String, font: FontSpec, box b: Rect) -> LabelMark {
            LabelMark(text: text, font: font, color: c.style.color, halo: c.style.halo, haloWidth: halo,
                      x: b.x + reserve, y: b.y + reserve, width: b.width - 2 * reserve, height: b.height - 2 * reserve)
        }

        /// A line's or polygon's label: along the line at each free repetition, or at the
        /// polygon's pole when the label's box lies inside the polygon and is free. Each placed
        /// glyph's box (or the label's box) goes into the index as a point label's does.
        mutating func place(_ shape: ShapeLabelCandidate) -> [SceneItem] {
            switch shape.geometry {
            case .line(let pieces):
                let run = measurer.glyphRun(shape.text, font: c.font)
                var options = LineLabelPlacement.Options()
                options.reserve = reserve
                var out: [SceneItem] = []
                for piece in pieces {
                    for p in LineLabelPlacement.placements(along: piece, run: run, options: options) {
                        guard c.allowOverlap || p.boxes.allSatisfy(free) else { continue }
                        for b in p.boxes { placedLabels.insert(LabelLayout.padded(b, by: padding)) }
                        out.append(.pathLabel(PathLabelMark(text: shape.text, font: c.font, color: c.style.color, halo: c.style.halo,
                                                            haloWidth: halo, glyphs: p.glyphs, boxes: p.boxes)))
                    }
                }
                return out
            case .polygon(let rings):
                guard let pole = Polylabel.pole(of: rings, precision: ShapeLabelCandidate.polePrecision), pole.distance > 0 else { return [] }
                let size = measured(shape.text, font: c.font)
                // Centred on the pole; where the box (wider than the inscribed circle) crosses the
                // outline there, slid a quarter or half its width sideways, a half its height up
                // or down. None inside the polygon: it is too small for its name, left out.
                let w = size.width, h = size.height
                for (dx, dy) in [(0, 0), (-w / 4, 0), (w / 4, 0), (-w / 2, 0), (w / 2, 0), (0, -h / 2), (0, h / 2)] {
                    let b = Rect(x: pole.x + dx - w / 2, y: pole.y + dy - h / 2, width: w, height: h)
                    guard Polylabel.contains(b, rings: rings), c.allowOverlap || free(b) else { continue }
                    placedLabels.insert(LabelLayout.padded(b, by: padding))
                    return [.label(mark(shape.text, font: c.font, box: b))]
                }
                return []
            }
        }

        /// The side a measured label takes, or nil.
        func side(for label: LabelPlacer.Label, disc: Int? = nil, order: [LabelSide], hint: LabelSide?) -> (Rect, LabelSide)? {
            if c.allowOverlap {
                let side = hint ?? .right
                return (box(side, for: label, disc: disc), side)
            }
            guard soft != nil else {
                return boxes(order, for: label, disc: disc).first { fits($0.0, disc: disc, centred: $0.centred) }.map { ($0.0, $0.1) }
            }
            // The first free position (in the usual order: right, left, above, ...) that covers at
            // most a few small markers and crosses no coast; else the one with the lowest cost:
            // each small marker beyond the few, plus `coastCost` for a box across a coastline
            // (a name half on land, half at sea reads worst). Not simply the fewest markers: that
            // chases labels off the land, where the dots are not.
            var best: (box: Rect, side: LabelSide, cost: Int)?
            for (b, side, centred) in boxes(order, for: label, disc: disc) {
                guard fits(b, disc: disc, centred: centred), disc != nil || nearestOwn(b, dot: label.markBox) else { continue }
                let total = positionCost(b)
                if total == 0 { best = (b, side, 0); break }
                if best == nil || total < best!.cost { best = (b, side, total) }
            }
            return best.map { ($0.box, $0.side) }
        }
    }
}
