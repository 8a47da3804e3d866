import Foundation

/// A resolved style: typed values only, checked when loaded (never string-keyed lookups while drawing).
///
/// Loaded from JSON (`styles/*.json`, `--style FILE`); see `Style+JSON.swift` and the README for the format.
public struct Style: Sendable, Equatable {
    public enum MarkerShape: String, Sendable, CaseIterable {
        case pin, circle, square

        /// The size a shape gets when chosen on the command line without a size, CSS px.
        public var defaultSize: Double {
            switch self {
            case .pin: return 28
            case .circle: return 12
            case .square: return 11
            }
        }
    }

    public struct Marker: Sendable, Equatable {
        public var shape: MarkerShape = .pin
        /// Pin height, circle or square diameter, in CSS px.
        public var size: Double = 28
        public var fill = RGBA.parse("#d63e2a")!
        public var stroke = RGBA.white
        public var strokeWidth: Double = 1.5
        public var opacity: Double = 1
    }

    public struct Basemap: Sendable, Equatable {
        public var fill = RGBA.parse("#f4f1ea")!
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
    }

    public struct Attribution: Sendable, Equatable {
        public var font = "DejaVu Sans"
        public var size: Double = 10
        public var color = RGBA.parse("#333333")!
        public var background = RGBA.parse("#ffffffbf")!
    }

    public var background = RGBA.parse("#bcd6e6")!
    public var basemap = Basemap()
    public var marker = Marker()
    public var label = Label()
    public var attribution = Attribution()

    public init() {}

    /// The built-in default, also shipped as `styles/default.json`.
    public static let `default` = Style()
}

public enum FontWeight: String, Sendable, CaseIterable { case normal, bold }

/// A font as layout and the backend see it.
public struct FontSpec: Hashable, Sendable {
    public var family: String
    /// CSS px (already multiplied by `--text-scale`).
    public var size: Double
    public var weight: FontWeight
    public init(family: String, size: Double, weight: FontWeight) {
        self.family = family; self.size = size; self.weight = weight
    }
}
