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

extension FuzzInputs {
    /// A tileset file (`fuzz-pmtiles`, `fuzz-mbtiles`) written to the scratch folder as
    /// `fuzz.EXT`, then a 256×256 map at zoom 1 asked of it through a new `TileService` (offline,
    /// so nothing leaves the machine): the header, directories or tables, the tiles the view
    /// covers, and their decoding.
    public static func tileset(_ bytes: UnsafePointer<UInt8>, _ count: Int, ext: String) -> CInt {
        let path = FuzzDriver.scratchFolder + "/fuzz." + ext
        unlink(path)
        guard FileManager.default.createFile(atPath: path, contents: Data(bytes: bytes, count: count)) else { return 0 }
        var options = TileOptions()
        options.offline = true
        options.sources = [path]
        options.mapTimeout = 5
        let service = TileService(options: options, memoryLimit: 64 << 20)
        let view = ViewFitter.center(lat: 20, lon: 0, zoom: 1, width: 256, height: 256)
        _ = try? service.basemap(viewport: view, scale: 1, sources: [path])
        return 0
    }
}
