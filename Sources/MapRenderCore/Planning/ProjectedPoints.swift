import Foundation

/// Points projected to world units, with the data needed to style and label them.
public struct ProjectedPoints: Sendable {
    public var x: [Double]
    public var y: [Double]
    public var points: PointSet
    public var styles: MarkerStyles

    public init(points: PointSet, style: Style, opacity: [Double]? = nil, scale: [Double]? = nil) {
        var xs = [Double](), ys = [Double]()
        xs.reserveCapacity(points.count); ys.reserveCapacity(points.count)
        for i in 0..<points.count {
            xs.append(WebMercator.x(lon: points.lon[i]))
            ys.append(WebMercator.y(lat: points.lat[i]))
        }
        self.x = xs; self.y = ys; self.points = points
        self.styles = MarkerStyler.resolve(points: points, style: style, opacity: opacity, scale: scale)
    }
}
