/// One zoom's items in the columns of a grid, each column sorted by y: finds the items near an
/// item, and knows which items have no other item near them at all.
///
/// The clustering pass asks, in the items' own order, for the untaken items within the radius of
/// each item. Asked of a KD-tree, each question lands somewhere else in memory. Here one sweep
/// through the columns, reading memory front to back, finds the items with nobody near (most of
/// them at the high zooms) and, for the others, where their neighbours start in the three columns
/// around them, so that a question reads only those few runs, next to each other in memory.
///
/// Columns are `2^-shift` wide and at least `cell` wide; `cell` must exceed the radius by more
/// than twice the `Float` rounding of a coordinate, so that a neighbour of an item is within
/// `cell` of it along both axes whether its `Double` or its `Float` position is used. Positions
/// are the `Float`s a kdbush tree would hold. As the radius doubles from one zoom to the next,
/// the grid of the next zoom is made from this one by merging columns pairwise (`next`).
///
/// - Complexity: O(n log n) to build from scratch, O(n + c log c) for `next` with c new clusters;
///   the sweep is O(n) for evenly spread items.
struct NeighbourGrid {
    let cell: Double
    let shift: Int
    var columnCount: Int { 1 << shift }
    /// `start[c]..<start[c + 1]` are column c's positions; a last entry repeats the end, so that
    /// the column right of the last one is empty.
    private(set) var start: [Int32]
    /// The items by position.
    private(set) var entries: [Entry]
    /// The position of each item.
    private(set) var position: [Int32]
    /// Per item: no other item lies within `cell` of it along both axes.
    private(set) var isolated: [Bool] = []

    /// One item at its place in the grid, with what a question about it needs, side by side.
    struct Entry {
        var x: Float
        var y: Float
        var item: Int32
        var column: Int32 = 0
        /// For the columns left of, at and right of its own: the first position whose y is not
        /// below this y - cell (the column's end beyond the edges). Set for items not isolated.
        var left: Int32 = 0, middle: Int32 = 0, right: Int32 = 0
        /// Taken by a cluster (or kept as it is) in the pass under way.
        var taken = false

        init(x: Float, y: Float, item: Int32) {
            self.x = x
            self.y = y
            self.item = item
        }
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

    /// Sorts items, given as x, y per item, into columns.
    init(xy fxy: UnsafeBufferPointer<Float>, cell: Double) {
        let n = fxy.count / 2
        let shift = Self.shift(cell: cell, count: n)
        let columns = 1 << shift
        var start = [Int32](repeating: 0, count: columns + 2)
        var order = [Int32](repeating: 0, count: n)
        start.withUnsafeMutableBufferPointer { st in
            order.withUnsafeMutableBufferPointer { ord in
                var columnOf = [Int32](repeating: 0, count: n)
                for i in 0..<n {
                    let c = Self.column(fxy[2 * i], shift: shift)
                    columnOf[i] = Int32(c)
                    st[c + 1] += 1
                }
                for c in 0..<columns { st[c + 1] += st[c] }
                st[columns + 1] = st[columns]
                var next = Array(st[0..<columns])
                for i in 0..<n {
                    let c = Int(columnOf[i])
                    ord[Int(next[c])] = Int32(i)
                    next[c] += 1
                }
                var scratch: [UInt64] = []
                for c in 0..<columns where st[c + 1] - st[c] > 1 {
                    Self.sortByY(ord, Int(st[c]), Int(st[c + 1]), fxy, &scratch)
                }
            }
        }
        var entries: [Entry] = []
        entries.reserveCapacity(n)
        var position = [Int32](repeating: 0, count: n)
        for p in 0..<n {
            let i = Int(order[p])
            entries.append(Entry(x: fxy[2 * i], y: fxy[2 * i + 1], item: Int32(i)))
            position[i] = Int32(p)
        }
        self.init(cell: cell, shift: shift, start: start, entries: entries, position: position)
    }

    private init(cell: Double, shift: Int, start: [Int32], entries: [Entry], position: [Int32]) {
        self.cell = cell
        self.shift = shift
        self.start = start
        self.entries = entries
        self.position = position
        sweep()
    }

    /// The grid of the next zoom, whose `count` items are this grid's items, which `newIndex` maps
    /// by position to their index there (-1 for those merged away), and the new clusters `added`
    /// (index, x, y). nil when the columns do not merge pairwise (then build a new grid).
    func next(newIndex: [Int32], added: [(index: Int32, x: Float, y: Float)], count: Int, cell: Double) -> NeighbourGrid? {
        let newShift = Self.shift(cell: cell, count: count)
        let s = shift - newShift
        guard s == 0 || s == 1 else { return nil }
        let columns = 1 << newShift
        // New clusters by column, then y (as bits: non-negative floats order like them), then index.
        let added = added.map { (key: UInt64(Self.column($0.x, shift: newShift)) << 32 | UInt64($0.y.bitPattern),
                                 index: $0.index, x: $0.x, y: $0.y) }
            .sorted { $0.key != $1.key ? $0.key < $1.key : $0.index < $1.index }
        let addedColumn = added.map { Int($0.key >> 32) }
        var start = [Int32](repeating: 0, count: columns + 2)
        var position = [Int32](unsafeUninitializedCapacity: count) { _, n in n = count }
        let entries = [Entry](unsafeUninitializedCapacity: count) { new, initialized in
            self.start.withUnsafeBufferPointer { st in
                self.entries.withUnsafeBufferPointer { old in
                    newIndex.withUnsafeBufferPointer { map in
                        start.withUnsafeMutableBufferPointer { nst in
                            position.withUnsafeMutableBufferPointer { npos in
                                var a = 0, out = 0
                                for c in 0..<columns {
                                    nst[c] = Int32(out)
                                    // Up to two runs of old positions, and this column's new clusters, merged by y.
                                    var p = Int(st[c << s]), pEnd = Int(st[(c << s) + 1])
                                    var q = 0, qEnd = 0
                                    if s == 1 { q = pEnd; qEnd = Int(st[(c << 1) + 2]) }
                                    while p < pEnd && map[p] < 0 { p += 1 }
                                    while q < qEnd && map[q] < 0 { q += 1 }
                                    while true {
                                        let hasA = a < added.count && addedColumn[a] == c
                                        let yp: Float = p < pEnd ? old[p].y : .infinity
                                        let yq: Float = q < qEnd ? old[q].y : .infinity
                                        let ya: Float = hasA ? added[a].y : .infinity
                                        let e: Entry
                                        if p < pEnd && yp <= yq && yp <= ya {
                                            e = Entry(x: old[p].x, y: yp, item: map[p])
                                            p += 1
                                            while p < pEnd && map[p] < 0 { p += 1 }
                                        } else if q < qEnd && yq <= ya {
                                            e = Entry(x: old[q].x, y: yq, item: map[q])
                                            q += 1
                                            while q < qEnd && map[q] < 0 { q += 1 }
                                        } else if hasA {
                                            e = Entry(x: added[a].x, y: ya, item: added[a].index)
                                            a += 1
                                        } else {
                                            break
                                        }
                                        npos[Int(e.item)] = Int32(out)
                                        (new.baseAddress! + out).initialize(to: e)
                                        out += 1
                                    }
                                }
                                precondition(out == count, "the next zoom's grid lost items")
                            }
                        }
                    }
                }
            }
            initialized = count
        }
        start[columns] = Int32(count)
        start[columns + 1] = Int32(count)
        return NeighbourGrid(cell: cell, shift: newShift, start: start, entries: entries, position: position)
    }

    /// Marks the item at position `p` taken, and appends the items not yet taken whose (x, y)
    /// satisfy (x - qx)² + (y - qy)² <= r2, marking them taken too. (qx, qy) is the item's own
    /// `Double` position; `r2` at most (cell - Float rounding)².
    @inline(__always)
    mutating func take(position p: Int, x qx: Double, y qy: Double, r2: Double, into found: inout [Int32]) {
        let cell = self.cell
        start.withUnsafeBufferPointer { st in
            entries.withUnsafeMutableBufferPointer { v in
                v[p].taken = true
                let e = v[p]
                let c = Int(e.column)
                let top = Double(e.y) + cell
                @inline(__always)
                func scan(_ from: Int32, _ end: Int32) {
                    var q = Int(from)
                    while q < Int(end) && Double(v[q].y) <= top {
                        if !v[q].taken {
                            let dx = Double(v[q].x) - qx, dy = Double(v[q].y) - qy
                            if dx * dx + dy * dy <= r2 {
                                v[q].taken = true
                                found.append(v[q].item)
                            }
                        }
                        q += 1
                    }
                }
                scan(e.left, st[c])
                scan(e.middle, st[c + 1])
                scan(e.right, st[c + 2])
            }
        }
    }

    /// Finds each item's windows in the three columns around it, and whether it is isolated.
    private mutating func sweep() {
        let n = entries.count
        var isolated = [Bool](repeating: false, count: n)
        let cell = self.cell, columns = columnCount
        start.withUnsafeBufferPointer { st in
            entries.withUnsafeMutableBufferPointer { v in
                isolated.withUnsafeMutableBufferPointer { iso in
                    /// Whether positions from..<end hold no item but p within `cell` of (x, y) along both axes.
                    @inline(__always)
                    func alone(_ from: Int, _ end: Int, _ p: Int, _ x: Double, _ high: Double) -> Bool {
                        var j = from
                        while j < end && Double(v[j].y) <= high {
                            if j != p && abs(Double(v[j].x) - x) <= cell { return false }
                            j += 1
                        }
                        return true
                    }
                    for c in 0..<columns {
                        let lo = Int(st[c]), hi = Int(st[c + 1])
                        if lo == hi { continue }
                        // Columns c - 1, c, c + 1 (empty beyond the edges): the first position of each
                        // whose y is not below y - cell, which only moves forward.
                        var left = Int(st[Swift.max(c - 1, 0)]), middle = lo, right = hi
                        let leftEnd = c > 0 ? lo : 0, rightEnd = Int(st[c + 2])
                        for p in lo..<hi {
                            let x = Double(v[p].x), y = Double(v[p].y)
                            let low = y - cell, high = y + cell
                            while left < leftEnd && Double(v[left].y) < low { left += 1 }
                            while middle < hi && Double(v[middle].y) < low { middle += 1 }
                            while right < rightEnd && Double(v[right].y) < low { right += 1 }
                            let alone = alone(middle, hi, p, x, high) && alone(left, leftEnd, p, x, high)
                                && alone(right, rightEnd, p, x, high)
                            iso[Int(v[p].item)] = alone
                            v[p].column = Int32(c)
                            if !alone {
                                v[p].left = Int32(left)
                                v[p].middle = Int32(middle)
                                v[p].right = Int32(right)
                            }
                        }
                    }
                }
            }
        }
        self.isolated = isolated
    }

    /// Sorts `ord[lo..<hi]` by y, then by item index.
    private static func sortByY(_ ord: UnsafeMutableBufferPointer<Int32>, _ lo: Int, _ hi: Int,
                                _ fxy: UnsafeBufferPointer<Float>, _ scratch: inout [UInt64]) {
        if hi - lo <= 16 {
            var i = lo + 1
            while i < hi {
                let v = ord[i], key = fxy[2 * Int(v) + 1]
                var j = i - 1
                while j >= lo {
                    let y = fxy[2 * Int(ord[j]) + 1]
                    if y < key || (y == key && ord[j] < v) { break }
                    ord[j + 1] = ord[j]
                    j -= 1
                }
                ord[j + 1] = v
                i += 1
            }
            return
        }
        // Non-negative floats order like their bit patterns: sort (y bits, index) as integers.
        scratch.removeAll(keepingCapacity: true)
        for j in lo..<hi {
            scratch.append(UInt64(fxy[2 * Int(ord[j]) + 1].bitPattern) << 32 | UInt64(UInt32(bitPattern: ord[j])))
        }
        scratch.sort()
        for (j, key) in scratch.enumerated() { ord[lo + j] = Int32(bitPattern: UInt32(truncatingIfNeeded: key)) }
    }
}
