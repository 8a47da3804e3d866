import Foundation
import MapRenderCore

/// Parsed basemaps shared by every render in the process (batch jobs, animation frames):
/// each file is read once while its size and modification time stay the same. Bounded: at most
/// `limit` files are kept, the one read longest ago leaving first (a long-running process, such as
/// `maprender serve`, never grows with the files it has seen).
enum BasemapCache {
    private struct Entry { var size: Int; var modified: Date; var shapes: ShapeSet; var points: PointFeatures }
    private static let lock = NSLock()
    nonisolated(unsafe) private static var entries: [String: Entry] = [:]
    nonisolated(unsafe) private static var order: [String] = []
    /// Files kept at most.
    static let limit = 16

    static func shapes(path: String) throws -> ShapeSet { try read(path: path, points: false).shapes }

    /// A basemap style's GeoJSON source: the file's shapes and its points (labelled and
    /// circled), each row with its `$type` (`ShapeReader.readFeatures`).
    static func features(path: String) throws -> (shapes: ShapeSet, points: PointFeatures) { try read(path: path, points: true) }

    private static func read(path: String, points wantsPoints: Bool) throws -> (shapes: ShapeSet, points: PointFeatures) {
        let key = (wantsPoints ? "features|" : "shapes|") + path
        let attrs = try? FileManager.default.attributesOfItem(atPath: path)
        let size = (attrs?[.size] as? NSNumber)?.intValue ?? -1
        let modified = attrs?[.modificationDate] as? Date ?? .distantPast
        lock.lock()
        if let e = entries[key], e.size == size, e.modified == modified {
            lock.unlock()
            return (e.shapes, e.points)
        }
        lock.unlock()
        var (shapes, points) = wantsPoints ? try ShapeReader.readFeatures(path: path) : (try ShapeReader.read(path: path), PointFeatures())
        if size >= 0 {
            shapes.computeBoxes()  // kept for the next maps: a zoomed view projects only what is near it
            lock.lock()
            if entries.updateValue(Entry(size: size, modified: modified, shapes: shapes, points: points), forKey: key) == nil {
                order.append(key)
                if order.count > limit { entries[order.removeFirst()] = nil }
            }
            lock.unlock()
        }
        return (shapes, points)
    }
}
