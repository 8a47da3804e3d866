/// Where boxes already sit on the image, to ask whether a new box would collide with any of them.
///
/// The two verbs of Mapnik's label collision detector: `canPlace` (has_placement) asks, `insert`
/// records. Labels, markers, bubbles and spread legs (as thin rects) all go in as boxes: an obstacle
/// is just a box that was inserted without asking first.
///
/// ```swift
/// var index = CollisionIndex(width: 800, height: 600, bounds: Rect(x: 0, y: 0, width: 800, height: 600))
/// index.insert(markerBox)                 // an obstacle: never asked
/// if index.canPlace(labelBox) { index.insert(labelBox) }
/// ```
///
/// Boxes collide when their interiors overlap (`Rect.intersects`): boxes that only touch do not.
/// With `bounds`, a box that is not wholly inside it cannot be placed (the map edge is an obstacle).
///
/// Storage is flat: a uniform grid of `cellSize` px over the image; each cell is a singly linked
/// list threaded through two flat arrays, `head[cell]` (Int32, the newest entry) and `entries`
/// (the box's minX, minY, maxX, maxY and the Int32 index of the next entry in the cell). A box
/// covering k cells has k entries: its coordinates are copied into each, so walking a cell costs
/// one memory access per box rather than three (next, box index, coordinates). No per-cell
/// allocation: 100k inserts grow one array. `insert(contentsOf:)` files many boxes (the obstacles)
/// with each cell's entries side by side, which makes later walks over them cache-friendly.
/// A box partly or wholly off the grid is filed in the nearest edge cells, so boxes outside the
/// image still collide with each other when `bounds` is nil.
///
/// - Complexity: `insert` is O(c), `canPlace` O(c + e), where c is the number of cells the box
///   covers (at most `(w / cellSize + 1) · (h / cellSize + 1)`) and e the number of entries in
///   them. Choose `cellSize` near the typical box size (labels, markers: 16–64 px) so that c and e
///   stay small. Memory is O(cells + entries), 40 bytes an entry.
public struct CollisionIndex: Sendable {
    /// A box must lie wholly inside this rect to be placeable; nil: no edge.
    public let bounds: Rect?
    /// Side of a grid cell, CSS px.
    public let cellSize: Double
    /// Number of boxes inserted.
    public private(set) var count = 0

    private let columns: Int
    private let rows: Int
    private let inverseCellSize: Double
    /// Per cell: the newest entry in it, or -1.
    private var head: [Int32]
    /// A box filed in one cell.
    private struct Entry {
        var minX: Double, minY: Double, maxX: Double, maxY: Double
        /// The next (older) entry in the same cell, or -1.
        var next: Int32
    }
    private var entries: [Entry] = []

    /// An empty index over an image of `width` × `height` px.
    /// - Parameters:
    ///   - bounds: where boxes must lie to be placed, usually the image `Rect(x: 0, y: 0, width:
    ///     width, height: height)`; nil lets boxes hang off the image.
    ///   - cellSize: grid cell side, px: about the typical box's size.
    public init(width: Double, height: Double, bounds: Rect?, cellSize: Double = 32) {
        precondition(cellSize > 0 && cellSize.isFinite, "cellSize must be positive")
        self.bounds = bounds
        self.cellSize = cellSize
        self.inverseCellSize = 1 / cellSize
        let w = width.isFinite ? max(width, 0) : 0, h = height.isFinite ? max(height, 0) : 0
        // Cap the grid at a few million cells: a huge image just gets fuller cells.
        self.columns = min(max(Int((w / cellSize).rounded(.up)), 1), 4096)
        self.rows = min(max(Int((h / cellSize).rounded(.up)), 1), 4096)
        self.head = [Int32](repeating: -1, count: columns * rows)
    }

    /// Whether `r` is inside `bounds` (if any) and overlaps no inserted box.
    /// A box with a NaN coordinate cannot be placed.
    public func canPlace(_ r: Rect) -> Bool {
        guard let (c0, c1, r0, r1) = cells(of: r) else { return false }
        if let b = bounds, !b.contains(r) { return false }
        let minX = r.x, minY = r.y, maxX = r.maxX, maxY = r.maxY
        return head.withUnsafeBufferPointer { head in
            entries.withUnsafeBufferPointer { entries in
                for row in r0...r1 {
                    for col in c0...c1 {
                        var e = Int(head[row &* columns &+ col])
                        while e >= 0 {
                            let b = entries[e]
                            // Same test as `Rect.intersects`: interiors overlap.
                            if minX < b.maxX && b.minX < maxX && minY < b.maxY && b.minY < maxY { return false }
                            e = Int(b.next)
                        }
                    }
                }
                return true
            }
        }
    }

    /// Records `r` (a placed label or an obstacle) whether or not it could be placed.
    /// A box with a NaN coordinate is ignored.
    public mutating func insert(_ r: Rect) {
        guard let (c0, c1, r0, r1) = cells(of: r) else { return }
        count += 1
        for row in r0...r1 {
            for col in c0...c1 {
                let cell = row * columns + col
                entries.append(Entry(minX: r.x, minY: r.y, maxX: r.maxX, maxY: r.maxY, next: head[cell]))
                head[cell] = Int32(truncatingIfNeeded: entries.count - 1)
            }
        }
    }

    /// Records many boxes at once (the obstacles, before any label): the same as inserting each,
    /// but each cell's new entries are laid out next to each other, so later walks over them read
    /// memory in order instead of jumping (2–3× faster `canPlace` on a crowded map).
    /// - Complexity: O(cells + entries).
    public mutating func insert(contentsOf rects: [Rect]) {
        let cellCount = head.count
        // Pass 1: entries per cell, then each cell's first slot in the new block.
        var start = [Int32](repeating: 0, count: cellCount + 1)
        for r in rects {
            guard let (c0, c1, r0, r1) = cells(of: r) else { continue }
            for row in r0...r1 { for col in c0...c1 { start[row * columns + col + 1] += 1 } }
        }
        for c in 0..<cellCount { start[c + 1] += start[c] }
        let base = entries.count, total = Int(start[cellCount])
        guard total > 0 else { return }
        // Pass 2: fill each cell's run in input order.
        entries.append(contentsOf: repeatElement(Entry(minX: 0, minY: 0, maxX: 0, maxY: 0, next: -1), count: total))
        var fill = start
        for r in rects {
            guard let (c0, c1, r0, r1) = cells(of: r) else { continue }
            count += 1
            for row in r0...r1 {
                for col in c0...c1 {
                    let cell = row * columns + col
                    entries[base + Int(fill[cell])] = Entry(minX: r.x, minY: r.y, maxX: r.maxX, maxY: r.maxY, next: -1)
                    fill[cell] += 1
                }
            }
        }
        // Link each run: in order, then on to the cell's older entries.
        for c in 0..<cellCount where start[c] < start[c + 1] {
            let first = base + Int(start[c]), last = base + Int(start[c + 1]) - 1
            for k in first..<last { entries[k].next = Int32(truncatingIfNeeded: k + 1) }
            entries[last].next = head[c]
            head[c] = Int32(truncatingIfNeeded: first)
        }
    }

    /// Inserts `r` if it can be placed; returns whether it was.
    @discardableResult
    public mutating func insertIfPlaceable(_ r: Rect) -> Bool {
        guard canPlace(r) else { return false }
        insert(r)
        return true
    }

    /// Forgets one box inserted as exactly `r` (the same coordinates); false when there is none.
    /// Its entries are unlinked from their cells (their storage is not reused).
    @discardableResult
    public mutating func remove(_ r: Rect) -> Bool {
        guard let (c0, c1, r0, r1) = cells(of: r) else { return false }
        var found = false
        for row in r0...r1 {
            for col in c0...c1 {
                let cell = row * columns + col
                var previous: Int32 = -1, e = head[cell]
                while e >= 0 {
                    let b = entries[Int(e)]
                    if b.minX == r.x && b.minY == r.y && b.maxX == r.maxX && b.maxY == r.maxY {
                        if previous < 0 { head[cell] = b.next } else { entries[Int(previous)].next = b.next }
                        found = true
                        break
                    }
                    previous = e; e = b.next
                }
            }
        }
        if found { count -= 1 }
        return found
    }

    /// Reserves room for `boxes` more boxes of about one cell each.
    public mutating func reserveCapacity(_ boxes: Int) {
        entries.reserveCapacity(entries.count + 2 * boxes)
    }

    /// Forgets every box, keeping the grid and the storage (for the next animation frame).
    public mutating func removeAll() {
        for i in head.indices { head[i] = -1 }
        entries.removeAll(keepingCapacity: true)
        count = 0
    }

    /// The grid columns and rows `r` covers, or nil for a box with a NaN coordinate.
    @inline(__always)
    private func cells(of r: Rect) -> (c0: Int, c1: Int, r0: Int, r1: Int)? {
        let minX = r.x, minY = r.y, maxX = r.maxX, maxY = r.maxY
        guard !minX.isNaN, !minY.isNaN, !maxX.isNaN, !maxY.isNaN else { return nil }
        let (c0, c1) = cellRange(minX, maxX, count: columns)
        let (r0, r1) = cellRange(minY, maxY, count: rows)
        return (c0, c1, r0, r1)
    }

    /// The cells from `lo` to `hi` on one axis, clamped to the grid (so off-grid boxes land in
    /// the edge cells). Clamps in floating point first, so infinities are fine; after clamping to
    /// zero and up, truncation is the floor.
    @inline(__always)
    private func cellRange(_ lo: Double, _ hi: Double, count n: Int) -> (Int, Int) {
        let last = Double(n - 1)
        let a = Int(min(max(lo * inverseCellSize, 0), last))
        let b = Int(min(max(hi * inverseCellSize, 0), last))
        return (a, max(a, b))
    }
}
