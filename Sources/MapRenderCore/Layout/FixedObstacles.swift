/// Fixed obstacles (markers, bubbles, legs, decorations) asked exactly, mostly at a raster's speed.
///
/// `CollisionIndex` answers exactly but walks every box in the cells a question covers, and where
/// a hundred thousand pins pile up a cell holds hundreds: callouts for 100k pins took 2.8 s of
/// layout, two thirds of it in `canPlace`. `ObstacleRaster` answers in four reads but
/// conservatively (a pixel an obstacle touches counts as covered). Together: a box whose pixels
/// are all free is clear; a box with a covered pixel at least one pixel inside its edges overlaps
/// an obstacle (that pixel lies within the box, and the obstacle's interior reaches into it);
/// only a box whose covered pixels all lie in the pixel along its edges, where the raster cannot
/// tell a touch from an overlap, is asked of the exact index (and so is a box reaching beyond the
/// image, which the raster does not cover, or without area, which it cannot tell from nothing).
/// Obstacles the raster cannot hold (without area, or not finite: a bubble of radius 0), which
/// the index still counts, are asked of an index of their own every time, when there are any.
/// The answers are the index's, so a callout's pointer may touch its own pin, as before.
public struct FixedObstacles: Sendable {
    private var raster: ObstacleRaster
    private var exact: CollisionIndex
    private var flat: CollisionIndex?

    /// The obstacles of an image of `width` × `height` CSS px.
    public init(width: Double, height: Double, obstacles: [Rect]) {
        raster = ObstacleRaster(width: width, height: height)
        for o in obstacles { raster.add(o) }
        raster.finish()
        exact = CollisionIndex(width: width, height: height, bounds: nil)
        exact.insert(contentsOf: obstacles)
        let unheld = obstacles.filter { !Self.hasArea($0) }
        flat = nil
        if !unheld.isEmpty {
            flat = CollisionIndex(width: width, height: height, bounds: nil)
            flat!.insert(contentsOf: unheld)
        }
    }

    /// A finite rect whose edges differ as Doubles: one the raster holds (a width so small that
    /// x + width == x does not count).
    private static func hasArea(_ r: Rect) -> Bool {
        r.x.isFinite && r.y.isFinite && r.maxX.isFinite && r.maxY.isFinite && r.x < r.maxX && r.y < r.maxY
    }

    /// Whether no obstacle's interior overlaps `r`'s: `CollisionIndex.canPlace` on an index of the
    /// same obstacles without bounds, for every `r`.
    public func isFree(_ r: Rect) -> Bool {
        // The raster covers the image only and tells nothing of a box without area: those are
        // asked of the index.
        guard Self.hasArea(r), r.x >= 0, r.y >= 0, r.maxX <= Double(raster.width), r.maxY <= Double(raster.height) else {
            return exact.canPlace(r)
        }
        if let flat, !flat.canPlace(r) { return false }
        if raster.isFree(r) { return true }
        let inner = Rect(x: r.x + 1, y: r.y + 1, width: r.width - 2, height: r.height - 2)
        if inner.width > 0 && inner.height > 0 && !raster.isFree(inner) { return false }
        return exact.canPlace(r)
    }
}
