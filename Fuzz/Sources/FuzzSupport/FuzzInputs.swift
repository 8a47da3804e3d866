import Foundation
import MapRender

/// Bodies that several targets share: one reader or parser on arbitrary bytes, where every
/// outcome but a crash, a hang or a sanitizer report is fine (a result, or a MapRenderError).
public enum FuzzInputs {
    /// The point reader of one format (`fuzz-csv`, `fuzz-geojson`), on a file named `fuzz.csv` / `fuzz.geojson`.
    public static func readPoints(_ bytes: UnsafePointer<UInt8>, _ count: Int, as format: InputOptions.Format) -> CInt {
        var options = InputOptions()
        options.format = format
        _ = try? PointReader.read(data: Data(bytes: bytes, count: count), name: "fuzz.\(format.rawValue)", options: options)
        return 0
    }

    /// A batch manifest (`fuzz-manifest-json`, `fuzz-manifest-yaml`; `name`'s extension picks the
    /// parser), parsed and checked: paths resolve in an empty scratch folder, so inputs are
    /// mostly missing and reported, never rendered.
    public static func parseManifest(_ bytes: UnsafePointer<UInt8>, _ count: Int, name: String) -> CInt {
        _ = try? BatchManifest.parse(data: Data(bytes: bytes, count: count), name: name, baseDirectory: FuzzDriver.scratchFolder)
        return 0
    }
}
