import CPrefetch
import Dispatch
import Foundation
import Synchronization

extension ClusterIndex {
    /// What building leaves: per level (zoom - lowest built zoom), its items as refs in order (empty
    /// when not retained) and how many there are; per zoom, the refs of the clusters made there.
    struct Built {
        var lists: [[Int32]]
        var counts: [Int]
        var batches: [Range<Int>]
        /// Passes decided on two sides that meet at a column (`Handoff`).
        var meetings = 0
        /// Zooms decided on a freeze's small grid, and the shift of the grid of every point less
        /// that of its thaw (-1: the thawed columns are half as wide; 1: twice as wide).
        var frozenZooms = 0
        var thawStep = 0
    }

    /// The grid cell for a zoom's radius: wider by more than twice a Float's rounding in [0, 1].
    static func cell(_ options: ClusterOptions, zoom: Int) -> Double {
        options.radius(atZoom: zoom) * (1 + 1e-9) + 0x1p-23
    }

    /// supercluster's `load`: from the points (zoom maxZoom + 1) down to `lowest`, each zoom made
    /// from the one above by a `Pass`. Two buffers of refs take turns as this zoom and the next.
    static func build(items: Items, options: ClusterOptions, operations: [Operation],
                      lowest: Int, bitExact: Bool, retainAllZooms: Bool, trees: TreeCache) -> Built {
        Pass.buildsRunning.add(1, ordering: .relaxed)
        defer { Pass.buildsRunning.subtract(1, ordering: .relaxed) }
        let n = items.pointCount
        let levelCount = options.maxZoom + 2 - lowest
        var built = Built(lists: Array(repeating: [], count: levelCount), counts: Array(repeating: 0, count: levelCount),
                          batches: Array(repeating: 0..<0, count: levelCount - 1))
        var list = UnsafeMutablePointer<Int32>.allocateLarge(capacity: Swift.max(n, 1))
        var out = UnsafeMutablePointer<Int32>.allocateLarge(capacity: Swift.max(n, 1))
        let visited = UnsafeMutablePointer<UInt8>.allocateLarge(capacity: items.capacity)
        let slot = UnsafeMutablePointer<Int32>.allocateLarge(capacity: items.capacity)
        defer {
            list.freeLarge()
            out.freeLarge()
            visited.freeLarge()
            slot.freeLarge()
        }
        // (A cluster's visited and slot are set when it is made.) On both cores: these are first
        // touches of fresh memory, 13 bytes a point. (`out` too: else the first pass's commit,
        // on one thread when few items are asked, touched it; 0.5-9 ms at zoom 16 on land 1M.)
        let first = out
        inParts(n) { range in
            for i in range { list[i] = Int32(i) }
            (first + range.lowerBound).initialize(repeating: 0, count: range.count)
            (visited + range.lowerBound).initialize(repeating: .max, count: range.count)
            (slot + range.lowerBound).initialize(repeating: -1, count: range.count)
        }
        var count = n
        let grid = bitExact ? nil : NeighbourGrid(capacity: n)
        var sides: [Pass.Decisions] = []
        defer { for side in sides { side.deallocate() } }
        // The zooms from maxZoom down to `freeze.end` on a small grid of the crowded points, when
        // there are few (see `Freeze`).
        var freeze: Freeze?, small: NeighbourGrid?
        if let grid, let plan = Freeze.plan(points: n, xy: items.pointXY, options: options, lowest: lowest) {
            let crowded = grid.loadMarkingCrowded(points: n, xy: items.pointXY, cell: plan.radius, finest: plan.finest)
            // (With at least half the points isolated, the thaw's columns are at most twice as
            // wide as those of this grid of every point; `plan` makes sure they are at most half
            // as wide: see `NeighbourGrid.thaw`.)
            if crowded.refs.count <= n / 2 {
                let g = NeighbourGrid(capacity: crowded.refs.count, columnsFor: n)
                g.otherItems = n - crowded.refs.count
                crowded.refs.withUnsafeBufferPointer { refs in
                    crowded.xy.withUnsafeBufferPointer { xy in
                        // (No crowded point at all, say on a regular lattice: nothing is read.)
                        g.load(points: refs, xy: xy.baseAddress ?? UnsafePointer(items.pointXY),
                               cell: cell(options, zoom: options.maxZoom), zoom: options.maxZoom, slot: slot)
                    }
                }
                precondition(g.shift == plan.finest, "the small grid has the columns of a grid of every point")
                freeze = plan
                small = g
            }
        }
        if freeze == nil {
            grid?.load(points: n, xy: items.pointXY, cell: cell(options, zoom: options.maxZoom), zoom: options.maxZoom, slot: slot)
        }
        // The columns of the grid of each zoom during a freeze (a survivor's place at the thaw depends on them).
        var shiftAt = [Int](repeating: 0, count: options.maxZoom + 2)
        // The new clusters of a zoom, for the grid of the next: kept from zoom to zoom (fresh
        // memory costs a page fault per 4 KiB).
        var added: [NeighbourGrid.Added] = []
        added.reserveCapacity(n / 2 + 1)   // a zoom makes at most one cluster per two of its items
        var z = options.maxZoom
        while z >= lowest {
            let level = z + 1 - lowest
            built.counts[level] = count
            let refs = UnsafeBufferPointer(start: list, count: count)
            if retainAllZooms { built.lists[level] = Array(refs) }
            // The level's KD-tree, kept for queries when the level is.
            let levelTree = { () -> KDIndex in
                retainAllZooms ? trees.value(level) { tree(refs: refs, items: items, nodeSize: options.nodeSize) }
                    : tree(refs: refs, items: items, nodeSize: options.nodeSize)
            }
            let pass = Pass(zoom: z, options: options, operations: operations,
                            items: items, visited: visited, slot: slot)
            let firstCluster = items.count
            let next: Int
            if let grid {
                added.removeAll(keepingCapacity: true)
                let frozen = freeze.map { z >= $0.end } ?? false
                let passGrid = frozen ? small! : grid
                if frozen { built.frozenZooms += 1 }
                if let order = Freeze.gridOrder, order.zoom == z { order.refs = passGrid.refsInOrder() }
                shiftAt[z] = passGrid.shift
                next = pass.cluster(refs, into: out, grid: passGrid, scratch: grid.scratch(bytes: 16 * count), sides: &sides,
                                    added: &added, meetings: &built.meetings, tree: levelTree)
                if z > lowest {
                    if let f = freeze, frozen && z == f.end {
                        // The thaw: the small grid's items and the new clusters join the points that
                        // stayed isolated, each where a grid of every item would hold it.
                        let pointCount = items.pointCount
                        var incoming = passGrid.survivors { ref in
                            // A cluster joined the grid of the zoom below the pass that made it
                            // (its id holds that pass's zoom + 1).
                            ref < pointCount ? f.finest : shiftAt[Int(items.clusterID[Int(ref) - pointCount] & 31) - 2]
                        }
                        let newShift = passGrid.nextShift(cell: cell(options, zoom: z - 1), count: incoming.count + added.count)
                        incoming += added.map { NeighbourGrid.Incoming(item: $0, joined: newShift) }
                        built.thawStep = grid.shift - newShift
                        small = nil
                        grid.thaw(cell: cell(options, zoom: z - 1), zoom: z - 1, shift: newShift, finest: f.finest,
                                  incoming: incoming, slot: slot)
                    } else {
                        passGrid.next(cell: cell(options, zoom: z - 1), zoom: z - 1, added: added, slot: slot)
                    }
                }
            } else {
                next = pass.clusterInTreeOrder(refs, into: out, tree: levelTree())
            }
            built.batches[z - lowest] = firstCluster..<items.count
            swap(&list, &out)
            count = next
            z -= 1
        }
        built.counts[0] = count
        built.lists[0] = Array(UnsafeBufferPointer(start: list, count: count))
        return built
    }

    /// The highest zooms without the points that stay isolated through them.
    ///
    /// At the highest zooms most points have nobody within the radius (uniform points over land:
    /// all but a few per cent down to zoom 12), yet merging the grid's columns and sweeping it
    /// cost every zoom ~11 ms a million points. A point with no other within `radius`, three
    /// times zoom `end`'s radius and then some, along both axes, is isolated at every zoom from
    /// maxZoom down to `end`: the clusters made meanwhile lie within twice those radii of the
    /// other points (each centroid within a radius, and a Float's rounding, of its seed), so
    /// none comes within the radius of it. Those points stay in the grid of every point, unswept;
    /// the others (the crowded ones) are clustered on a small grid with the columns of a grid of
    /// every item; after the pass at `end`, `NeighbourGrid.thaw` puts all
    /// of them back in the order a grid of every item would have. Same clusters, same order.
    struct Freeze {
        /// The lowest zoom decided on the small grid.
        let end: Int
        /// Within this, along both axes, a point is crowded.
        let radius: Double
        /// The columns of the first zoom's grid (of every point).
        let finest: Int

        /// Zooms a freeze decides at most.
        static let deepest = 8
        /// Tests read the order of the grid's items at a zoom through this.
        final class GridOrder: @unchecked Sendable {
            let zoom: Int
            var refs: [Int32] = []
            init(zoom: Int) { self.zoom = zoom }
        }
        @TaskLocal static var gridOrder: GridOrder?
        /// Points at least (below, the zooms cost little). Tests set it lower.
        @TaskLocal static var from = NeighbourGrid.parallelCount
        /// Tests set it to freeze this many zooms whatever the crowding (when the radii allow it;
        /// `build` still freezes only with at most half the points crowded).
        @TaskLocal static var forcedDepth: Int?

        /// What a crowded point costs a frozen zoom, in isolated points of a zoom of every point:
        /// a crowded point is asked about, an isolated one only merged and swept. Measured on
        /// land (uniform over the Natural Earth countries), build times of 250k to 2M points
        /// frozen 3 to 6 zooms deep (medians of 7; performance log, 2026-11-28): the depth this
        /// cost picks was the fastest or within 1 % of it at every size.
        static let crowdedCost = 3.0

        /// A freeze for `n` points at `xy`, or nil when none would pay or none can keep the
        /// columns of a grid of every point.
        ///
        /// The depth is chosen by the data: the crowded share grows with the radius (about 3.7x
        /// a zoom deeper) and with the density (twice the points on the same land, twice the
        /// share), so a fixed depth froze 10 % of land 1M but 19 % of land 2M, and its work grew
        /// 3.8x from 1M to 2M. In zooms of every point, a freeze of depth d costs d x share x
        /// `crowdedCost` for its frozen zooms, plus about one for filling the grid of every point
        /// and the thaw, and saves d zooms: the cheapest depth is kept, when it saves anything.
        /// Depths are tried from 1 down until none deeper can be cheaper: the share only grows
        /// with the radius, so a deeper depth costs at least what it would at this depth's share.
        static func plan(points n: Int, xy: UnsafePointer<Float>, options: ClusterOptions, lowest: Int) -> Freeze? {
            guard n >= from, n >= 2 else { return nil }
            let finest = NeighbourGrid.shift(cell: cell(options, zoom: options.maxZoom), count: n)
            if let forced = forcedDepth { return at(depth: forced, options: options, lowest: lowest, finest: finest) }
            var sample = CrowdSample(xy: xy, count: n)
            var best: (freeze: Freeze, cost: Double)?
            for depth in 1...deepest {
                guard let f = at(depth: depth, options: options, lowest: lowest, finest: finest) else { continue }
                let share = sample.crowdedShare(radius: f.radius)
                let c = cost(depth: depth, share: share)
                if c < best?.cost ?? .infinity { best = (f, c) }
                // A deeper depth costs at least `cost` at this share, which is linear in the depth:
                // least at the next depth or the deepest.
                let floor = depth < deepest ? Swift.min(cost(depth: depth + 1, share: share), cost(depth: deepest, share: share)) : 0
                if depth == deepest || floor >= Swift.min(best?.cost ?? 0, 0) { break }
            }
            guard let best, best.cost < 0 else { return nil }
            return best.freeze
        }

        /// The cost of a freeze of `depth` zooms with `share` of the points crowded, against none,
        /// in zooms of every point (see `plan`).
        static func cost(depth: Int, share: Double) -> Double {
            Double(depth) * (crowdedCost * share - 1) + 1
        }

        /// The freeze of `depth` zooms, for a first grid of `finest` columns, if the radii allow it.
        static func at(depth: Int, options: ClusterOptions, lowest: Int, finest: Int) -> Freeze? {
            let end = options.maxZoom - depth + 1
            guard depth >= 1, end - 1 >= lowest, finest + 38 <= 64 else { return nil }
            let radius = 3 * options.radius(atZoom: end) * (1 + 1e-9) + 0x1p-20
            // Columns for `radius` at most twice as wide as those of zoom end - 1, which the thaw
            // makes (not so for radii of a few Float roundings: a radius of 1 px, or zoom 21 up).
            guard radius <= 2 * cell(options, zoom: end - 1) else { return nil }
            return Freeze(end: end, radius: radius, finest: finest)
        }

        /// Every kth point (all of them below 8192 points, else about 4k), to estimate the share of
        /// points with another within a radius along both axes at several radii: one grid, loaded
        /// again for each. (Each load of 16k points took ~0.5 ms, and `plan` loads up to
        /// `deepest`; with 4k, ~0.14 ms, and the shares of land 250k and 2M and of clumps 1M
        /// within 0.01 of those of 16k.)
        struct CrowdSample {
            private let step: Int
            private var xy: [Float]
            private let grid: NeighbourGrid
            private var slot: [Int32]
            /// Loads so far: a load's slots are tagged with its own number (`NeighbourGrid.slot`).
            private var loads = 0

            init(xy points: UnsafePointer<Float>, count n: Int) {
                step = Swift.max(1, n / 4096)
                let m = n / step
                xy = [Float](repeating: 0, count: 2 * m)
                for k in 0..<m {
                    xy[2 * k] = points[2 * k * step]
                    xy[2 * k + 1] = points[2 * k * step + 1]
                }
                grid = NeighbourGrid(capacity: m)
                slot = [Int32](repeating: -1, count: m)
            }

            /// The share, from the sample and k^(1/2) times the radius (as many expected
            /// neighbours where points are spread evenly at the scale of that distance; more where
            /// they crowd).
            mutating func crowdedShare(radius: Double) -> Double {
                let m = slot.count, tag = loads
                precondition(tag < 31, "a sweep's zoom tag is below 31")
                loads += 1
                let grid = self.grid, cell = radius * Double(step).squareRoot()
                xy.withUnsafeBufferPointer { xy in
                    slot.withUnsafeMutableBufferPointer { slot in
                        grid.load(points: m, xy: xy.baseAddress!, cell: cell, zoom: tag, slot: slot.baseAddress!)
                    }
                }
                let crowded = slot.reduce(0) { $0 + (NeighbourGrid.position(slot: $1, zoom: tag) != nil ? 1 : 0) }
                return Double(crowded) / Double(Swift.max(m, 1))
            }
        }
    }

    /// A KD-tree over a level's items (by their index in the level).
    static func tree(refs: UnsafeBufferPointer<Int32>, items: Items, nodeSize: Int) -> KDIndex {
        var xy = [Double](repeating: 0, count: 2 * refs.count)
        xy.withUnsafeMutableBufferPointer { xy in
            for (k, ref) in refs.enumerated() {
                xy[2 * k] = items.x(Int(ref))
                xy[2 * k + 1] = items.y(Int(ref))
            }
        }
        return xy.withUnsafeBufferPointer { KDIndex(data: $0, stride: 2, count: refs.count, nodeSize: nodeSize) }
    }

    /// One zoom of supercluster's `_cluster`: the items of the zoom above, visited in order, each
    /// one not yet taken taking the untaken items within the radius; a cluster if they make at
    /// least `minPoints` points, else each stays as it is. Writes the zoom's refs to `out` and
    /// returns how many.
    ///
    /// Two ways to the same clusters. `clusterInTreeOrder` is supercluster's own: a KD-tree query
    /// per item, neighbours in the tree's order. `cluster` finds the items with nobody near (most
    /// of them, at high zooms) in one sweep of a grid, and asks the grid about the others; their
    /// neighbours come in the grid's order, which changes only the order in which a centroid is
    /// summed. It builds the KD-tree only where the order decides more: when too few points for
    /// a cluster (`minPoints` > 2) are kept as they are, in the tree's order.
    struct Pass {
        /// Cores to decide a pass on (two sides that wait for each other need two).
        static let cores = ProcessInfo.processInfo.activeProcessorCount
        /// Items to decide, at least, for two sides (below, a second thread costs more than it
        /// saves). Tests set it lower, to decide small data on two sides. (2^14, was 2^16: passes
        /// of 16k-64k items, 1-4 ms each on one thread, come at the low zooms of every
        /// distribution and the highest of clumps; the sum of a 1M build's passes fell 1-11 ms on
        /// land, clumps and gen_points, medians of 7 in two rounds; 2^13 gained nothing more.)
        @TaskLocal static var sidesFrom = 1 << 14
        /// Whether a pass heeds the other builds of the process: decides on one side while
        /// another build runs, and claims the process's turn before deciding on meeting sides
        /// (`Handoff.make`). Tests that compare two sides with one turn it off, so that builds of
        /// other tests running at the same time cannot keep their sides from meeting.
        @TaskLocal static var claimsTurn = true
        /// Builds in progress in the process (`build`). Beside another build (the frames of an
        /// animation clustered two at a time, the maps of a batch) a pass decides on one side:
        /// the other build has the other core, and a second side would put three threads on two
        /// cores, sides that wait for each other among them. `animate`'s cluster stage (two
        /// keyframes, 10 frames, two runs each, 250k to 2M points) took 9-17 % less on land, 2-7 %
        /// on clumps, 0-8 % on gen_points; a batch of four maps of land 2M 1.94-1.99 s, was 2.03-2.21.
        static let buildsRunning = Atomic<Int>(0)

        let zoom: Int
        let options: ClusterOptions
        let operations: [Operation]
        let items: Items
        /// `visited[ref] == zoom`: taken in this pass (by `clusterInTreeOrder`; the pass over a
        /// grid marks the grid's entries).
        let visited: UnsafeMutablePointer<UInt8>
        /// Grid positions (see `NeighbourGrid.slot(position:zoom:)`).
        let slot: UnsafeMutablePointer<Int32>

        /// What one side of a pass decided, in input order, for `commit` to write.
        struct Decisions {
            /// Per item to write: the index in the zoom above of the item that decided (a seed),
            /// and the ref to write, or -(k + 1) for the kth new cluster.
            var writes = PlainLog<(index: Int32, ref: Int32)>()
            /// A new cluster: centroid, points, the seed and its position, and where its members start.
            typealias NewCluster = (x: Double, y: Double, weight: Int32, seed: Int32, seedPosition: Int32, firstMember: Int32)
            var clusters = PlainLog<NewCluster>()
            /// Members of the new clusters (refs and grid positions), in the order summed.
            var members = PlainLog<(ref: Int32, position: Int32)>()

            /// Empty logs with room for the decisions of `items` items.
            init(roomFor items: Int) { prepare(items: items, shared: 0) }

            /// Empty, with room for the decisions of `items` items, `shared` of them reachable by the
            /// other side too (its seeds may take them). As many as can be (pages reserved but not
            /// written cost no memory; growing by doubling would copy, and keep up to twice as
            /// much). Called on the thread that runs the pass: memory a side's own thread
            /// allocated would come from that thread's malloc arena, which keeps it when freed.
            mutating func prepare(items: Int, shared: Int) {
                removeAll()
                writes.reserve(items)
                clusters.reserve((items + shared) / 2)
                members.reserve(items + shared)
            }

            mutating func removeAll() {
                writes.removeAll()
                clusters.removeAll()
                members.removeAll()
            }

            /// Gives the memory back (the logs are plain memory, see `PlainLog`).
            func deallocate() {
                writes.deallocate()
                clusters.deallocate()
                members.deallocate()
            }
        }

        /// The pass over a grid: the items that are not isolated decide, in input order (on two
        /// threads for a large zoom, see `split`); `commit` then writes the next zoom in order.
        /// `scratch`: 16 bytes per item of `list`, free during the pass.
        func cluster(_ list: UnsafeBufferPointer<Int32>, into out: UnsafeMutablePointer<Int32>, grid: NeighbourGrid,
                     scratch: UnsafeMutableRawPointer, sides: inout [Decisions], added: inout [NeighbourGrid.Added],
                     meetings: inout Int, tree: () -> KDIndex) -> Int {
            let count = list.count
            // The items that are not isolated (an isolated item takes no other and none takes it:
            // it stays as it is, in its place in the order), with their positions in the grid, in
            // `scratch` (the spare memory of the grid of every item), in input order.
            let askedIndex = scratch.bindMemory(to: Int32.self, capacity: 2 * count)
            let askedSlot = (scratch + 8 * count).bindMemory(to: Int32.self, capacity: 2 * count)
            // (In parts for a large zoom, each writing its part's from where the part starts; then
            // moved down behind the previous part's.)
            let m = keepInParts(count, { range in
                var m = range.lowerBound
                for i in range {
                    if let p = NeighbourGrid.position(slot: slot[Int(list[i])], zoom: zoom) {
                        askedIndex[m] = Int32(i)
                        askedSlot[m] = p
                        m += 1
                    }
                }
                return m - range.lowerBound
            }, move: { from, to, n in
                for k in 0..<n {
                    askedIndex[to + k] = askedIndex[from + k]
                    askedSlot[to + k] = askedSlot[from + k]
                }
            })
            // Two sides, each deciding its own items on a core of its own. Where an empty column
            // parts the items, no item on one side is within the radius of one on the other, and
            // each side's decisions are those of the whole pass. Elsewhere the sides meet at a
            // column, and take turns at the items near it (`Handoff`). (Not when the KD-tree's
            // order is needed: it is built on first use; nor beside another build: `buildsRunning`.)
            var halves = [0..<m]
            var handoff: Handoff?
            let sidesAllowed = !Work.serial && (!Self.claimsTurn || Self.buildsRunning.load(ordering: .relaxed) == 1)
            if m >= Self.sidesFrom && options.minPoints <= 2 && sidesAllowed {
                let sample = NeighbourGrid.sample(of: askedSlot, count: m)
                var split = grid.emptyColumnSplit(sample: sample)
                if split == nil, Self.cores >= 2, let meeting = grid.meetingSplit(sample: sample),
                   let meetingSides = Handoff.make(boundary: meeting.boundary, claimingTurn: Self.claimsTurn) {
                    split = meeting.split
                    handoff = meetingSides
                }
                if let split {
                    if let sides = Self.split(m, at: split, askedIndex, askedSlot, room: count) { halves = sides } else { handoff = nil }
                }
            }
            // A side made now has room for all of this zoom's items, as many as any later zoom
            // asks about: moved to a larger room zoom after zoom, its logs were written into fresh
            // memory each time (a page fault per 4 KiB).
            while sides.count < halves.count { sides.append(Decisions(roomFor: count)) }
            for (side, half) in halves.enumerated() {
                sides[side].prepare(items: half.count, shared: handoff?.boundary.count ?? 0)
            }

            if halves.count == 1 {
                decide(halves[0], list, askedIndex, askedSlot, grid, &sides[0], tree: tree)
            } else {
                sides.withUnsafeMutableBufferPointer { sides in
                    if let handoff {
                        meetings += 1
                        let logs = sides.baseAddress!
                        Handoff.simultaneously({
                            decide(halves[0], list, askedIndex, askedSlot, grid, &logs[0], tree: tree, handoff: (handoff, 0))
                        }, {
                            decide(halves[1], list, askedIndex, askedSlot, grid, &logs[1], tree: tree, handoff: (handoff, 1))
                        })
                    } else {
                        Work.perform(iterations: 2) { side in
                            decide(halves[side], list, askedIndex, askedSlot, grid, &sides[side], tree: tree)
                        }
                    }
                }
            }
            return commit(list, sides[0..<halves.count], asked: halves, askedIndex, into: out, grid: grid, added: &added)
        }

        /// The `m` asked items (`askedIndex`, `askedSlot` from 0) parted at grid position `split`,
        /// each side in input order, into the second half of the room (`room` entries from
        /// `room` on, room >= m): the right side's first, then the left's. Returns the left and
        /// the right side's ranges, or nil when a side is empty (the items stay where they were).
        ///
        /// In parts on both cores (`inParts`): each part counts its left items, then writes its
        /// items after the earlier parts' of the same side. The sources stay unwritten, so parts
        /// never read what another writes. (In place on one thread, this took 9-10 ms of a land 1M
        /// build while the other core waited.)
        static func split(_ m: Int, at split: Int32, _ askedIndex: UnsafeMutablePointer<Int32>,
                          _ askedSlot: UnsafeMutablePointer<Int32>, room: Int) -> [Range<Int>]? {
            precondition(m <= room, "room for the sides behind the asked items")
            let ranges = partRanges(m, minimum: 1 << 16)
            var lefts = [Int](repeating: 0, count: ranges.count)
            lefts.withUnsafeMutableBufferPointer { lefts in
                eachPart(ranges) { k in
                    var c = 0
                    for i in ranges[k] { c &+= Int(unsafeBitCast(askedSlot[i] < split, to: UInt8.self)) }
                    lefts[k] = c
                }
            }
            let leftCount = lefts.reduce(0, +), rightCount = m - leftCount
            guard leftCount > 0 && rightCount > 0 else { return nil }
            // Where each part's items of either side start.
            var leftStarts: [Int] = [], rightStarts: [Int] = []
            var l = room + rightCount, r = room
            for (k, range) in ranges.enumerated() {
                leftStarts.append(l)
                rightStarts.append(r)
                l += lefts[k]
                r += range.count - lefts[k]
            }
            eachPart(ranges) { k in
                var l = leftStarts[k], r = rightStarts[k]
                for i in ranges[k] {
                    let s = askedSlot[i], to = s < split ? l : r
                    askedIndex[to] = askedIndex[i]
                    askedSlot[to] = s
                    if s < split { l += 1 } else { r += 1 }
                }
            }
            return [room + rightCount..<room + m, room..<room + rightCount]
        }

        /// The decisions of the items `asked` (indexes into askedIndex/askedSlot), in input order.
        private func decide(_ asked: Range<Int>, _ list: UnsafeBufferPointer<Int32>, _ askedIndex: UnsafeMutablePointer<Int32>,
                            _ askedSlot: UnsafeMutablePointer<Int32>, _ grid: NeighbourGrid, _ log: inout Decisions,
                            tree: () -> KDIndex, handoff: (Handoff, side: Int)? = nil) {
            // Used without retaining it (the caller holds it): a retain and release per item
            // would write its reference count from both threads, about 8 % of the whole run.
            let meeting = handoff.map { Unmanaged.passUnretained($0.0) }, side = handoff?.side ?? 0
            defer { handoff?.0.finish(side: side) }
            log.prepare(items: asked.count, shared: handoff?.0.boundary.count ?? 0)
            let r = options.radius(atZoom: zoom), r2 = r * r
            var found = NeighbourGrid.Found()
            defer { found.deallocate() }
            var rankByRef: UnsafeMutablePointer<Int32>?
            defer { rankByRef?.freeLarge() }
            for k in asked {
                // They are visited in input order, so their entries lie anywhere in the grid: fetch
                // the entries of those a few steps ahead, then the windows they will read.
                if k + 32 < asked.upperBound { grid.prefetchEntry(askedSlot[k + 32]) }
                if k + 16 < asked.upperBound {
                    grid.prefetchWindows(askedSlot[k + 16])
                    let ahead = Int(list[Int(askedIndex[k + 16])])
                    if ahead >= items.pointCount { mr_prefetch(items.clusterXY + 2 * (ahead - items.pointCount)) }
                }
                let index = askedIndex[k], s = askedSlot[k]
                // (Before looking whether the item was taken: the other side may take it.)
                meeting?._withUnsafeGuaranteedRef { $0.begin(side: side, index: Int(index), position: s) }
                let item = list[Int(index)], ref = Int(item)
                // Taken by an earlier seed in this pass (`take` marks the entries it takes, and
                // the seed's own): read from the entry the pass fetched anyway, not from a
                // table by ref, which every neighbour found would write at random.
                let e = grid.entry(s)
                if e.isTaken { continue }
                found.removeAll()
                // A point's position is its entry's (a Float); a cluster's is only in the store.
                let sx = ref < items.pointCount ? Double(e.x) : items.x(ref), sy = ref < items.pointCount ? Double(e.y) : items.y(ref)
                let total = Int(e.weight) + grid.take(position: Int(s), x: sx, y: sy, r2: r2, into: &found,
                                                      clusters: items.pointCount, clusterXY: items.clusterXY)
                var neighbours = UnsafeMutableBufferPointer(start: found.refs, count: found.count)
                let positions = UnsafeBufferPointer(start: found.positions, count: found.count)
                if !neighbours.isEmpty && total >= options.minPoints {
                    // The centroid, summed as supercluster sums it (seed first).
                    let w0 = Double(e.weight)
                    var weight = w0, wx = sx * w0, wy = sy * w0
                    for p in positions {
                        let n = grid.entry(p), b = Int(n.ref), w = Double(n.weight)
                        wx += (b < items.pointCount ? Double(n.x) : items.x(b)) * w
                        wy += (b < items.pointCount ? Double(n.y) : items.y(b)) * w
                        weight += w
                    }
                    grid.markMerged(s)
                    for p in positions { grid.markMerged(p) }
                    log.writes.append((index, -Int32(log.clusters.count) - 1))
                    log.clusters.append((wx / weight, wy / weight, Int32(weight), item, s, Int32(log.members.count)))
                    for (b, p) in zip(neighbours, positions) { log.members.append((b, p)) }
                    continue
                }
                log.writes.append((index, item))
                if neighbours.count > 1 {
                    // Kept as they are, in supercluster's order: the KD-tree's (their positions
                    // are not needed any more).
                    if rankByRef == nil {
                        let ranks = tree().traversalRanks()
                        let byRef = UnsafeMutablePointer<Int32>.allocateLarge(capacity: items.capacity)
                        for (k, ref) in list.enumerated() { byRef[Int(ref)] = ranks[k] }
                        rankByRef = byRef
                    }
                    let rank = rankByRef!
                    neighbours.sort { rank[Int($0)] < rank[Int($1)] }
                }
                for b in neighbours { log.writes.append((index, b)) }
            }
        }

        /// Writes the next zoom in input order: isolated items where they were, each side's
        /// decisions where their seed was; makes the new clusters (refs in input order).
        ///
        /// Every item visited in the pass was asked about (a neighbour within the radius is not
        /// isolated either), so the items between two asked ones are isolated and stay as they
        /// are: they are copied as one run, and only the asked items (each side's, in input order
        /// in `askedIndex[asked[side]]`) are looked at one by one. At the high zooms, where
        /// almost every item is isolated, the pass writes the next zoom at the speed of a copy.
        ///
        /// A large pass is written in parts of the input order that the threads take as they come
        /// free (`inParts`): where a part starts in the output, and which ref its first new cluster gets, follow from
        /// counting the asked items, writes and new clusters before it (`Cursor.at`).
        private func commit(_ list: UnsafeBufferPointer<Int32>, _ sides: ArraySlice<Decisions>,
                            asked: [Range<Int>], _ askedIndex: UnsafeMutablePointer<Int32>,
                            into out: UnsafeMutablePointer<Int32>, grid: NeighbourGrid,
                            added: inout [NeighbourGrid.Added]) -> Int {
            let logs = Array(sides)
            precondition(asked.count == logs.count, "one range of asked items per side")
            // Each side's decisions through pointers: reading them through the array of sides
            // would retain and release their arrays once per item.
            let views = logs.map { log in
                View(writes: log.writes.buffer, clusters: log.clusters.buffer, members: log.members.buffer)
            }
            let newClusters = logs.reduce(0) { $0 + $1.clusters.count }
            let firstRef = items.count, firstAdded = added.count
            // One Added per new cluster, written by the part that makes it.
            added.append(contentsOf: repeatElement(NeighbourGrid.Added(ref: 0, x: 0, y: 0, weight: 0), count: newClusters))
            let askedCount = asked.reduce(0) { $0 + $1.count }
            // Parts of the input order with about as many asked items each, taken by the threads
            // as they come free (a fixed half on a core the machine slows sets the pace: `inParts`).
            var bounds = [0, list.count]
            if askedCount >= Self.commitPartsFrom {
                let parts = workParts
                var inner: [Int] = []
                for k in 1..<parts {
                    let lo = partitionPoint(0..<list.count) { index in
                        asked.reduce(0) { $0 + Cursor.firstAsked(atOrAfter: index, in: $1, askedIndex) - $1.lowerBound }
                            >= askedCount * k / parts
                    }
                    if lo > (inner.last ?? 0) && lo < list.count { inner.append(lo) }
                }
                bounds = [0] + inner + [list.count]
            }
            let starts = bounds.dropLast().map {
                Cursor.at(index: $0, asked: asked, askedIndex, views: views, firstRef: firstRef)
            }
            var ends = [Cursor](repeating: Cursor(out: 0, ref: 0, asked: [], writes: []), count: starts.count)
            withExtendedLifetime(logs) {
                added.withUnsafeMutableBufferPointer { added in
                    ends.withUnsafeMutableBufferPointer { ends in
                        let addedBase = added.baseAddress! + firstAdded - firstRef
                        if starts.count == 1 {
                            ends[0] = write(bounds[0]..<bounds[1], from: starts[0], list, views, asked: asked, askedIndex,
                                            into: out, added: addedBase)
                        } else {
                            Work.perform(iterations: starts.count) { part in
                                ends[part] = write(bounds[part]..<bounds[part + 1], from: starts[part], list, views, asked: asked,
                                                   askedIndex, into: out, added: addedBase)
                            }
                        }
                    }
                }
            }
            for part in 0..<starts.count - 1 {
                precondition(ends[part] == starts[part + 1], "a part of the pass did not end where the next one starts")
            }
            let end = ends[ends.count - 1]
            for side in views.indices {
                precondition(end.writes[side] == views[side].writes.count && end.asked[side] == asked[side].upperBound,
                             "a decision was not written")
            }
            precondition(end.ref == firstRef + newClusters, "a new cluster was not made")
            items.count = end.ref
            for log in logs {
                let clusters = log.clusters.base, members = log.members.base
                grid.noteMerged(count: log.clusters.count) { clusters[$0].seedPosition }
                grid.noteMerged(count: log.members.count) { members[$0].position }
            }
            return end.out
        }

        /// Asked items a pass needs before its commit is written in parts (below, a second thread
        /// costs more than it saves). Tests set it lower, to write small data in parts.
        @TaskLocal static var commitPartsFrom = 1 << 14

        /// One side's decisions, read through pointers.
        struct View {
            var writes: UnsafeBufferPointer<(index: Int32, ref: Int32)>
            var clusters: UnsafeBufferPointer<Decisions.NewCluster>
            var members: UnsafeBufferPointer<(ref: Int32, position: Int32)>
        }

        /// Where the commit stands at an input index: the output position, the next new cluster's
        /// ref, and per side the next asked item and the next write.
        struct Cursor: Equatable {
            var out: Int
            var ref: Int
            var asked: [Int]
            var writes: [Int]

            /// The first of `range`'s asked items (in input order) whose input index is at least `index`.
            static func firstAsked(atOrAfter index: Int, in range: Range<Int>, _ askedIndex: UnsafeMutablePointer<Int32>) -> Int {
                partitionPoint(range) { Int(askedIndex[$0]) >= index }
            }

            /// The cursor at input index `index`: every item before it is written. The output
            /// holds the isolated items before it and the writes of the seeds before it; the refs
            /// before its first new cluster are those of the clusters seeded before it.
            static func at(index: Int, asked: [Range<Int>], _ askedIndex: UnsafeMutablePointer<Int32>, views: [View],
                           firstRef: Int) -> Cursor {
                var cursor = Cursor(out: index, ref: firstRef, asked: [], writes: [])
                for (side, v) in views.enumerated() {
                    let a = firstAsked(atOrAfter: index, in: asked[side], askedIndex)
                    let lo = partitionPoint(0..<v.writes.count) { Int(v.writes[$0].index) >= index }
                    // The side's new clusters before it: one more than the last one written before it.
                    var w = lo - 1
                    while w >= 0 && v.writes[w].ref >= 0 { w -= 1 }
                    cursor.out += lo - (a - asked[side].lowerBound)
                    cursor.ref += w >= 0 ? Int(-v.writes[w].ref) : 0
                    cursor.asked.append(a)
                    cursor.writes.append(lo)
                }
                return cursor
            }
        }

        /// Writes the items of input indexes `range` from `cursor` on (see `commit`); returns the
        /// cursor at its end. New clusters' `Added` go to `added[ref]`.
        private func write(_ range: Range<Int>, from cursor: Cursor, _ list: UnsafeBufferPointer<Int32>, _ views: [View],
                           asked: [Range<Int>], _ askedIndex: UnsafeMutablePointer<Int32>,
                           into out: UnsafeMutablePointer<Int32>, added: UnsafeMutablePointer<NeighbourGrid.Added>) -> Cursor {
            var cursor = cursor
            let base = list.baseAddress
            var o = cursor.out, ref = cursor.ref, copied = range.lowerBound
            // Each side's next asked item and next write through pointers: changing the cursor's
            // arrays item by item asked the runtime at every item whether they were shared.
            var nextAsked = cursor.asked, nextWrite = cursor.writes
            nextAsked.withUnsafeMutableBufferPointer { nextAsked in
                nextWrite.withUnsafeMutableBufferPointer { nextWrite in
                    while true {
                        // The next asked item in input order, of either side.
                        var side = -1, i = range.upperBound
                        for s in views.indices where nextAsked[s] < asked[s].upperBound {
                            let k = Int(askedIndex[nextAsked[s]])
                            if k < i { i = k; side = s }
                        }
                        // The isolated items before it, as they were.
                        if i > copied, let base {
                            (out + o).update(from: base + copied, count: i - copied)
                            o += i - copied
                        }
                        guard side >= 0 else { break }
                        nextAsked[side] += 1
                        copied = i + 1
                        // A seed writes its decisions; an item another took writes nothing.
                        let v = views[side]
                        var w = nextWrite[side]
                        while w < v.writes.count && Int(v.writes[w].index) == i {
                            let r = v.writes[w].ref
                            if r >= 0 {
                                out[o] = r
                            } else {
                                let k = Int(-r - 1)
                                let cluster = v.clusters[k]
                                let end = k + 1 < v.clusters.count ? Int(v.clusters[k + 1].firstMember) : v.members.count
                                let members = UnsafeBufferPointer(rebasing: v.members[Int(cluster.firstMember)..<end])
                                // Each member's parent is written at random: fetch those of the members a
                                // few clusters on (the members are written in the order they were logged).
                                var ahead = Int(cluster.firstMember) + 32
                                while ahead < Swift.min(end + 32, v.members.count) {
                                    mr_prefetch(items.parent + Int(v.members[ahead].ref))
                                    ahead += 1
                                }
                                makeCluster(ref, seedIndex: i, seed: Int(cluster.seed), x: cluster.x, y: cluster.y,
                                            weight: cluster.weight, members: members)
                                added[ref] = NeighbourGrid.Added(ref: Int32(ref), x: Float(cluster.x), y: Float(cluster.y),
                                                                 weight: cluster.weight)
                                out[o] = Int32(ref)
                                ref += 1
                            }
                            o += 1
                            w += 1
                        }
                        nextWrite[side] = w
                    }
                }
            }
            cursor.asked = nextAsked
            cursor.writes = nextWrite
            cursor.out = o
            cursor.ref = ref
            return cursor
        }

        func clusterInTreeOrder(_ list: UnsafeBufferPointer<Int32>, into out: UnsafeMutablePointer<Int32>,
                                tree: KDIndex) -> Int {
            let stamp = UInt8(zoom)
            let r = options.radius(atZoom: zoom)
            var found: [Int32] = [], neighbours: [Int32] = []
            var o = 0
            for (i, item) in list.enumerated() {
                let ref = Int(item)
                if visited[ref] == stamp { continue }
                visited[ref] = stamp
                found.removeAll(keepingCapacity: true)
                neighbours.removeAll(keepingCapacity: true)
                tree.within(x: items.x(ref), y: items.y(ref), radius: r, into: &found)
                var total = Int(items.weight(ref))
                for k in found {
                    let b = list[Int(k)]
                    guard visited[Int(b)] != stamp else { continue }
                    visited[Int(b)] = stamp
                    neighbours.append(b)
                    total += Int(items.weight(Int(b)))
                }
                if !neighbours.isEmpty && total >= options.minPoints {
                    let w0 = Double(items.weight(ref))
                    var weight = w0, wx = items.x(ref) * w0, wy = items.y(ref) * w0
                    for b in neighbours {
                        let w = Double(items.weight(Int(b)))
                        wx += items.x(Int(b)) * w
                        wy += items.y(Int(b)) * w
                        weight += w
                    }
                    let members = neighbours.map { (ref: $0, position: Int32(-1)) }
                    out[o] = Int32(members.withUnsafeBufferPointer {
                        makeCluster(seedIndex: i, seed: ref, x: wx / weight, y: wy / weight, weight: Int32(weight), members: $0)
                    })
                    o += 1
                    continue
                }
                out[o] = item
                o += 1
                for b in neighbours {
                    out[o] = b
                    o += 1
                }
            }
            return o
        }

        /// A new cluster of the item `seed` (the `seedIndex`th of the zoom above) and `members`, at
        /// (x, y) (their count-weighted centroid): its ref. Reduces the aggregates seed first, then
        /// the members in order, as supercluster does.
        private func makeCluster(seedIndex i: Int, seed: Int, x: Double, y: Double, weight: Int32,
                                 members: UnsafeBufferPointer<(ref: Int32, position: Int32)>) -> Int {
            let c = items.count
            items.count += 1
            makeCluster(c, seedIndex: i, seed: seed, x: x, y: y, weight: weight, members: members)
            return c
        }

        /// `makeCluster` under the ref `c`, which the caller reserves (`items.count`): two threads
        /// may make clusters of their own refs at once.
        private func makeCluster(_ c: Int, seedIndex i: Int, seed: Int, x: Double, y: Double, weight: Int32,
                                 members: UnsafeBufferPointer<(ref: Int32, position: Int32)>) {
            let parent = items.parent
            let a2 = 2 * items.aggregateCount, agg = items.aggregates
            for j in 0..<a2 { agg[c * a2 + j] = agg[seed * a2 + j] }
            for member in members {
                let b = Int(member.ref)
                parent[b] = Int32(c)
                for (a, op) in operations.enumerated() {
                    let vb = agg[b * a2 + 2 * a], nb = agg[b * a2 + 2 * a + 1]
                    guard nb > 0 else { continue }
                    let s = c * a2 + 2 * a
                    if agg[s + 1] == 0 {
                        agg[s] = vb
                    } else {
                        switch op {
                        case .sum, .mean: agg[s] += vb
                        case .min: agg[s] = Swift.min(agg[s], vb)
                        case .max: agg[s] = Swift.max(agg[s], vb)
                        }
                    }
                    agg[s + 1] += nb
                }
            }
            parent[seed] = Int32(c)
            items.setCluster(c, x: x, y: y, weight: weight)
            parent[c] = -1
            visited[c] = .max
            slot[c] = -1
            items.clusterID[c - items.pointCount] = UInt32((i << 5) + (zoom + 1))
        }
    }
}
