import Foundation

/// A resolved style: typed values only, checked when loaded (never string-keyed lookups while drawing).
///
/// Loaded from JSON (`styles/*.json`, `--style FILE`); see `Style+JSON.swift` and the README for the format.
public struct Style: Sendable, Equatable {
    /// The marker shapes a style can choose (Scene's `MarkerShape`: what the backends draw).
    public typealias MarkerShape = MapRenderCore.MarkerShape

    public struct Marker: Sendable, Equatable {
        public var shape: MarkerShape = .pin
        /// Pin height, circle or square diameter, in CSS px.
        public var size: Double = 28
        public var fill = RGBA.parse("#d63e2a")!
        public var stroke = RGBA.white
        public var strokeWidth: Double = 1.5
        public var opacity: Double = 1
        /// Data-driven fill (a MapLibre expression, e.g. `["match", ["get", "type"], "a", "#f00", "#00f"]`).
        public var fillExpression: StyleExpression?
        /// Data-driven size (e.g. `["interpolate", ["linear"], ["get", "population"], 0, 6, 1e7, 24]`).
        public var sizeExpression: StyleExpression?
        /// `icon`: the PNG or SVG file drawn instead of the shape, a file name or an expression
        /// giving one per point (`["match", ["get", "kind"], "cafe", "icons/cafe.svg", "icons/pin.png"]`;
        /// every file written in the style, see `StyleExpression.literalOutputs`); `""` or null
        /// draws the shape. Relative names resolve against `iconFolder`.
        public var icon: StyleExpression?
        /// The folder relative icon files are in: the style file's; nil: the working directory.
        public var iconFolder: String?
        /// `icon-anchor`; nil: bottom for a pin-like icon, centre otherwise (`MarkerIcon.pinLike`).
        public var iconAnchor: MarkerIcon.Anchor?
        /// `icon-size`: a factor on each icon's own size (SVG width and height, PNG pixels as CSS px).
        public var iconSize: Double = 1
        /// The icons `icon` names, read and checked (`IconLoader.load(style:)`), by the name the
        /// expression gives.
        public var icons: [String: MarkerIcon] = [:]

        /// The file names `icon` may give (empty names left out), in the order written.
        public var iconFiles: [String] {
            (icon?.literalOutputs ?? []).compactMap { v in
                if case .string(let s) = v, !s.isEmpty { return s } else { return nil }
            }
        }
    }

    public struct Basemap: Sendable, Equatable {
        public var fill = RGBA.parse("#f4f1ea")!
        /// Data-driven fill of the basemap's polygons (a choropleth of `--basemap` features).
        public var fillExpression: StyleExpression?
        public var stroke = RGBA.parse("#a8a294")!
        public var strokeWidth: Double = 0.6
        public var lineColor = RGBA.parse("#8f8a80")!
        public var lineWidth: Double = 0.8
    }

    public struct Label: Sendable, Equatable {
        public var font = "DejaVu Sans"
        public var size: Double = 12
        public var weight: FontWeight = .normal
        public var color = RGBA.parse("#222222")!
        public var halo = RGBA.parse("#ffffffe6")!
        public var haloWidth: Double = 2
        /// Gap between the marker and its label, CSS px.
        public var offset: Double = 3
        /// The least space between two labels' boxes (their halos included; on dense dot maps, half
        /// their halos), CSS px, as MapLibre's `text-padding` keeps labels apart (MapLibre pads each
        /// box by it, so its gap is twice the value): neighbours never read as one name.
        public var textPadding: Double = 2
        /// Callouts (`--label-style callout`): box fill, outline and the width at which text wraps.
        public var calloutFill = RGBA.parse("#ffffff")!
        public var calloutStroke = RGBA.parse("#555555")!
        public var calloutMaxWidth: Double = 160
    }

    public struct Attribution: Sendable, Equatable {
        public var font = "DejaVu Sans"
        public var size: Double = 10
        public var color = RGBA.parse("#333333")!
        public var background = RGBA.parse("#ffffffbf")!
    }

    /// One step of the cluster bubble scale: from `min` points up, this radius and fill.
    public struct BubbleStep: Sendable, Equatable {
        public var min: Int
        public var radius: Double
        public var fill: RGBA
        public init(min: Int, radius: Double, fill: RGBA) { self.min = min; self.radius = radius; self.fill = fill }
    }

    public struct Cluster: Sendable, Equatable {
        /// Ascending by `min`; the first applies to every count below the second's `min`.
        public var steps: [BubbleStep] = [
            BubbleStep(min: 0, radius: 14, fill: RGBA.parse("#51bbd6")!),
            BubbleStep(min: 10, radius: 17, fill: RGBA.parse("#51bbd6")!),
            BubbleStep(min: 100, radius: 21, fill: RGBA.parse("#f1c40f")!),
            BubbleStep(min: 750, radius: 26, fill: RGBA.parse("#f28cb1")!),
            BubbleStep(min: 10000, radius: 32, fill: RGBA.parse("#f28cb1")!),
        ]
        public var stroke = RGBA.parse("#ffffffcc")!
        public var strokeWidth: Double = 3
        public var opacity: Double = 0.9
        public var font = "DejaVu Sans"
        public var textSize: Double = 12
        public var textColor = RGBA.parse("#1b1b1b")!
        /// The property shown in the bubble instead of the abbreviated count (e.g. "sum_population").
        public var textField: String?

        /// The step for a cluster of `count` points.
        public func step(for count: Int) -> BubbleStep {
            var chosen = steps[0]
            for s in steps where count >= s.min { chosen = s }
            return chosen
        }
    }

    /// Leader lines and the true-position dot of spread (colocated) pins.
    public struct Spread: Sendable, Equatable {
        public var legColor = RGBA.parse("#333333b3")!
        public var legWidth: Double = 1
        public var dotRadius: Double = 2.5
        public var dotColor = RGBA.parse("#333333")!
    }

    public var cluster = Cluster()
    public var spread = Spread()
    public var background = RGBA.parse("#bcd6e6")!
    /// Painted beyond the world's edges (beyond ±85.05°, and beyond one world's width): a neutral
    /// grey, neither sea nor land (`Scene.letterbox`).
    public var letterbox = RGBA(0.86, 0.86, 0.86)
    public var basemap = Basemap()
    public var marker = Marker()
    public var label = Label()
    public var attribution = Attribution()
    /// The style's own `layers` (fill and line layers of the data or the basemap, in draw
    /// order); nil: `defaultShapeLayers`. See `shapeLayers`.
    public var layers: [StyleLayer]?

    public init() {}

    /// The built-in default, also shipped as `styles/default.json`.
    public static let `default` = Style()
}

extension MarkerShape {
    /// The size a shape gets when chosen on the command line or in a manifest without a size, CSS px.
    public var defaultSize: Double {
        switch self {
        case .pin: return 28
        case .circle: return 12
        case .square: return 11
        }
    }
}
