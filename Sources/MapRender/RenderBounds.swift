import Foundation
import MapRenderCore

/// The memory a render will need, estimated before anything is read, so a request that cannot
/// fit fails at once with the figure instead of being killed half-way (or taking the machine).
///
/// The estimate counts what is known up front: the image (Cairo's 4 bytes per pixel, the same
/// again for the PNG encoder's copy and 4 more for a PDF/SVG recording or the rows libpng
/// filters), and the GeoJSON files, which are read whole (about 3 times their size while parsed;
/// CSV is streamed and not counted).
enum RenderBounds {
    static let bytesPerPixel = 12.0
    static let geoJSONFactor = 3.0

    static func estimatedBytes(_ r: RenderRequest) -> Double {
        let pixels = (r.width * r.scale).rounded(.up) * (r.height * r.scale).rounded(.up)
        var files = r.basemaps
        if r.points == nil { files += r.inputs.filter { PointReader.isGeoJSONName($0) } }
        let fileBytes = files.reduce(0.0) { sum, path in
            var st = stat()
            return sum + (stat(path, &st) == 0 && (st.st_mode & S_IFMT) == S_IFREG ? Double(st.st_size) : 0)
        }
        return pixels * bytesPerPixel + fileBytes * geoJSONFactor
    }

    static func check(_ r: RenderRequest) throws {
        let need = estimatedBytes(r)
        guard need <= Double(r.maxMemory) else {
            func mb(_ b: Double) -> String { "\(Int((b / 1_048_576).rounded(.up))) MB" }
            throw MapRenderError(.usage, "the render would need about \(mb(need)) of memory (the image and the GeoJSON files), "
                + "more than the limit of \(mb(Double(r.maxMemory))); --max-memory raises it")
        }
    }
}
