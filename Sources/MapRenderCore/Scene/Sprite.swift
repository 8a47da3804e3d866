import Foundation

/// A MapLibre sprite sheet: its index (`sprite.json`: each image's place in the sheet and pixel
/// ratio) over its image (`sprite.png`), cut into one `RasterImage` per entry, for a style's
/// `icon-image`, `fill-pattern`.
///
/// ```swift
/// let s = try Sprite.parse(index: json, sheet: (png.width, png.height, png.pixels), name: "sprite@2x")
/// s.icons["dot"]?.width    // CSS px: the entry's pixels over its pixel ratio
/// ```
public struct Sprite: Sendable, Equatable {
    public var icons: [String: SpriteImage] = [:]

    public init() {}

    /// At most this many entries, and sheets of at most `maxSide` px a side, are read.
    public static let maxEntries = 10_000
    public static let maxSide = 8192
    /// At most this many pixels are cut out of a sheet, all entries together (64 Mpx, 256 MiB).
    public static let maxPixels = 64 << 20

    /// Reads the index `index` against the decoded sheet (straight RGBA, rows packed); an entry
    /// outside the sheet, or without a positive size, is an error naming it.
    public static func parse(index: Data, sheet: (width: Int, height: Int, pixels: [UInt8]), name: String) throws -> Sprite {
        func fail(_ m: String) -> MapRenderError { MapRenderError(.inputMalformed, "sprite \(name): \(m)") }
        guard sheet.width <= maxSide, sheet.height <= maxSide else { throw fail("the sheet is larger than \(maxSide) px a side") }
        guard let o = (try? JSONSerialization.jsonObject(with: index)) as? [String: Any] else { throw fail("the index is not a JSON object") }
        guard o.count <= maxEntries else { throw fail("more than \(maxEntries) images") }
        var s = Sprite()
        var cut = 0   // pixels copied out so far: overlapping entries cannot multiply the sheet past a bound
        for key in o.keys.sorted() {
            guard let e = o[key] as? [String: Any] else { throw fail("\"\(key)\": expected an object") }
            func int(_ k: String) throws -> Int {
                guard let n = e[k] as? NSNumber, n.doubleValue.isFinite, n.doubleValue >= 0, n.doubleValue <= Double(maxSide) else {
                    throw fail("\"\(key)\".\(k): expected a whole number of pixels")
                }
                return n.intValue
            }
            let x = try int("x"), y = try int("y"), w = try int("width"), h = try int("height")
            let ratio = (e["pixelRatio"] as? NSNumber)?.doubleValue ?? 1
            guard w > 0, h > 0, x + w <= sheet.width, y + h <= sheet.height else {
                throw fail("\"\(key)\": \(w)x\(h) at \(x),\(y) is not inside the \(sheet.width)x\(sheet.height) sheet")
            }
            guard ratio > 0, ratio.isFinite, ratio <= 16 else { throw fail("\"\(key)\".pixelRatio: expected a number from 0 to 16") }
            cut += w * h
            guard cut <= maxPixels else { throw fail("its images add up to more than \(maxPixels) pixels") }
            var rgba = [UInt8](repeating: 0, count: w * h * 4)
            for row in 0..<h {
                let from = 4 * ((y + row) * sheet.width + x)
                rgba.replaceSubrange((4 * row * w)..<(4 * (row + 1) * w), with: sheet.pixels[from..<(from + 4 * w)])
            }
            s.icons[key] = SpriteImage(name: key, image: RasterImage(width: w, height: h, rgba: rgba, name: "\(name): \(key)"),
                                       pixelRatio: ratio, sdf: (e["sdf"] as? Bool) == true)
        }
        return s
    }
}

/// One image of a sprite: its pixels and how many of them make a CSS px. Equal (and hashed) by
/// name and ratio: a paint holding one stays cheap to compare.
public struct SpriteImage: Sendable, Hashable {
    public var name: String
    public var image: RasterImage
    public var pixelRatio: Double
    /// A signed-distance-field icon (recoloured by `icon-color` in MapLibre): drawn as its pixels here.
    public var sdf = false

    /// Size in CSS px.
    public var width: Double { Double(image.width) / pixelRatio }
    public var height: Double { Double(image.height) / pixelRatio }

    public static func == (a: SpriteImage, b: SpriteImage) -> Bool { a.name == b.name && a.pixelRatio == b.pixelRatio && a.image === b.image }
    public func hash(into h: inout Hasher) { h.combine(name); h.combine(pixelRatio) }
}
