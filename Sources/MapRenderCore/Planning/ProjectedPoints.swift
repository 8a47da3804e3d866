import Foundation

/// Points projected to world units, with the data needed to style and label them.
public struct ProjectedPoints: Sendable {
    public var x: [Double]
    public var y: [Double]
    public var points: PointSet
    public var styles: MarkerStyles

    public init(points: PointSet, style: Style, opacity: [Double]? = nil, scale: [Double]? = nil) {
        let n = points.count
        // Each point on its own: the threads take parts of a large set (`inParts`).
        self.x = points.lon.withUnsafeBufferPointer { lon in
            [Double](unsafeUninitializedCapacity: n) { x, count in
                inParts(n) { range in for i in range { x[i] = WebMercator.x(lon: lon[i]) } }
                count = n
            }
        }
        self.y = points.lat.withUnsafeBufferPointer { lat in
            [Double](unsafeUninitializedCapacity: n) { y, count in
                inParts(n) { range in for i in range { y[i] = WebMercator.y(lat: lat[i]) } }
                count = n
            }
        }
        self.points = points
        self.styles = MarkerStyler.resolve(points: points, style: style, opacity: opacity, scale: scale)
    }
}
