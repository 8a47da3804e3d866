/// The one place a map's view is chosen: fit to the data, `--center/--zoom`, or `--bbox` → a Viewport.
public enum ViewChoice {
    /// The view for `options.view`.
    /// - Parameter extraPadding: room added to the padding on each side when fitting (the refit
    ///   for spread rings and bubbles that reach beyond a marker), CSS px.
    public static func viewport(_ options: PlanOptions, data: ProjectedPoints,
                                extraPadding: EdgeInsets = .zero) -> Viewport {
        viewport(options, data: data, box: options.view.fitsData ? dataBox(data, options) : nil,
                 extraPadding: extraPadding)
    }

    /// The box a fitted view shows: the points' and the lines' and polygons' (`options.shapes`).
    public static func dataBox(_ data: ProjectedPoints, _ options: PlanOptions) -> ViewFitter.DataBox? {
        options.shapes.isEmpty ? ViewFitter.DataBox(xs: data.x, ys: data.y)
            : ViewFitter.DataBox(xs: data.x + options.shapes.xs, ys: data.y + options.shapes.ys)
    }

    /// `viewport(_:data:extraPadding:)` with the points' box already made (for the views that fit
    /// the data; nil when there are no points), as a refit has it.
    public static func viewport(_ options: PlanOptions, data: ProjectedPoints, box: ViewFitter.DataBox?,
                                extraPadding: EdgeInsets = .zero) -> Viewport {
        let v = unsnapped(options, data: data, box: box, extraPadding: extraPadding)
        guard let scale = options.integerZoomScale else { return v }
        return v.snappedToIntegerZoom(scale: scale)
    }

    private static func unsnapped(_ options: PlanOptions, data: ProjectedPoints, box: ViewFitter.DataBox?,
                                  extraPadding: EdgeInsets) -> Viewport {
        let w = options.width, h = options.height
        switch options.view {
        case .center(let lat, let lon, let zoom):
            return ViewFitter.center(lat: lat, lon: lon, zoom: zoom, width: w, height: h)
        case .bbox(let b):
            return ViewFitter.fit(bounds: b, width: w, height: h)
        case .fitAround(let lat, let lon):
            return ViewFitter.fit(box: box, around: (WebMercator.x(lon: lon), WebMercator.y(lat: lat)),
                                  width: w, height: h, extent: data.styles.extent,
                                  padding: EdgeInsets(all: options.padding) + extraPadding, maxZoom: options.maxZoom)
        case .fit(let zoom):
            var v = ViewFitter.fit(box: box, width: w, height: h, extent: data.styles.extent,
                                   padding: EdgeInsets(all: options.padding) + extraPadding, maxZoom: options.maxZoom)
            if let z = zoom { v.zoom = z }
            return v
        }
    }
}
