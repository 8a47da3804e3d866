import Foundation

/// A static 2-D KD-tree of points, laid out exactly as mourner/kdbush v4 lays it out.
///
/// The points are kd-sorted in place (x and y splits taking turns, Floyd–Rivest selection),
/// so a query's results come out in kdbush's order. That order matters to the clustering:
/// it decides which neighbours are summed first, and the order of `getClusters` results.
/// Coordinates are kept as `Float`, as supercluster asks kdbush to (`Float32Array`).
///
/// ```swift
/// let tree = KDIndex(xy: [0.1, 0.2, 0.5, 0.5], nodeSize: 64)
/// var hits: [Int32] = []
/// tree.within(x: 0.5, y: 0.5, radius: 0.01, into: &hits)   // [1]
/// ```
/// - Complexity: building is O(n log(n / nodeSize)); a query visits O(√n + k) items.
struct KDIndex: Sendable {
    let nodeSize: Int
    /// For each position in tree order, the index the item was added with.
    private(set) var ids: [UInt32]
    /// x0, y0, x1, y1, ... in tree order.
    private(set) var coords: [Float]

    var count: Int { ids.count }

    /// Indexes the points of a flat array: item i is at `data[i * stride]` (x) and `data[i * stride + 1]` (y).
    init(data: UnsafeBufferPointer<Double>, stride: Int, count n: Int, nodeSize: Int) {
        let nodeSize = Swift.min(Swift.max(nodeSize, 2), 65535)
        self.nodeSize = nodeSize
        var ids = [UInt32](repeating: 0, count: n)
        var coords = [Float](repeating: 0, count: 2 * n)
        ids.withUnsafeMutableBufferPointer { idp in
            coords.withUnsafeMutableBufferPointer { cp in
                for i in 0..<n {
                    idp[i] = UInt32(i)
                    cp[2 * i] = Float(data[i * stride])
                    cp[2 * i + 1] = Float(data[i * stride + 1])
                }
                if n > 0 {
                    let sorter = Sorter(ids: idp.baseAddress!, coords: cp.baseAddress!, nodeSize: nodeSize)
                    sorter.sort(0, n - 1, 0)
                }
            }
        }
        self.ids = ids
        self.coords = coords
    }

    /// Convenience for tests: points as x0, y0, x1, y1, ...
    init(xy: [Double], nodeSize: Int = 64) {
        self = xy.withUnsafeBufferPointer { KDIndex(data: $0, stride: 2, count: xy.count / 2, nodeSize: nodeSize) }
    }

    /// Appends the indexes of the items with `minX <= x <= maxX` and `minY <= y <= maxY`, in kdbush's order.
    func range(minX: Double, minY: Double, maxX: Double, maxY: Double, into result: inout [Int32]) {
        guard count > 0 else { return }
        ids.withUnsafeBufferPointer { idp in
            coords.withUnsafeBufferPointer { cp in
                let q = Query(ids: idp.baseAddress!, coords: cp.baseAddress!, nodeSize: nodeSize)
                q.range(0, count - 1, 0, minX, minY, maxX, maxY, &result)
            }
        }
    }

    /// Appends the indexes of the items within `radius` of (x, y), in kdbush's order.
    func within(x qx: Double, y qy: Double, radius r: Double, into result: inout [Int32]) {
        guard count > 0 else { return }
        ids.withUnsafeBufferPointer { idp in
            coords.withUnsafeBufferPointer { cp in
                let q = Query(ids: idp.baseAddress!, coords: cp.baseAddress!, nodeSize: nodeSize)
                q.within(0, count - 1, 0, qx, qy, r, r * r, &result)
            }
        }
    }

    /// Each item's place in the order queries report items in: `range` and `within` list their
    /// results in increasing rank, whatever the box or circle.
    func traversalRanks() -> [Int32] {
        var ranks = [Int32](repeating: 0, count: count)
        var next: Int32 = 0
        func visit(_ left: Int, _ right: Int) {
            if right - left <= nodeSize {
                var i = left
                while i <= right { ranks[Int(ids[i])] = next; next += 1; i += 1 }
                return
            }
            let m = (left + right) >> 1
            ranks[Int(ids[m])] = next
            next += 1
            visit(m + 1, right)
            visit(left, m - 1)
        }
        if count > 0 { visit(0, count - 1) }
        return ranks
    }
}

extension KDIndex {
    /// The queries over the sorted arrays. kdbush walks with an explicit stack, pushing the lower
    /// half before the upper; recursing into the upper half first visits items in the same order.
    private struct Query {
        let ids: UnsafePointer<UInt32>
        let coords: UnsafePointer<Float>
        let nodeSize: Int

        func range(_ left: Int, _ right: Int, _ axis: Int,
                   _ minX: Double, _ minY: Double, _ maxX: Double, _ maxY: Double, _ out: inout [Int32]) {
            if right - left <= nodeSize {
                var i = left
                while i <= right {
                    let x = Double(coords[2 * i]), y = Double(coords[2 * i + 1])
                    if x >= minX && x <= maxX && y >= minY && y <= maxY { out.append(Int32(bitPattern: ids[i])) }
                    i += 1
                }
                return
            }
            let m = (left + right) >> 1
            let x = Double(coords[2 * m]), y = Double(coords[2 * m + 1])
            if x >= minX && x <= maxX && y >= minY && y <= maxY { out.append(Int32(bitPattern: ids[m])) }
            let lower = axis == 0 ? minX <= x : minY <= y
            let upper = axis == 0 ? maxX >= x : maxY >= y
            if upper { range(m + 1, right, 1 - axis, minX, minY, maxX, maxY, &out) }
            if lower { range(left, m - 1, 1 - axis, minX, minY, maxX, maxY, &out) }
        }

        func within(_ left: Int, _ right: Int, _ axis: Int,
                    _ qx: Double, _ qy: Double, _ r: Double, _ r2: Double, _ out: inout [Int32]) {
            if right - left <= nodeSize {
                var i = left
                while i <= right {
                    let dx = Double(coords[2 * i]) - qx, dy = Double(coords[2 * i + 1]) - qy
                    if dx * dx + dy * dy <= r2 { out.append(Int32(bitPattern: ids[i])) }
                    i += 1
                }
                return
            }
            let m = (left + right) >> 1
            let x = Double(coords[2 * m]), y = Double(coords[2 * m + 1])
            let dx = x - qx, dy = y - qy
            if dx * dx + dy * dy <= r2 { out.append(Int32(bitPattern: ids[m])) }
            let lower = axis == 0 ? qx - r <= x : qy - r <= y
            let upper = axis == 0 ? qx + r >= x : qy + r >= y
            if upper { within(m + 1, right, 1 - axis, qx, qy, r, r2, &out) }
            if lower { within(left, m - 1, 1 - axis, qx, qy, r, r2, &out) }
        }
    }

    /// kdbush's kd-sort: select the median on one axis, recurse into both halves on the other.
    private struct Sorter {
        let ids: UnsafeMutablePointer<UInt32>
        let coords: UnsafeMutablePointer<Float>
        let nodeSize: Int

        func sort(_ left: Int, _ right: Int, _ axis: Int) {
            if right - left <= nodeSize { return }
            let m = (left + right) >> 1
            select(m, left, right, axis)
            sort(left, m - 1, 1 - axis)
            sort(m + 1, right, 1 - axis)
        }

        /// Floyd–Rivest selection: afterwards items [left, k) are not greater than item k on `axis`.
        func select(_ k: Int, _ leftIn: Int, _ rightIn: Int, _ axis: Int) {
            var left = leftIn, right = rightIn
            while right > left {
                if right - left > 600 {
                    let n = Double(right - left + 1)
                    let m = Double(k - left + 1)
                    let z = log(n)
                    let s = 0.5 * exp(2 * z / 3)
                    let sd = 0.5 * (z * s * (n - s) / n).squareRoot() * (m - n / 2 < 0 ? -1 : 1)
                    let kd = Double(k)
                    let newLeft = Swift.max(left, Int((kd - m * s / n + sd).rounded(.down)))
                    let newRight = Swift.min(right, Int((kd + (n - m) * s / n + sd).rounded(.down)))
                    select(k, newLeft, newRight, axis)
                }
                let t = coords[2 * k + axis]
                var i = left
                var j = right
                swapItem(left, k)
                if coords[2 * right + axis] > t { swapItem(left, right) }
                while i < j {
                    swapItem(i, j)
                    i += 1
                    j -= 1
                    while coords[2 * i + axis] < t { i += 1 }
                    while coords[2 * j + axis] > t { j -= 1 }
                }
                if coords[2 * left + axis] == t {
                    swapItem(left, j)
                } else {
                    j += 1
                    swapItem(j, right)
                }
                if j <= k { left = j + 1 }
                if k <= j { right = j - 1 }
            }
        }

        @inline(__always)
        func swapItem(_ i: Int, _ j: Int) {
            let id = ids[i]; ids[i] = ids[j]; ids[j] = id
            let x = coords[2 * i]; coords[2 * i] = coords[2 * j]; coords[2 * j] = x
            let y = coords[2 * i + 1]; coords[2 * i + 1] = coords[2 * j + 1]; coords[2 * j + 1] = y
        }
    }
}
