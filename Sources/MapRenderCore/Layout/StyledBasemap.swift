import Foundation

/// A MapLibre style's layers (`MapLibreStyle`) over their decoded sources, as map layers: each
/// fill and line layer becomes a `MapLayer.shapes` over its source layer's polygons or lines, so
/// it goes through ShapeLayout and the one scene like every basemap and data layer.
public enum StyledBasemap {
    /// The decoded data of one source: vector tiles by source layer, or GeoJSON shapes.
    public enum SourceData: Sendable {
        case vector([String: VectorLayerData])
        case shapes(ShapeSet)
        case raster([RasterMark])
    }

    /// The layers to draw at `zoom`, in the style's order, and the background colour (the last
    /// visible background layer's), if any.
    public static func layers(style: MapLibreStyle, sources: [String: SourceData], zoom: Double) -> (layers: [MapLayer], background: RGBA?) {
        var out: [MapLayer] = []
        var background: RGBA?
        for l in style.layers where l.style.shows(atZoom: zoom) {
            switch l.type {
            case "background":
                if var c = l.style.fillColor.constantValue?.colorValue {
                    c.a *= min(max(l.style.fillOpacity.constantValue?.numberValue ?? 1, 0), 1)
                    background = c
                }
            case "fill", "line":
                guard let s = l.source, let data = sources[s] else { continue }
                let polygons: ShapeSet, lines: ShapeSet
                switch data {
                case .vector(let byLayer):
                    guard let name = l.sourceLayer, let d = byLayer[name] else { continue }
                    polygons = d.polygons; lines = d.lines
                case .shapes(let set):
                    polygons = set; lines = set
                case .raster:
                    continue
                }
                if l.type == "line" {
                    if !lines.isEmpty { out.append(.shapes(l.style, lines)) }
                    continue
                }
                var fill = l.style
                fill.fillOutlineColor = nil
                if !polygons.isEmpty { out.append(.shapes(fill, polygons)) }
                if let outline = l.style.fillOutlineColor {
                    // MapLibre's outline: 1 px, the fill's opacity, along the rings inside each tile.
                    var line = StyleLayer(id: l.id + " (outline)", type: .line, source: .basemap)
                    line.fromBasemapStyle = true
                    line.lineColor = outline
                    line.lineOpacity = l.style.fillOpacity
                    line.lineWidth = StyleExpression(constant: .number(1))
                    line.lineCap = .butt; line.lineJoin = .miter
                    if case .vector = data {
                        line.filter = StyleExpression.all(l.style.filter, StyleExpression.geometryType("Polygon"))
                        if !lines.isEmpty { out.append(.shapes(line, lines)) }
                    } else {
                        line.filter = l.style.filter
                        if !polygons.isEmpty { out.append(.shapes(line, polygons)) }
                    }
                }
            case "raster":
                guard let s = l.source, case .raster(let marks)? = sources[s], !marks.isEmpty else { continue }
                out.append(.raster(marks))
            default:
                continue
            }
        }
        return (out, background)
    }
}
