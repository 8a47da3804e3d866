import Foundation

extension StyleReader {
    /// The style's `marker.icon`, `marker.icon-anchor` and `marker.icon-size`. `icon` is a file
    /// name or an expression whose every output is a file name written in the style (`match`,
    /// `case`, `step`, `coalesce`): a name from the data is refused, so the files a style may
    /// read are known, and checked, when it loads. Relative names resolve against the style's folder.
    func markerIcon(_ m: [String: Any], _ p: String, into marker: inout Style.Marker) throws {
        if let v = m["icon"] {
            let e = try StyleExpression.parse(v, file: file, path: "\(p).icon", expecting: .string)
            guard let outputs = e.literalOutputs else {
                throw fail("\(p).icon", "expected a file name, or an expression whose outputs are file names written in the style (match, case, step, coalesce); an icon file cannot come from the data")
            }
            for o in outputs {
                switch o {
                case .string, .null: continue
                default: throw fail("\(p).icon", "expected file names, got \(o)")
                }
            }
            marker.icon = e
            let folder = (file as NSString).deletingLastPathComponent
            marker.iconFolder = folder.isEmpty ? nil : folder
        }
        if let v = m["icon-anchor"] {
            var a = MarkerIcon.Anchor.center
            try enumValue(m, "icon-anchor", p, into: &a)
            _ = v
            marker.iconAnchor = a
        }
        try number(m, "icon-size", p, range: 0.05...16, into: &marker.iconSize)
    }
}

extension Style.Marker {
    /// The path an icon name stands for: as it is when absolute or without `iconFolder`, else
    /// inside that folder.
    public func iconPath(_ name: String) -> String {
        guard let folder = iconFolder, !name.hasPrefix("/") else { return name }
        return (folder as NSString).appendingPathComponent(name)
    }
}
