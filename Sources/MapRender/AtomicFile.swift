import Foundation
import MapRenderCore

/// Writes files atomically: a temporary file in the same folder, then rename(2).
/// A failed run leaves no partial file and never replaces a good one.
public enum AtomicFile {
    public static func write(_ data: Data, to path: String) throws {
        if path == "-" {
            FileHandle.standardOutput.write(data)
            return
        }
        let url = URL(fileURLWithPath: path)
        let dir = url.deletingLastPathComponent().path
        var isDir: ObjCBool = false
        guard FileManager.default.fileExists(atPath: dir, isDirectory: &isDir), isDir.boolValue else {
            throw MapRenderError(.output, "cannot write \(path): folder \(dir) does not exist")
        }
        let tmp = dir + "/." + url.lastPathComponent + ".tmp-\(getpid())-\(UInt32.random(in: 0...UInt32.max))"
        guard FileManager.default.createFile(atPath: tmp, contents: data) else {
            throw MapRenderError(.output, "cannot write \(path): \(String(cString: strerror(errno)))")
        }
        guard rename(tmp, path) == 0 else {
            let reason = String(cString: strerror(errno))
            unlink(tmp)
            throw MapRenderError(.output, "cannot write \(path): \(reason)")
        }
    }
}
