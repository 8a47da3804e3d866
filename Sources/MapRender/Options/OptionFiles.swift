import Foundation
import MapRenderCore
import MapRenderCairo

/// How options that name files (`style`, `basemap`) find and check them: relative paths resolve
/// against `baseDirectory` (a manifest's folder; nil keeps them as given, as on the command line),
/// and each file is checked, and each style read, once however many jobs name it.
public final class OptionFiles: @unchecked Sendable {
    let baseDirectory: URL?
    private let lock = NSLock()
    private var problems: [String: String?] = [:]
    private var styles: [String: Result<Style, MapRenderError>] = [:]
    private var basemapStyles: [String: Result<MapLibreStyle, MapRenderError>] = [:]

    public init(baseDirectory: URL? = nil) { self.baseDirectory = baseDirectory }

    /// The path made absolute against the base folder (unchanged without one).
    public func resolve(_ path: String) -> String {
        guard let base = baseDirectory else { return path }
        if path.hasPrefix("/") { return URL(fileURLWithPath: path).standardizedFileURL.path }
        return URL(fileURLWithPath: path, relativeTo: base).standardizedFileURL.path
    }

    /// The resolved path of a file that exists and can be read; else exit 66 saying why
    /// ("no such file", "it is a folder", "permission denied").
    public func readableFile(_ path: String) throws -> String {
        let full = resolve(path)
        lock.lock(); defer { lock.unlock() }
        if problems[full] == nil {
            var isDir: ObjCBool = false
            if !FileManager.default.fileExists(atPath: full, isDirectory: &isDir) {
                problems[full] = .some("cannot read \(full): no such file")
            } else if isDir.boolValue {
                problems[full] = .some("cannot read \(full): it is a folder")
            } else if !FileManager.default.isReadableFile(atPath: full) {
                problems[full] = .some("cannot read \(full): permission denied")
            } else {
                problems[full] = .some(nil)
            }
        }
        if case .some(.some(let problem)) = problems[full] { throw MapRenderError(.inputUnreadable, problem) }
        return full
    }

    /// The style file at `path` (already resolved), read and checked once.
    public func style(_ path: String) throws -> Style {
        lock.lock(); defer { lock.unlock() }
        if styles[path] == nil {
            do {
                // With the icons it names, read and checked once (`IconLoader`).
                var style = try Style.load(path: path)
                try IconLoader.load(style: &style)
                styles[path] = .success(style)
            } catch let e as MapRenderError {
                styles[path] = .failure(e)
            }
        }
        switch styles[path]! {
        case .success(let s): return s
        case .failure(let e): throw e
        }
    }

    /// The MapLibre style at `path` (already resolved), read and checked once.
    public func basemapStyle(_ path: String) throws -> MapLibreStyle {
        lock.lock(); defer { lock.unlock() }
        if basemapStyles[path] == nil {
            do {
                basemapStyles[path] = .success(try MapLibreStyle.load(path: path))
            } catch let e as MapRenderError {
                basemapStyles[path] = .failure(e)
            }
        }
        switch basemapStyles[path]! {
        case .success(let s): return s
        case .failure(let e): throw e
        }
    }
}

/// Checks, before any work, that a file can be written at `path`: its folder exists and is a
/// folder (`-` is standard output). The message is the one `AtomicFile.write` would give after
/// the work, so a missing folder costs no render.
public enum OutputDestination {
    public static func check(_ path: String) throws {
        guard path != "-" else { return }
        let dir = URL(fileURLWithPath: path).deletingLastPathComponent().path
        var isDir: ObjCBool = false
        guard FileManager.default.fileExists(atPath: dir, isDirectory: &isDir), isDir.boolValue else {
            throw MapRenderError(.output, "cannot write \(path): folder \(dir) does not exist")
        }
        var isDirTarget: ObjCBool = false
        if FileManager.default.fileExists(atPath: path, isDirectory: &isDirTarget), isDirTarget.boolValue {
            throw MapRenderError(.output, "cannot write \(path): it is a folder")
        }
    }
}
