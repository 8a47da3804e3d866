import Foundation

/// The world's edges in the view: one copy of the world around the view's centre, from 85.05°N to
/// 85.05°S. Outside it the scene is letterboxed, and marks are kept inside it.
public enum WorldFrame {
    /// The world's rectangle in CSS px, or nil when the world covers the whole image.
    public static func rect(viewport v: Viewport) -> Rect? {
        let ws = v.worldSize
        let x0 = v.width / 2 - ws / 2
        let y0 = v.height / 2 - v.centerY * ws
        let r = Rect(x: x0, y: y0, width: ws, height: ws)
        let covers = r.x <= 0 && r.y <= 0 && r.maxX >= v.width && r.y + ws >= v.height
        return covers ? nil : r
    }

    /// Moves markers whose symbol would reach beyond the world's edges (points at or near the
    /// poles, or near the left and right edges of a world centred away from 0°) just inside it.
    /// A display nudge: the data is unchanged.
    public static func keepInside(_ batch: inout MarkerBatch, world w: Rect) {
        let extents = batch.symbols.map(\.extent)
        for k in 0..<batch.count {
            let e = extents[Int(batch.symbol[k])]
            if e.top + e.bottom < w.height {
                let y = batch.y[k]
                if y - e.top < w.y { batch.y[k] = w.y + e.top } else if y + e.bottom > w.y + w.height { batch.y[k] = w.y + w.height - e.bottom }
            }
            if e.left + e.right < w.width {
                let x = batch.x[k]
                if x - e.left < w.x { batch.x[k] = w.x + e.left } else if x + e.right > w.maxX { batch.x[k] = w.maxX - e.right }
            }
        }
    }

    /// The same for bubbles (their radius and stroke), moving the count text with them.
    public static func keepInside(_ batch: inout BubbleBatch, world w: Rect) {
        let reach = batch.strokeWidth / 2
        for i in batch.bubbles.indices {
            let b = batch.bubbles[i]
            let r = b.radius + reach
            guard 2 * r < w.height else { continue }
            var dx = 0.0, dy = 0.0
            if b.y - r < w.y { dy = w.y + r - b.y } else if b.y + r > w.y + w.height { dy = w.y + w.height - r - b.y }
            if b.x - r < w.x { dx = w.x + r - b.x } else if b.x + r > w.maxX { dx = w.maxX - r - b.x }
            if dy != 0 { batch.bubbles[i].y += dy; batch.bubbles[i].textBox.y += dy }
            if dx != 0 { batch.bubbles[i].x += dx; batch.bubbles[i].textBox.x += dx }
        }
    }
}
