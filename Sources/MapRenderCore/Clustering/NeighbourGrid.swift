import CPrefetch
import Dispatch

/// One zoom's items in the columns of a grid, each column sorted by y: finds the items near an
/// item, and knows which items have no other item near them at all.
///
/// The clustering pass asks, in the items' own order, for the untaken items within the radius of
/// each item. Asked of a KD-tree, each question lands somewhere else in memory. Here one sweep
/// through the columns, reading memory front to back, finds the items with nobody near (most
/// of them at the high zooms) and, for the others, where their neighbours start in the three columns
/// around them, so that a question reads only those few runs, next to each other in memory.
///
/// Columns are `2^-shift` wide and at least `cell` wide; `cell` must exceed the radius by more
/// than twice the `Float` rounding of a coordinate, so that a neighbour of an item is within
/// `cell` of it along both axes whether its `Double` or its `Float` position is used. Positions
/// are the `Float`s a kdbush tree would hold. As the radius doubles from one zoom to the next,
/// the grid of the next zoom is made from this one (`next`): the columns merge pairwise, items
/// merged into clusters drop out, the new clusters are merged in by y.
///
/// Items are named by their ref in the index's item store, so that nothing is renumbered from one
/// zoom to the next. The grid owns two sets of buffers as large as the first zoom and takes turns
/// writing into them: a zoom costs no allocation (fresh memory costs a page fault per 4 KiB, which
/// took about a third of each zoom's time when every zoom allocated its own). Between sweeps the
/// spare set is free, and lends its memory as scratch (`scratch`, and the radix sort's buffers).
/// Large grids are swept and merged in runs of columns that the threads take as they come free
/// (`inParts`; the result does not depend on it).
///
/// - Complexity: O(n) to build from scratch (a radix sort), O(n + c) for `next` with c new
///   clusters; the sweep is O(n) for evenly spread items.
final class NeighbourGrid {
    /// One item at its place in the grid (16 bytes: a million items take 16 MB per set of buffers).
    struct Entry {
        var x: Float
        var y: Float
        var ref: Int32
        /// Points it stands for (below 2^26), and the flags `taken` and `merged`.
        var state: Int32

        /// Taken by a cluster (or kept as it is) in the pass under way.
        static let taken: Int32 = 1 << 30
        /// Merged into a new cluster in the pass under way: not carried to the next zoom.
        static let merged: Int32 = 1 << 29

        init(x: Float, y: Float, ref: Int32, weight: Int32) {
            self.x = x
            self.y = y
            self.ref = ref
            state = weight
        }

        var weight: Int32 { state & (Self.merged - 1) }
        var isTaken: Bool { state & Self.taken != 0 }
        var isMerged: Bool { state & Self.merged != 0 }
    }

    /// A new cluster for the next zoom's grid.
    struct Added {
        var ref: Int32
        var x: Float
        var y: Float
        var weight: Int32
    }

    /// The refs and grid positions `take` finds for one item: scratch memory reused from item to
    /// item (appending to two arrays cost more than the search itself in a dense zoom). The owner
    /// deallocates it.
    struct Found {
        private var refLog: PlainLog<Int32>
        private var positionLog: PlainLog<Int32>

        init(capacity: Int = 64) {
            refLog = PlainLog(capacity: capacity)
            positionLog = PlainLog(capacity: capacity)
        }

        func deallocate() {
            refLog.deallocate()
            positionLog.deallocate()
        }

        var refs: UnsafeMutablePointer<Int32> { refLog.base }
        var positions: UnsafeMutablePointer<Int32> { positionLog.base }
        var count: Int { refLog.count }
        var isEmpty: Bool { count == 0 }

        mutating func removeAll() {
            refLog.removeAll()
            positionLog.removeAll()
        }

        @inline(__always)
        mutating func append(ref: Int32, position: Int32) {
            refLog.append(ref)
            positionLog.append(position)
        }
    }

    private(set) var cell = 0.0
    private(set) var shift = 0
    /// Items in the grid.
    private(set) var count = 0
    /// Positions marked merged since the last sweep.
    private var mergedPositions: [Int32] = []
    private let capacity: Int
    /// `start[c]..<start[c + 1]` are column c's positions; a last entry repeats the end, so that
    /// the column right of the last one is empty.
    private var start: UnsafeMutablePointer<Int32>
    private var entries: UnsafeMutablePointer<Entry>
    private var spareStart: UnsafeMutablePointer<Int32>
    private var spareEntries: UnsafeMutablePointer<Entry>
    /// By position, for items not isolated: in the columns left and right of its own, the first
    /// position whose y is not below the item's y - cell, or a few Float steps below it
    /// (`bits(around:within:)`; the column's end beyond the edges).
    /// Written by the sweep, read by questions; not copied from zoom to zoom, so kept apart.
    private let windows: UnsafeMutablePointer<(left: Int32, right: Int32)>
    /// Where `next` and `thaw` sort the new clusters.
    private let sortScratch = RadixSort.Scratch()
    /// Columns at most: `shift(cell:count:)` keeps 2^shift <= 2 * count + 1024, and shifts only fall.
    private let maxColumns: Int
    /// Below this many items, one thread sweeps and merges (a second costs more than it saves).
    static let parallelCount = 1 << 17

    /// Items of the zoom that are kept out of this grid (`ClusterIndex.Freeze`): counted when the
    /// columns are chosen, so that this grid's columns are those of a grid of every item, and
    /// its items are in the order such a grid would hold them.
    var otherItems = 0

    /// A grid for at most `capacity` items, with columns for a grid of `columnsFor` items (at
    /// least `capacity`; see `otherItems`).
    init(capacity: Int, columnsFor total: Int = 0) {
        precondition(MemoryLayout<Entry>.offset(of: \.x) == 0 && MemoryLayout<Entry>.offset(of: \.y) == 4,
                     "xBits and yBits read an entry's x and y at bytes 0 and 4")
        self.capacity = Swift.max(capacity, 1)
        maxColumns = 2 * Swift.max(self.capacity, total) + 1024
        start = .allocateLarge(capacity: maxColumns + 2)
        spareStart = .allocateLarge(capacity: maxColumns + 2)
        entries = .allocateLarge(capacity: self.capacity)
        spareEntries = .allocateLarge(capacity: self.capacity)
        windows = .allocateLarge(capacity: self.capacity)
    }

    deinit {
        start.freeLarge()
        spareStart.freeLarge()
        entries.freeLarge()
        spareEntries.freeLarge()
        windows.freeLarge()
    }

    /// Memory for `bytes` bytes the caller may use until the next `next`, `thaw` or load: the
    /// spare entries (16 bytes per item of capacity). During a freeze, the grid of every point
    /// lends them to the passes on the small grid.
    func scratch(bytes: Int) -> UnsafeMutableRawPointer {
        precondition(bytes <= capacity * MemoryLayout<Entry>.stride, "more scratch than the grid has")
        return UnsafeMutableRawPointer(spareEntries)
    }

    /// The column shift for a cell size and an item count: columns at least `cell` wide, and not
    /// many more than items.
    static func shift(cell: Double, count: Int) -> Int {
        var s = 0
        while s < 30 && pow2(-(s + 1)) >= cell && (1 << (s + 1)) <= 2 * count + 1024 { s += 1 }
        return s
    }

    @inline(__always)
    static func column(_ x: Float, shift: Int) -> Int {
        Swift.min((1 << shift) - 1, Int(Double(x) * Double(1 << shift)))
    }

    /// Sort key: column, then y (non-negative floats order like their bit patterns).
    @inline(__always)
    private static func key(_ x: Float, _ y: Float, shift: Int) -> UInt64 {
        UInt64(column(x, shift: shift)) << 32 | UInt64(y.bitPattern)
    }

    /// The bits below which a non-negative Float's `Double` is below `low`: for y >= 0,
    /// `Double(y) >= low` exactly when `y.bitPattern >= bits(atLeast: low)` (a non-negative
    /// Float orders like its bits). The sweep and `take` compare the bits of stored positions as
    /// integers against such bounds, made once per item: converting each y to a Double to
    /// compare it cost the sweep about 7 % of the land 1M cluster stage.
    @inline(__always)
    static func bits(atLeast low: Double) -> UInt32 {
        let f = Float(Swift.max(low, 0))   // the nearest Float: the first one not below low, or the one before it
        return f.bitPattern &+ (Double(f) < low ? 1 : 0)
    }

    /// The bits up to which a non-negative Float's `Double` is not above `high` (>= 0):
    /// `Double(y) <= high` exactly when `y.bitPattern <= bits(atMost: high)`.
    @inline(__always)
    static func bits(atMost high: Double) -> UInt32 {
        let f = Float(high)
        return f.bitPattern &- (Double(f) > high ? 1 : 0)
    }

    /// A Float at least `d` (>= 0): `d` rounded up to a Float.
    static func roundedUp(_ d: Double) -> Float {
        let f = Float(d)
        return Double(f) >= d ? f : f.nextUp
    }

    /// Bounds on the bits of the non-negative Floats within `d` of `v` (>= 0; `d` a Float at
    /// least the distance, `roundedUp`), made in Float arithmetic: v - d and v + d. Every Float
    /// within the distance of `v` lies within them: the exact v - d is at most the distance's
    /// lower end, and rounding it to the nearest Float either goes down or reaches the first Float
    /// at or above it, which is at most the first one at or above that end (`bits(atLeast:)`);
    /// the same the other way up. No bound lies more than four Float steps (at the scale of `v`
    /// and `d`) beyond the exact one. Two Float additions, where exact bounds from Doubles cost
    /// four conversions and two compares: the sweep makes them for every item (land 1M: its
    /// instructions 781M -> 665M).
    @inline(__always)
    static func bits(around v: Float, within d: Float) -> (low: UInt32, high: UInt32) {
        let low = v - d
        return (low > 0 ? low.bitPattern : 0, (v + d).bitPattern)
    }

    /// What a sweep for the pass at `zoom` leaves in `slot[ref]` for an item that is not isolated:
    /// its position, tagged with the zoom. Isolated items' slots are not written (one random write
    /// fewer per item: most items, at high zooms), so a slot from another zoom means isolated.
    /// Slots start at -1, which no zoom's tag matches.
    @inline(__always)
    static func slot(position p: Int, zoom: Int) -> Int32 { Int32(truncatingIfNeeded: zoom << 26 | p) }

    /// The position a slot holds, if it was written for `zoom`.
    @inline(__always)
    static func position(slot: Int32, zoom: Int) -> Int32? {
        slot >> 26 == Int32(zoom) ? slot & (1 << 26 - 1) : nil
    }

    /// Fills the grid from scratch with `n` points (refs `0..<n`, weight 1) at `xy` (x, y per
    /// point), and sweeps it for the pass at `zoom` (see `slot(position:zoom:)`).
    func load(points n: Int, xy: UnsafePointer<Float>, cell: Double, zoom: Int, slot: UnsafeMutablePointer<Int32>) {
        fill(count: n, refs: nil, xy: xy, cell: cell, finest: nil)
        sweep(zoom: zoom, slot: slot)
    }

    /// Fills the grid from scratch with the points `refs` at `xy` (x, y per point, in the order of
    /// `refs`; weight 1), `refs` in the order a grid of every point would break ties in, and
    /// sweeps it for the pass at `zoom`.
    func load(points refs: UnsafeBufferPointer<Int32>, xy: UnsafePointer<Float>, cell: Double, zoom: Int,
              slot: UnsafeMutablePointer<Int32>) {
        fill(count: refs.count, refs: refs.baseAddress, xy: xy, cell: cell, finest: nil)
        sweep(zoom: zoom, slot: slot)
    }

    /// The points a freeze takes out of the grid of every point: refs, and x, y per point.
    struct Crowded {
        var refs: [Int32]
        var xy: [Float]
    }

    /// For `ClusterIndex.Freeze`: fills the grid with every point (refs `0..<n`), columns at least
    /// `cell` wide, and the items of a column that share a y in the order a grid of `finest`
    /// columns would hold them after merging its columns pairwise (by that column, then by ref);
    /// marks merged every item with another within `cell` along both axes. Returns the marked
    /// items in position order (the grid keeps their positions for `thaw`).
    func loadMarkingCrowded(points n: Int, xy: UnsafePointer<Float>, cell: Double, finest: Int) -> Crowded {
        fill(count: n, refs: nil, xy: xy, cell: cell, finest: finest)
        precondition(shift <= finest, "a freeze's grid has columns at least as wide as the finest")
        sweep(zoom: 0, slot: nil)
        // Gathered in parts: each counts its own, then copies them after the previous parts'.
        let v = entries, ranges = partRanges(n)
        var counts = [Int](repeating: 0, count: ranges.count)
        counts.withUnsafeMutableBufferPointer { counts in
            Work.perform(iterations: ranges.count) { k in
                var c = 0
                for p in ranges[k] where v[p].isMerged { c += 1 }
                counts[k] = c
            }
        }
        let firsts = counts.reduce(into: [0]) { $0.append($0.last! + $1) }, total = firsts.last!
        var crowded = Crowded(refs: [Int32](repeating: 0, count: total), xy: [Float](repeating: 0, count: 2 * total))
        mergedPositions = [Int32](repeating: 0, count: total)
        mergedPositions.withUnsafeMutableBufferPointer { positions in
            crowded.refs.withUnsafeMutableBufferPointer { refs in
                crowded.xy.withUnsafeMutableBufferPointer { xy in
                    Work.perform(iterations: ranges.count) { part in
                        var k = firsts[part]
                        for p in ranges[part] where v[p].isMerged {
                            positions[k] = Int32(p)
                            refs[k] = v[p].ref
                            xy[2 * k] = v[p].x
                            xy[2 * k + 1] = v[p].y
                            k += 1
                        }
                    }
                }
            }
        }
        return crowded
    }

    /// Fills the entries and columns (see `load`) with `n` points at `xy` (x, y per point), refs
    /// `refs` (or `0..<n`): by column, then y, then (with `finest`) the column at that finer
    /// shift, then the order given (the sort is stable).
    private func fill(count n: Int, refs: UnsafePointer<Int32>?, xy: UnsafePointer<Float>, cell: Double, finest: Int?) {
        precondition(n <= capacity && n < 1 << 26, "more items than the grid was made for")
        self.cell = cell
        shift = Self.shift(cell: cell, count: n + otherItems)
        mergedPositions.removeAll(keepingCapacity: true)
        count = n
        // Keys and the sort's scratch keys in the spare entries, values in the windows (both free
        // until the sweep). A key is the column, then y's bits (below 2^30: y is in [0, 1]), then
        // `d` bits of the finer column within the column.
        let keys = scratch(bytes: n * 16).bindMemory(to: UInt64.self, capacity: 2 * n)
        let values = UnsafeMutableRawPointer(windows).bindMemory(to: Int32.self, capacity: 2 * n)
        let shift = self.shift, d = (finest ?? shift) - shift, sub = UInt64(1) << UInt64(d) - 1
        precondition(d >= 0 && shift + d + 32 <= 64, "a key holds the column, y and the finer column")
        inParts(n) { range in
            for k in range {
                let x = xy[2 * k], y = xy[2 * k + 1]
                let fine = UInt64(Self.column(x, shift: shift + d))
                keys[k] = (fine >> UInt64(d)) << UInt64(32 + d) | UInt64(y.bitPattern) << UInt64(d) | fine & sub
                values[k] = Int32(k)
            }
        }
        let sorted = RadixSort.sort(keys: keys, values: values, scratchKeys: keys + n, scratchValues: values + n, count: n)
        let columns = 1 << shift
        let entries = UnsafeMutableRawPointer(self.entries).bindMemory(to: Entry.self, capacity: capacity)
        let start = self.start
        // Each entry reads its point's x at random (the input order is not the grid's): fetched
        // 24 entries ahead, the reads overlap (1M clumps: 14-34 ms -> 8-10; land 11-17 -> 6-10).
        inParts(n) { range in
            for p in range {
                if p + 24 < range.upperBound { mr_prefetch(xy + 2 * Int(sorted.values[p + 24])) }
                let key = sorted.keys[p], k = Int(sorted.values[p])
                (entries + p).initialize(to: Entry(x: xy[2 * k], y: Float(bitPattern: UInt32(truncatingIfNeeded: key >> UInt64(d))),
                                                   ref: refs.map { $0[k] } ?? Int32(k), weight: 1))
            }
        }
        // Column c starts at the first position whose column is c or more: written by the part
        // holding that position (each start once), the columns after the last item's by this
        // thread. (Counted per column on one thread, 10M points took ~30 ms.)
        @inline(__always) func columnAt(_ p: Int) -> Int { Int(sorted.keys[p] >> UInt64(32 + d)) }
        inParts(n) { range in
            var previous = range.lowerBound == 0 ? -1 : columnAt(range.lowerBound - 1)
            for p in range {
                let c = columnAt(p)
                while previous < c {
                    previous += 1
                    start[previous] = Int32(p)
                }
            }
        }
        for c in (n == 0 ? 0 : columnAt(n - 1) + 1)...(columns + 1) { start[c] = Int32(n) }
        _ = UnsafeMutableRawPointer(windows).bindMemory(to: (left: Int32, right: Int32).self, capacity: capacity)
    }

    /// The grid of the next zoom, with a cell at least as large (the radius doubles): this zoom's
    /// items but those merged into clusters (`markMerged`), and the new clusters `added`; then swept
    /// for the pass at `zoom`.
    func next(cell: Double, zoom: Int, added: [Added], slot: UnsafeMutablePointer<Int32>) {
        let newCount = count - mergedPositions.count + added.count
        precondition(cell >= self.cell && newCount <= capacity, "the next zoom's grid must have a larger cell and fewer items")
        // Columns at least `cell` wide: half as many as now always are, since the cell at most doubles.
        let newShift = nextShift(cell: cell, count: newCount)
        let s = shift - newShift
        let columns = 1 << newShift
        // New clusters by column, then y; equal keys in the order made (the sort is stable).
        let m = added.count
        RadixSort.sorting(count: m, in: sortScratch, key: { Self.key(added[$0].x, added[$0].y, shift: newShift) }) { sorted in
            // The spare entries may have lent their memory as scratch since: they hold entries again.
            let st = start, old = entries, nst = spareStart
            let new = UnsafeMutableRawPointer(spareEntries).bindMemory(to: Entry.self, capacity: capacity)

            /// Writes the new columns `range`, starting with the `a`th new cluster at position `out`;
            /// returns where the next column starts.
            func merge(_ range: Range<Int>, a firstAdded: Int, out firstOut: Int) -> (a: Int, out: Int) {
                var a = firstAdded, out = firstOut
                // Where merged items are written (below), one per thread.
                let sink = UnsafeMutablePointer<Entry>.allocate(capacity: 1)
                defer { sink.deallocate() }
                let sinkAddress = Int(bitPattern: sink), newAddress = Int(bitPattern: new)
                let entrySize = MemoryLayout<Entry>.stride
                for c in range {
                    nst[c] = Int32(out)
                    // Up to two runs of old positions, and this column's new clusters, merged by y.
                    var p = Int(st[c << s]), pEnd = Int(st[(c << s) + 1])
                    var q = 0, qEnd = 0
                    if s == 1 { q = pEnd; qEnd = Int(st[(c << 1) + 2]) }
                    /// Writes the old items of both runs up to y `limit` (those at `limit` too), by y,
                    /// the left run's first where equal. Without a branch on which run goes next:
                    /// the runs of two neighbouring columns interleave at random, and a branch on
                    /// that was mispredicted about every other item. Merged items are compared and
                    /// written too, but to `sink`: leaving them out of the order changes nothing.
                    @inline(__always)
                    func runs(upTo limit: Float) {
                        @inline(__always)
                        func put(_ i: Int) {
                            var e = old[i]
                            let stays = Int32(unsafeBitCast(e.state & Entry.merged == 0, to: UInt8.self))
                            e.state &= Entry.merged - 1
                            let to = mr_select(stays, newAddress &+ out &* entrySize, sinkAddress)
                            UnsafeMutablePointer<Entry>(bitPattern: to).unsafelyUnwrapped.initialize(to: e)
                            out &+= Int(stays)
                        }
                        while p < pEnd && q < qEnd {
                            let yp = old[p].y, yq = old[q].y
                            let fromP = Int32(unsafeBitCast(yp <= yq, to: UInt8.self))
                            if Swift.min(yp, yq) > limit { return }
                            put(mr_select(fromP, p, q))
                            p &+= Int(fromP)
                            q &+= 1 &- Int(fromP)
                        }
                        while p < pEnd && old[p].y <= limit {
                            put(p)
                            p &+= 1
                        }
                        while q < qEnd && old[q].y <= limit {
                            put(q)
                            q &+= 1
                        }
                    }
                    // This column's new clusters (by y, in the order made where equal), each after
                    // the old items up to its y.
                    while a < m && Int(sorted.keys[a] >> 32) == c {
                        let cluster = added[Int(sorted.values[a])]
                        runs(upTo: cluster.y)
                        (new + out).initialize(to: Entry(x: cluster.x, y: cluster.y, ref: cluster.ref, weight: cluster.weight))
                        out &+= 1
                        a &+= 1
                    }
                    runs(upTo: .infinity)
                }
                return (a, out)
            }

            // A part starts after the old items left of it that stay, and the new clusters left of it.
            install(columns: columns, shift: newShift, cell: cell, count: newCount, incoming: m, oldStart: { Int(st[$0 << s]) },
                    evenSplit: false, startsAt: { splits in
                        let oldBelow = splits.map { Int(st[$0 << s]) }
                        // The merged positions below each part's first old one, in one pass over them
                        // (they are in the order merged, not sorted): each counts for every part
                        // starting above it.
                        var mergedInPart = [Int](repeating: 0, count: splits.count + 1)
                        for p in self.mergedPositions {
                            mergedInPart[partitionPoint(0..<oldBelow.count) { oldBelow[$0] > Int(p) }] += 1
                        }
                        var mergedBelow = 0
                        return splits.indices.map { k in
                            mergedBelow += mergedInPart[k]
                            let addedBelow = partitionPoint(0..<m) { Int(sorted.keys[$0] >> 32) >= splits[k] }
                            return (addedBelow, oldBelow[k] - mergedBelow + addedBelow)
                        }
                    }, merge: merge, zoom: zoom, slot: slot)
        }
    }

    /// An item joining a grid at `thaw`, and the shift of the grid it first joined (`finest` for a
    /// point; a cluster joins the grid of the zoom below the pass that made it).
    struct Incoming {
        var item: Added
        var joined: Int
    }

    /// The refs of the items in position order (for tests).
    func refsInOrder() -> [Int32] { (0..<count).map { entries[$0].ref } }

    /// The items of this grid that are not merged (`Incoming` for `thaw`), in position order.
    func survivors(joined: (Int32) -> Int) -> [Incoming] {
        var list: [Incoming] = []
        list.reserveCapacity(count - mergedPositions.count)
        for p in 0..<count where !entries[p].isMerged {
            let e = entries[p]
            list.append(Incoming(item: Added(ref: e.ref, x: e.x, y: e.y, weight: e.weight), joined: joined(e.ref)))
        }
        return list
    }

    /// Ends a freeze (`ClusterIndex.Freeze`): the grid of the next zoom, with columns of `newShift`,
    /// from this grid's items but those marked merged (the points that left it at
    /// `loadMarkingCrowded`, which have not changed since) and the `incoming` items (the small
    /// grid's survivors in its position order, then the last pass's new clusters in the order
    /// made); then swept for the pass at `zoom`.
    ///
    /// Its items are in the order a grid of every item, made at `finest` and merged pairwise from
    /// zoom to zoom, would hold: in a column by y, then, where y is equal, as those merges leave
    /// them. Each merge puts the left column's items first, and an item that joined the grid at a
    /// zoom after those already there in its column; so two items of equal y are ordered by their
    /// column in the coarser of the two grids they joined, then the earlier joined first, then by
    /// ref (points in input order, clusters in the order made). The incoming items' sort keys
    /// (below) encode that order; an old item is compared with them by `tie` where ys are equal.
    func thaw(cell: Double, zoom: Int, shift newShift: Int, finest: Int, incoming: [Incoming],
              slot: UnsafeMutablePointer<Int32>) {
        let s = shift - newShift
        precondition(abs(s) <= 1, "a thaw's columns are those of the last zoom, or twice or half as wide")
        precondition(newShift <= finest, "a thaw's columns are no finer than the freeze's finest")
        let newCount = count - mergedPositions.count + incoming.count
        precondition(newCount <= capacity, "more items than the grid was made for")
        let columns = 1 << newShift
        // Bits under a key's y: twice the column at `finest` within the column (`tie`), then how
        // many shifts coarser than `finest` the item joined.
        let tieBits = finest - newShift + 1, rankBits = 5
        precondition(newShift + 32 + tieBits + rankBits <= 64 && finest - newShift < 1 << rankBits,
                     "a thaw's key holds the column, y and the order of equal ys")
        /// Where an item of equal y goes among the others of its column: for an item that joined
        /// at `finest` (a point), twice its column there; for a later one (a cluster), just before
        /// the first column at `finest` of the next column at the shift it joined (after every
        /// point of its own column there).
        @inline(__always)
        func tie(_ x: Float, joined: Int) -> UInt64 {
            let column = UInt64(Self.column(x, shift: joined))
            return joined == finest ? 2 * column : 2 * ((column + 1) << UInt64(finest - joined)) - 1
        }
        let m = incoming.count
        RadixSort.sorting(count: m, in: sortScratch, key: { k in
            let a = incoming[k], column = UInt64(Self.column(a.item.x, shift: newShift))
            let within = tie(a.item.x, joined: a.joined) - column << UInt64(tieBits)
            return column << UInt64(32 + tieBits + rankBits) | UInt64(a.item.y.bitPattern) << UInt64(tieBits + rankBits)
                | within << UInt64(rankBits) | UInt64(finest - a.joined)
        }) { sorted in
            let st = start, old = entries, nst = spareStart
            let new = UnsafeMutableRawPointer(spareEntries).bindMemory(to: Entry.self, capacity: capacity)

            /// The old column a new column's items start in (the old column holds two new ones when
            /// the columns halve; two old columns make one when they double).
            @inline(__always)
            func oldColumn(_ c: Int) -> Int { s == -1 ? c >> 1 : c << s }

            /// Writes the new columns `range`, starting with the `a`th incoming item (in key order) at
            /// position `out`; returns where the next column starts.
            func merge(_ range: Range<Int>, a firstIncoming: Int, out firstOut: Int) -> (a: Int, out: Int) {
                var a = firstIncoming, out = firstOut
                let mask = UInt64(1) << UInt64(tieBits) - 1
                for c in range {
                    nst[c] = Int32(out)
                    // One run of old items (its half, when the columns halve), or two merged by y, the
                    // left one's first where ys are equal (as `next` merges them).
                    var p = Int(st[oldColumn(c)]), pEnd = Int(st[oldColumn(c) + 1])
                    var q = 0, qEnd = 0
                    if s == 1 { q = pEnd; qEnd = Int(st[oldColumn(c) + 2]) }
                    @inline(__always)
                    func skip(_ i: inout Int, _ end: Int) {
                        while i < end && (old[i].isMerged || (s == -1 && Self.column(old[i].x, shift: newShift) != c)) { i += 1 }
                    }
                    skip(&p, pEnd)
                    skip(&q, qEnd)
                    while true {
                        let hasA = a < m && Int(sorted.keys[a] >> UInt64(32 + tieBits + rankBits)) == c
                        if p < pEnd || q < qEnd {
                            let fromQ = p == pEnd || (q < qEnd && old[q].y < old[p].y)
                            let e = fromQ ? old[q] : old[p]
                            var oldFirst = true
                            if hasA {
                                let i = incoming[Int(sorted.values[a])]
                                if e.y != i.item.y {
                                    oldFirst = e.y < i.item.y
                                } else {
                                    // Equal ys: an old item is a point, which joined at `finest`.
                                    let mine = tie(e.x, joined: finest) - UInt64(c) << UInt64(tieBits)
                                    let theirs = (sorted.keys[a] >> UInt64(rankBits)) & mask
                                    oldFirst = mine != theirs ? mine < theirs : e.ref < i.item.ref
                                }
                            }
                            if oldFirst {
                                var copy = e
                                copy.state &= Entry.merged - 1
                                (new + out).initialize(to: copy)
                                out += 1
                                if fromQ {
                                    q += 1
                                    skip(&q, qEnd)
                                } else {
                                    p += 1
                                    skip(&p, pEnd)
                                }
                                continue
                            }
                        }
                        guard hasA else { break }
                        let i = incoming[Int(sorted.values[a])].item
                        (new + out).initialize(to: Entry(x: i.x, y: i.y, ref: i.ref, weight: i.weight))
                        out += 1
                        a += 1
                    }
                }
                return (a, out)
            }

            // A part starts at an even column (the start of an old one when the columns halve),
            // after the old items left of it that stay and the incoming ones left of it.
            otherItems = 0
            install(columns: columns, shift: newShift, cell: cell, count: newCount, incoming: m, oldStart: { Int(st[oldColumn($0)]) },
                    evenSplit: true, startsAt: { splits in
                        splits.map { split in
                            let oldBelow = Int(st[oldColumn(split)])
                            let mergedBelow = partitionPoint(0..<self.mergedPositions.count) { Int(self.mergedPositions[$0]) >= oldBelow }
                            let incomingBelow = partitionPoint(0..<m) { Int(sorted.keys[$0] >> UInt64(32 + tieBits + rankBits)) >= split }
                            return (incomingBelow, oldBelow - mergedBelow + incomingBelow)
                        }
                    }, merge: merge, zoom: zoom, slot: slot)
        }
    }

    /// Writes the next grid (`columns` columns of `newShift`, `newCount` items of which `m` new)
    /// into the spare buffers with `merge(columns, first new item, first position)`, which returns
    /// where it ended. From `parallelCount` items, in `workParts` runs of columns with about as
    /// many old positions (`oldStart(column)`) each, taken by the threads as they come free
    /// (`inParts`); a run starts at a column (an even one with `evenSplit`) where
    /// `startsAt(those columns)` says. Then makes it this grid's and sweeps it for the pass at `zoom`.
    private func install(columns: Int, shift newShift: Int, cell: Double, count newCount: Int, incoming m: Int,
                         oldStart: (Int) -> Int, evenSplit: Bool, startsAt: ([Int]) -> [(a: Int, out: Int)],
                         merge: (Range<Int>, Int, Int) -> (a: Int, out: Int), zoom: Int, slot: UnsafeMutablePointer<Int32>) {
        if newCount < Self.parallelCount {
            let end = merge(0..<columns, 0, 0)
            precondition(end.out == newCount && end.a == m, "the next zoom's grid lost items")
        } else {
            let total = oldStart(columns), parts = workParts
            var splits: [Int] = []
            for k in 1..<parts {
                var c = partitionPoint(0..<columns) { oldStart($0) >= total * k / parts }
                if evenSplit { c -= c & 1 }
                if c > (splits.last ?? 0) && c < columns { splits.append(c) }
            }
            let starts = [(a: 0, out: 0)] + startsAt(splits)
            let bounds = [0] + splits + [columns]
            var ends = [(a: Int, out: Int)](repeating: (0, 0), count: starts.count)
            ends.withUnsafeMutableBufferPointer { ends in
                Work.perform(iterations: starts.count) { k in
                    ends[k] = merge(bounds[k]..<bounds[k + 1], starts[k].a, starts[k].out)
                }
            }
            for k in 0..<starts.count - 1 {
                precondition(ends[k] == starts[k + 1], "a part of the next zoom's grid did not end where the next starts")
            }
            precondition(ends[ends.count - 1] == (m, newCount), "the next zoom's grid lost items")
        }
        spareStart[columns] = Int32(newCount)
        spareStart[columns + 1] = Int32(newCount)
        swap(&start, &spareStart)
        swap(&entries, &spareEntries)
        self.cell = cell
        shift = newShift
        count = newCount
        mergedPositions.removeAll(keepingCapacity: true)
        sweep(zoom: zoom, slot: slot)
    }

    /// The columns of the next zoom's grid for `count` items in it (and `otherItems`): at least
    /// `cell` wide, and half as many as now at least, since the cell at most doubles.
    func nextShift(cell: Double, count: Int) -> Int {
        Swift.max(Self.shift(cell: cell, count: count + otherItems), shift - 1)
    }

    /// A sorted sample of the `m` positions at `positions` (the items a pass decides), at most
    /// about 4096 of them: where the splits below look for the middle of the work.
    static func sample(of positions: UnsafePointer<Int32>, count m: Int) -> [Int32] {
        let step = Swift.max(1, m / 4096)
        var sample = Swift.stride(from: 0, to: m, by: step).map { positions[$0] }
        sample.sort()
        return sample
    }

    /// The first column starting at or after position `p`.
    private func column(startingAtOrAfter p: Int32) -> Int {
        let st = start
        return partitionPoint(0..<(1 << shift)) { st[$0] >= p }
    }

    /// A position that parts the items to decide at an empty column: no item before it is within
    /// `cell` of an item from it on (columns are at least `cell` wide). The empty column nearest
    /// the median of `sample` (a sorted sample of the items' positions, `sample(of:count:)`), so
    /// that the two sides get about as many items to decide; nil when no empty column leaves
    /// each side at least a quarter of the sample.
    func emptyColumnSplit(sample: [Int32]) -> Int32? {
        let columns = 1 << shift, st = start
        guard !sample.isEmpty else { return nil }
        /// How many of the sample lie before position p.
        func below(_ p: Int32) -> Int { partitionPoint(sample.indices) { sample[$0] >= p } }
        let lowest = (sample.count + 3) / 4, highest = sample.count - (sample.count + 3) / 4
        let middle = column(startingAtOrAfter: sample[sample.count / 2])
        var left = middle, right = middle + 1
        while true {
            let leftOK = left >= 1 && left < columns && below(st[left]) >= lowest
            let rightOK = right < columns - 1 && below(st[right]) <= highest
            if !leftOK && !rightOK { return nil }
            if leftOK && st[left] == st[left + 1] { return st[left] }
            if rightOK && st[right] == st[right + 1] { return st[right] }
            left -= 1
            right += 1
        }
    }

    /// A position that parts the items at the start of a column k, for two sides that meet
    /// there (`Handoff`), with the positions of the items either side may reach: those of columns
    /// k - 2 to k + 1 (an item takes only from its own column and the two beside it, so an item
    /// of column k - 3 and one of column k + 2 never reach the same item). k is the column of the
    /// median of `sample` (a sorted sample of the positions of the items to decide): the sides
    /// wait for each other, so the one with more to do sets the pace. nil when the grid has fewer
    /// than five columns.
    func meetingSplit(sample: [Int32]) -> (split: Int32, boundary: Range<Int32>)? {
        let columns = 1 << shift, st = start
        guard columns >= 5, !sample.isEmpty else { return nil }
        // The first column starting at or after the median, kept two columns from either edge.
        let k = Swift.min(Swift.max(2, column(startingAtOrAfter: sample[sample.count / 2])), columns - 2)
        return (st[k], st[k - 2]..<st[k + 2])
    }

    /// Marks the item at position `p` as merged into a new cluster; `noteMerged` must be told too.
    /// Touches only that entry, so two threads may mark entries of their own halves.
    @inline(__always)
    func markMerged(_ p: Int32) {
        entries[Int(p)].state |= Entry.merged
    }

    /// Records the positions marked merged (for `next`, which leaves them out): `position(k)`
    /// for k in `0..<count`. (Written through a pointer: appending a lazy map of a pass's logs
    /// cost ~7 ns a position, ~6 ms of a land 1M clustering.)
    @inline(__always)
    func noteMerged(count n: Int, _ position: (Int) -> Int32) {
        guard n > 0 else { return }
        let old = mergedPositions.count
        mergedPositions.append(contentsOf: repeatElement(0, count: n))
        mergedPositions.withUnsafeMutableBufferPointer { merged in
            let to = merged.baseAddress! + old
            for k in 0..<n { to[k] = position(k) }
        }
    }

    /// The item at position `p`.
    @inline(__always)
    func entry(_ p: Int32) -> Entry { entries[Int(p)] }

    /// Starts fetching the entry at position `p` and its windows into the cache (a question about
    /// it comes soon).
    @inline(__always)
    func prefetchEntry(_ p: Int32) {
        mr_prefetch(entries + Int(p))
        mr_prefetch(windows + Int(p))
    }

    /// Starts fetching the first entries a question about the item at `p` reads in the columns
    /// beside its own; its windows should be at hand by now.
    @inline(__always)
    func prefetchWindows(_ p: Int32) {
        let w = windows[Int(p)]
        mr_prefetch(entries + Int(w.left))
        mr_prefetch(entries + Int(w.right))
    }

    /// Marks the item at position `p` taken, and appends the items not yet taken whose (x, y)
    /// satisfy (x - qx)² + (y - qy)² <= r2 (their refs and positions to `found`),
    /// marking them taken too; returns the points they stand for. (qx, qy) is the item's own
    /// `Double` position; `r2` at most (cell - Float rounding)². For each ref found from `clusters`
    /// on (a cluster), starts fetching its position in `clusterXY` (merging will read it).
    @inline(__always)
    func take(position p: Int, x qx: Double, y qy: Double, r2: Double, into found: inout Found,
              clusters: Int = .max, clusterXY: UnsafePointer<Double>? = nil) -> Int {
        let v = entries, st = start
        v[p].state |= Entry.taken
        let e = v[p]
        let c = Self.column(e.x, shift: shift)
        let low = Double(e.y) - cell, top = Double(e.y) + cell
        let lowBits = Self.bits(atLeast: low), topBits = Self.bits(atMost: top)
        var total = 0
        @inline(__always)
        func scan(_ from: Int, _ end: Int32) {
            var q = from
            while q < Int(end) && v.yBits(q) <= topBits {
                if !v[q].isTaken {
                    let dx = Double(v[q].x) - qx, dy = Double(v[q].y) - qy
                    if dx * dx + dy * dy <= r2 {
                        v[q].state |= Entry.taken
                        if Int(v[q].ref) >= clusters, let clusterXY { mr_prefetch(clusterXY + 2 * (Int(v[q].ref) - clusters)) }
                        found.append(ref: v[q].ref, position: Int32(q))
                        total += Int(v[q].weight)
                    }
                }
                q += 1
            }
        }
        // Its own column's window starts a few positions back: found by stepping back from it.
        var middle = p, first = Int(st[c])
        while middle > first && v.yBits(middle - 1) >= lowBits { middle -= 1 }
        let w = windows[p]
        scan(Int(w.left), st[c])
        scan(middle, st[c + 1])
        scan(Int(w.right), st[c + 2])
        return total
    }

    /// Finds each item's windows in the columns beside it, and whether it is isolated; writes
    /// the slots of those that are not. In a large grid, the threads take runs of columns with
    /// about as many items each as they come free (see `inParts`). Without `slot`, marks those
    /// items merged instead (`loadMarkingCrowded`).
    private func sweep(zoom: Int, slot: UnsafeMutablePointer<Int32>?) {
        precondition(count < 1 << 26 && zoom < 31, "slots hold positions below 2^26 and zooms below 31")
        let columns = 1 << shift
        if count < Self.parallelCount {
            sweep(0..<columns, zoom: zoom, slot: slot)
        } else {
            let st = start, parts = workParts
            // Part k starts at the first column starting at or after k / parts of the items.
            let firsts = (0...parts).map { k in
                k == parts ? columns : partitionPoint(0..<columns) { Int(st[$0]) >= count * k / parts }
            }
            Work.perform(iterations: parts) { k in
                sweep(firsts[k]..<firsts[k + 1], zoom: zoom, slot: slot)
            }
        }
    }


    /// The sweep of the columns `range`: writes only their entries' windows and their refs' slots,
    /// reads the columns beside them.
    private func sweep(_ range: Range<Int>, zoom: Int, slot: UnsafeMutablePointer<Int32>?) {
        let cell = self.cell, width = pow2(-shift)
        let v = entries, st = start, windows = self.windows
        // Positions' x and y are compared as bits against bounds at most a few Float steps wider
        // than the cell (`bits(around:within:)`): wider bounds only ask about an item that has nobody
        // within the radius, which its pass leaves as it is, or start a window a step early, so
        // the clusters are the same.
        let cellUp = Self.roundedUp(cell)
        /// Whether positions from..<end (of another column) hold no item within `cell` of (x, y)
        /// along both axes: none whose y bits are up to `highBits` has x bits in `xRange`.
        @inline(__always)
        func none(_ from: Int, _ end: Int, _ xRange: ClosedRange<UInt32>, _ highBits: UInt32) -> Bool {
            var j = from
            while j < end && v.yBits(j) <= highBits {
                if xRange.contains(v.xBits(j)) { return false }
                j += 1
            }
            return true
        }
        /// Moves `i` to the first position before `end` whose y is not below `low` (whose bits
        /// are not below `lowBits`). The first two steps add a comparison's outcome instead of
        /// branching on it: a window moves by 0, 1 or 2 most of the time, at random, and a branch
        /// on that was mispredicted about once an item.
        @inline(__always)
        func advance(_ i: inout Int, _ end: Int, _ lowBits: UInt32) {
            if i < end { i &+= Int(unsafeBitCast(v.yBits(i) < lowBits, to: UInt8.self)) }
            if i < end { i &+= Int(unsafeBitCast(v.yBits(i) < lowBits, to: UInt8.self)) }
            while i < end && v.yBits(i) < lowBits { i += 1 }
        }
        for c in range {
            let lo = Int(st[c]), hi = Int(st[c + 1])
            if lo == hi { continue }
            // Columns c - 1 and c + 1 (empty beyond the edges): the first position of each whose
            // y is not below the item's lower bound, which only moves forward.
            var left = Int(st[Swift.max(c - 1, 0)]), right = hi
            let leftEnd = c > 0 ? lo : 0, rightEnd = Int(st[c + 2])
            // An item further than `cell` from its column's left (right) edge has nobody near in
            // the column on that side (x · 2^shift is exact, so is the edge).
            let leftEdge = Double(c) * width, rightEdge = Double(c + 1) * width
            for p in lo..<hi {
                // An item with somebody near writes its ref's slot, at random (refs are in input
                // order): fetched 16 entries ahead for every item (1M land, the zooms' grids after
                // the first 179 -> 155 ms, medians of 5; the stage 410 -> 389, medians of 15).
                if let slot, p + 16 < count { mr_prefetch(slot + Int(v[p + 16].ref)) }
                let x = v[p].x
                let (lowBits, highBits) = Self.bits(around: v[p].y, within: cellUp)
                // The windows beside it move forward with every item (not only when needed, below),
                // by a step or two: the loops are short, and nothing else here waits on a guess.
                advance(&left, leftEnd, lowBits)
                advance(&right, rightEnd, lowBits)
                // Most items at high zooms: nobody within cell along y in any of the three columns
                // (the item just before and after it in its own, the first of each window).
                if (p == lo || v.yBits(p - 1) < lowBits) && (p + 1 == hi || v.yBits(p + 1) > highBits)
                    && (left == leftEnd || v.yBits(left) > highBits) && (right == rightEnd || v.yBits(right) > highBits) {
                    continue
                }
                // Within cell along x (or a few Float steps more, as along y): x bits in xRange.
                let xBounds = Self.bits(around: x, within: cellUp), xRange = xBounds.low...xBounds.high
                // In its own column, the items within cell along y are those just before and after it.
                var alone = true
                var j = p - 1
                while j >= lo && v.yBits(j) >= lowBits {
                    if xRange.contains(v.xBits(j)) { alone = false; break }
                    j -= 1
                }
                if alone {
                    j = p + 1
                    while j < hi && v.yBits(j) <= highBits {
                        if xRange.contains(v.xBits(j)) { alone = false; break }
                        j += 1
                    }
                }
                if alone && Double(x) - cell < leftEdge { alone = none(left, leftEnd, xRange, highBits) }
                if alone && Double(x) + cell >= rightEdge { alone = none(right, rightEnd, xRange, highBits) }
                if !alone {
                    if let slot {
                        slot[Int(v[p].ref)] = Self.slot(position: p, zoom: zoom)
                        windows[p] = (Int32(left), Int32(right))
                    } else {
                        v[p].state |= Entry.merged
                    }
                }
            }
        }
    }
}

/// A stable least-significant-digit radix sort of (key, value) pairs.
///
/// Written by hand for the clustering's hot path: building a grid sorts up to a million keys,
/// which a comparison sort does in O(n log n) with a branch per comparison; this takes a few
/// passes of 11 bits each and skips the digits all keys share (the high bits of nearby y values).
enum RadixSort {
    /// Buffers for `sorting`, kept from call to call: the grid sorts each zoom's new clusters,
    /// and buffers of their own each time were fresh memory, a page fault per 4 KiB (24 bytes a
    /// cluster, some 10M clusters over a 10M-point hierarchy).
    final class Scratch {
        private(set) var keys: UnsafeMutablePointer<UInt64>
        private(set) var values: UnsafeMutablePointer<Int32>
        private var capacity = 1

        init() {
            keys = .allocate(capacity: 2)
            values = .allocate(capacity: 2)
        }

        deinit {
            keys.deallocate()
            values.deallocate()
        }

        /// Where the sort's scratch pairs go: after room for `capacity` pairs, so that every
        /// call reuses the same pages.
        var spareKeys: UnsafeMutablePointer<UInt64> { keys + capacity }
        var spareValues: UnsafeMutablePointer<Int32> { values + capacity }

        /// Room for `m` pairs and as many scratch pairs.
        func reserve(_ m: Int) {
            guard m > capacity else { return }
            keys.deallocate()
            values.deallocate()
            capacity = Swift.max(m, 2 * capacity)
            keys = .allocate(capacity: 2 * capacity)
            values = .allocate(capacity: 2 * capacity)
        }
    }

    /// `body` with `count` keys made by `key(k)`, each with the value k, sorted (stably) in
    /// `scratch`'s buffers (valid until it is used again).
    static func sorting<R>(count m: Int, in scratch: Scratch, key: (Int) -> UInt64,
                           _ body: ((keys: UnsafeMutablePointer<UInt64>, values: UnsafeMutablePointer<Int32>)) -> R) -> R {
        scratch.reserve(m)
        let keys = scratch.keys, values = scratch.values
        for k in 0..<m {
            keys[k] = key(k)
            values[k] = Int32(k)
        }
        return body(sort(keys: keys, values: values, scratchKeys: scratch.spareKeys, scratchValues: scratch.spareValues,
                         count: m))
    }

    /// Sorts `count` pairs by key, keeping equal keys in their order; uses the scratch buffers
    /// (as large) and returns where the sorted pairs are: the input buffers or the scratch ones.
    static func sort(keys: UnsafeMutablePointer<UInt64>, values: UnsafeMutablePointer<Int32>,
                     scratchKeys: UnsafeMutablePointer<UInt64>, scratchValues: UnsafeMutablePointer<Int32>,
                     count n: Int) -> (keys: UnsafeMutablePointer<UInt64>, values: UnsafeMutablePointer<Int32>) {
        let bits = 11, buckets = 1 << bits, digits = (64 + bits - 1) / bits, mask = UInt64(buckets - 1)
        var srcK = keys, srcV = values, dstK = scratchKeys, dstV = scratchValues
        guard n > 1 else { return (srcK, srcV) }
        // Large inputs in parts the threads take as they come free (`inParts`): each part counts
        // its own keys and moves them after the earlier parts' keys of the same digit value, so
        // the sort stays stable.
        let parts = partRanges(n)
        // The bits that differ between keys: a digit none of them is in is one all keys share,
        // and moves nothing. (An OR and an AND a key, where counting every digit of every key up
        // front cost more than all the moves: ~200M instructions of a land 1M clustering's 2.6G.)
        var spread = [UInt64](repeating: 0, count: parts.count)
        spread.withUnsafeMutableBufferPointer { spread in
            eachPart(parts) { h in
                var any: UInt64 = 0, all: UInt64 = .max
                for i in parts[h] {
                    any |= srcK[i]
                    all &= srcK[i]
                }
                spread[h] = any ^ all
            }
        }
        let first = srcK[0]
        let differing = spread.indices.reduce(UInt64(0)) { $0 | spread[$1] | (srcK[parts[$1].lowerBound] ^ first) }
        if n >= topDigitFirstFrom, differing >> UInt64(bits) != 0 {
            return sortTopDigitFirst(keys: keys, values: values, scratchKeys: scratchKeys, scratchValues: scratchValues,
                                     count: n, parts: parts, differing: differing)
        }
        let offsets = UnsafeMutablePointer<Int>.allocate(capacity: parts.count * buckets)
        defer { offsets.deallocate() }
        for d in 0..<digits {
            let shift = UInt64(d * bits)
            if (differing >> shift) & mask == 0 { continue }   // a digit all keys share moves nothing
            digitPass(from: (srcK, srcV), to: (dstK, dstV), shift: shift, parts: parts, offsets: offsets)
            swap(&srcK, &dstK)
            swap(&srcV, &dstV)
        }
        return (srcK, srcV)
    }

    /// One stable pass by the 11-bit digit at `shift`: per part (`parts`), its counts of each
    /// digit value, then its pairs moved after the earlier parts' of the same value. Returns
    /// where each value's pairs start in `to` (and the count at the end). `offsets`: room for
    /// 2048 per part.
    @discardableResult
    static func digitPass(from: (keys: UnsafeMutablePointer<UInt64>, values: UnsafeMutablePointer<Int32>),
                       to: (keys: UnsafeMutablePointer<UInt64>, values: UnsafeMutablePointer<Int32>),
                       shift: UInt64, parts: [Range<Int>], offsets: UnsafeMutablePointer<Int>) -> [Int] {
        let buckets = 2048, mask = UInt64(buckets - 1)
        let (sk, sv, dk, dv) = (from.keys, from.values, to.keys, to.values)
        eachPart(parts) { h in
            let c = offsets + h * buckets
            c.initialize(repeating: 0, count: buckets)
            for i in parts[h] { c[Int((sk[i] >> shift) & mask)] &+= 1 }
        }
        var starts = [Int](repeating: 0, count: buckets + 1)
        var sum = 0
        for b in 0..<buckets {
            starts[b] = sum
            for h in 0..<parts.count {
                let c = offsets[h * buckets + b]
                offsets[h * buckets + b] = sum
                sum &+= c
            }
        }
        starts[buckets] = sum
        eachPart(parts) { h in
            let next = offsets + h * buckets
            for i in parts[h] {
                let k = sk[i]
                let b = Int((k >> shift) & mask)
                let to = next[b]
                next[b] = to &+ 1
                dk[to] = k
                dv[to] = sv[i]
            }
        }
        return starts
    }

    /// Pairs at least, for `sortTopDigitFirst`. Below, the keys, values and their scratch (24
    /// bytes a pair) stay in the 32 MB cache through every pass anyway. Tests set it lower.
    @TaskLocal static var topDigitFirstFrom = 1 << 19

    /// The same sort for pairs that outgrow the cache: one pass by the top 11 of the bits that
    /// differ, spreading the pairs into 2048 runs by those bits (stable, as a pass of `sort`),
    /// then each run sorted on the lower bits by 8-bit digits, in the threads' caches. Each pass
    /// of `sort` over 2M grid keys read and wrote 48 MB at random offsets; here only the first
    /// pass does (the first grid of land 2M: 30-35 ms -> 19-22, 1M 14-20 -> 9-19). Every run
    /// takes the same passes (the digits any two keys differ in), so all end in the same buffers.
    static func sortTopDigitFirst(keys: UnsafeMutablePointer<UInt64>, values: UnsafeMutablePointer<Int32>,
                                  scratchKeys: UnsafeMutablePointer<UInt64>, scratchValues: UnsafeMutablePointer<Int32>,
                                  count n: Int, parts: [Range<Int>], differing: UInt64)
        -> (keys: UnsafeMutablePointer<UInt64>, values: UnsafeMutablePointer<Int32>) {
        precondition(n < Int(Int32.max), "a run's positions are counted in Int32")
        let topBits = 11, runs = 1 << topBits
        let highest = 63 - differing.leadingZeroBitCount
        let topShift = UInt64(Swift.max(0, highest - topBits + 1))
        // The first pass, as one of `sort`'s.
        let offsets = UnsafeMutablePointer<Int>.allocate(capacity: parts.count * runs)
        defer { offsets.deallocate() }
        let runStart = digitPass(from: (keys, values), to: (scratchKeys, scratchValues), shift: topShift, parts: parts,
                                 offsets: offsets)
        // The lower digits any two keys differ in, 8 bits each.
        let lowDigits = (0..<(Int(topShift) + 7) / 8).filter { (differing >> UInt64(8 * $0)) & 0xFF != 0 }
        guard !lowDigits.isEmpty else { return (scratchKeys, scratchValues) }
        // Runs in parts of about as many pairs, taken by the threads as they come free.
        var bounds = [0]
        for k in 1..<workParts {
            let b = partitionPoint(0..<runs) { runStart[$0] >= n * k / workParts }
            if b > bounds.last! && b < runs { bounds.append(b) }
        }
        bounds.append(runs)
        runStart.withUnsafeBufferPointer { runStart in
            Work.perform(iterations: bounds.count - 1) { part in
                var count = [Int32](repeating: 0, count: 256)
                count.withUnsafeMutableBufferPointer { count in
                    let c = count.baseAddress!
                    for r in bounds[part]..<bounds[part + 1] {
                        let lo = runStart[r], hi = runStart[r + 1]
                        var sk = scratchKeys, sv = scratchValues, dk = keys, dv = values
                        for d in lowDigits {
                            let shift = UInt64(8 * d)
                            if hi - lo > 1 {
                                c.initialize(repeating: 0, count: 256)
                                for i in lo..<hi { c[Int((sk[i] >> shift) & 0xFF)] &+= 1 }
                                var at = Int32(lo)
                                for b in 0..<256 {
                                    let k = c[b]
                                    c[b] = at
                                    at &+= k
                                }
                                for i in lo..<hi {
                                    let k = sk[i], b = Int((k >> shift) & 0xFF), to = Int(c[b])
                                    c[b] &+= 1
                                    dk[to] = k
                                    dv[to] = sv[i]
                                }
                            } else if hi - lo == 1 {
                                dk[lo] = sk[lo]
                                dv[lo] = sv[lo]
                            }
                            swap(&sk, &dk)
                            swap(&sv, &dv)
                        }
                    }
                }
            }
        }
        return lowDigits.count % 2 == 0 ? (scratchKeys, scratchValues) : (keys, values)
    }
}

extension UnsafeMutablePointer where Pointee == NeighbourGrid.Entry {
    /// The bits of the y (x) of the entry at position i: the grid compares them as integers
    /// (`NeighbourGrid.bits(atLeast:)`); `NeighbourGrid.init` checks the fields' offsets.
    @inline(__always)
    func yBits(_ i: Int) -> UInt32 {
        UnsafeRawPointer(self).load(fromByteOffset: i &* MemoryLayout<Pointee>.stride &+ 4, as: UInt32.self)
    }

    @inline(__always)
    func xBits(_ i: Int) -> UInt32 {
        UnsafeRawPointer(self).load(fromByteOffset: i &* MemoryLayout<Pointee>.stride, as: UInt32.self)
    }
}
