import Foundation
import MapRenderCore

/// Parsed basemaps shared by every render in the process (batch jobs, animation frames):
/// each file is read once while its size and modification time stay the same.
enum BasemapCache {
    private struct Entry { var size: Int; var modified: Date; var shapes: ShapeSet }
    private static let lock = NSLock()
    nonisolated(unsafe) private static var entries: [String: Entry] = [:]

    static func shapes(path: String) throws -> ShapeSet {
        let attrs = try? FileManager.default.attributesOfItem(atPath: path)
        let size = (attrs?[.size] as? NSNumber)?.intValue ?? -1
        let modified = attrs?[.modificationDate] as? Date ?? .distantPast
        lock.lock()
        if let e = entries[path], e.size == size, e.modified == modified {
            lock.unlock()
            return e.shapes
        }
        lock.unlock()
        let shapes = try ShapeReader.read(path: path)
        if size >= 0 {
            lock.lock()
            entries[path] = Entry(size: size, modified: modified, shapes: shapes)
            lock.unlock()
        }
        return shapes
    }
}
