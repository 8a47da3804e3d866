import Foundation
import Testing
@testable import MapRenderCore

/// Icon markers' geometry, their default anchor rule and the style keys, without pixels of a backend.
@Suite struct MarkerIconTests {
    static func icon(width: Double, height: Double, anchor: MarkerIcon.Anchor) -> MarkerIcon {
        MarkerIcon(file: "test.svg", format: .svg, bytes: Array("<svg/>".utf8), width: width, height: height, anchor: anchor, pinLike: false)
    }

    static func symbol(_ icon: MarkerIcon, size: Double? = nil) -> MarkerSymbol {
        MarkerSymbol(shape: .pin, size: size ?? icon.height, fill: .white, stroke: .white, strokeWidth: 1, opacity: 1, icon: icon)
    }

    /// The box sits so that the anchor's share of it is on (0, 0): bottom centre for `bottom`,
    /// the middle for `center`, the corner for `top-left`; its extent (fitting, collisions) is that box.
    @Test func iconBoxAroundItsAnchor() throws {
        let cases: [(MarkerIcon.Anchor, Rect)] = [
            (.bottom, Rect(x: -12, y: -32, width: 24, height: 32)),
            (.center, Rect(x: -12, y: -16, width: 24, height: 32)),
            (.topLeft, Rect(x: 0, y: 0, width: 24, height: 32)),
            (.right, Rect(x: -24, y: -16, width: 24, height: 32)),
            (.bottomRight, Rect(x: -24, y: -32, width: 24, height: 32)),
        ]
        for (anchor, expected) in cases {
            let s = Self.symbol(Self.icon(width: 24, height: 32, anchor: anchor))
            #expect(MarkerGeometry.iconRect(for: s) == expected, "\(anchor)")
            let e = s.extent
            #expect(e.left == -expected.x && e.top == -expected.y && e.right == expected.maxX && e.bottom == expected.maxY, "\(anchor)")
            #expect(MarkerGeometry.layers(for: s).isEmpty)          // no outline: the backends draw the image
            var batch = MarkerBatch()
            batch.symbols = [s]; batch.x = [100]; batch.y = [50]; batch.symbol = [0]
            #expect(batch.box(at: 0) == Rect(x: 100 + expected.x, y: 50 + expected.y, width: 24, height: 32))
            #expect(batch.labelAnchor(at: 0) == batch.box(at: 0))
        }
        // A symbol grown or shrunk (an animation's grow-in) keeps the icon's proportions.
        let half = Self.symbol(Self.icon(width: 24, height: 32, anchor: .bottom), size: 16)
        #expect(MarkerGeometry.iconRect(for: half) == Rect(x: -6, y: -16, width: 12, height: 16))
        #expect(!half.outlinesFirst)
    }

    /// Alpha of a drawn shape, 1 where `inside(x, y)` at pixel centres.
    static func alpha(_ w: Int, _ h: Int, _ inside: (Double, Double) -> Bool) -> [UInt8] {
        var a = [UInt8](repeating: 0, count: w * h)
        for y in 0..<h { for x in 0..<w where inside(Double(x) + 0.5, Double(y) + 0.5) { a[y * w + x] = 255 } }
        return a
    }

    /// The default anchor's rule: pins and downward triangles narrow to a point at the bottom
    /// centre; discs, squares, a triangle pointing up, and a drop whose tip is off centre do not.
    @Test func pinLikeRule() {
        // A teardrop: a disc of radius 10 at (12, 11) and the tangents to the tip at (12, 31).
        let pin = Self.alpha(24, 32) { x, y in
            let dx = x - 12, dy = y - 11
            if dx * dx + dy * dy <= 100 { return true }
            guard y >= 11, y <= 31 else { return false }
            return abs(dx) <= 10 * (31 - y) / 20
        }
        #expect(IconShape.isPinLike(alpha: pin, width: 24, height: 32))
        let down = Self.alpha(24, 24) { x, y in abs(x - 12) <= 12 * (24 - y) / 24 }
        #expect(IconShape.isPinLike(alpha: down, width: 24, height: 24))
        let disc = Self.alpha(24, 24) { x, y in (x - 12) * (x - 12) + (y - 12) * (y - 12) <= 121 }
        #expect(!IconShape.isPinLike(alpha: disc, width: 24, height: 24))
        let square = Self.alpha(24, 24) { x, y in x >= 2 && x <= 22 && y >= 2 && y <= 22 }
        #expect(!IconShape.isPinLike(alpha: square, width: 24, height: 24))
        let up = Self.alpha(24, 24) { x, y in abs(x - 12) <= 12 * y / 24 }
        #expect(!IconShape.isPinLike(alpha: up, width: 24, height: 24))
        let leaning = Self.alpha(24, 24) { x, y in x <= 24 - y && x >= 0 }   // tip at the bottom left
        #expect(!IconShape.isPinLike(alpha: leaning, width: 24, height: 24))
        #expect(!IconShape.isPinLike(alpha: [], width: 0, height: 0))
        #expect(!IconShape.isPinLike(alpha: [UInt8](repeating: 0, count: 64), width: 8, height: 8))
    }

    /// `marker.icon` names its files in the style: a file, or match/case/step/coalesce of files,
    /// relative to the style's folder; one from the data (`get`, `concat`) is refused naming the key.
    @Test func styleIconKeys() throws {
        let json = #"{"marker": {"icon": ["match", ["get", "kind"], "cafe", "icons/cafe.svg", ["museum", "gallery"], "/abs/museum.png", ""], "icon-anchor": "top", "icon-size": 1.5}}"#
        let s = try Style.parse(data: Data(json.utf8), name: "/styles/poi.json")
        #expect(s.marker.iconFiles == ["icons/cafe.svg", "/abs/museum.png"])
        #expect(s.marker.iconPath("icons/cafe.svg") == "/styles/icons/cafe.svg")
        #expect(s.marker.iconPath("/abs/museum.png") == "/abs/museum.png")
        #expect(s.marker.iconAnchor == .top && s.marker.iconSize == 1.5)
        let constant = try Style.parse(data: Data(#"{"marker": {"icon": "pin.svg"}}"#.utf8), name: "poi.json")
        #expect(constant.marker.iconFiles == ["pin.svg"] && constant.marker.iconPath("pin.svg") == "pin.svg")
        for (bad, says) in [
            (#"{"marker": {"icon": ["get", "icon"]}}"#, "cannot come from the data"),
            (#"{"marker": {"icon": ["concat", ["get", "kind"], ".svg"]}}"#, "cannot come from the data"),
            (#"{"marker": {"icon": "a.svg", "icon-anchor": "middle"}}"#, "icon-anchor"),
            (#"{"marker": {"icon": "a.svg", "icon-size": 0}}"#, "icon-size"),
            (#"{"marker": {"icon": 5}}"#, "marker.icon"),
        ] {
            #expect(throws: MapRenderError.self, "\(bad)") { try Style.parse(data: Data(bad.utf8), name: "s.json") }
            do { _ = try Style.parse(data: Data(bad.utf8), name: "s.json") } catch let e as MapRenderError {
                #expect(e.message.contains(says) && e.message.contains("s.json") && e.exitCode == 78, "\(e.message)")
            }
        }
    }

    /// Each point takes the icon its category names; "" draws the shape; the icon sets the size.
    @Test func stylerPicksIconsByCategory() throws {
        var style = try Style.parse(data: Data(#"{"marker": {"icon": ["match", ["get", "kind"], "cafe", "c.svg", "park", "p.png", ""]}}"#.utf8), name: "s.json")
        let cafe = Self.icon(width: 24, height: 24, anchor: .center), park = Self.icon(width: 20, height: 30, anchor: .bottom)
        style.marker.icons = ["c.svg": cafe, "p.png": park]
        var points = PointSet()
        let kind = points.properties.addColumn("kind")
        for (k, lon) in [("cafe", 0.0), ("park", 1), ("other", 2), ("cafe", 3)] {
            points.lon.append(lon); points.lat.append(0); points.properties.appendRow([(kind, .string(k))])
        }
        points.ids = IDColumn((0..<4).map { PropertyValue.number(Double($0)) })
        let styles = MarkerStyler.resolve(points: points, style: style)
        let picked = (0..<4).map { styles.symbols[Int(styles.index[$0])] }
        #expect(picked.map { $0.icon } == [cafe, park, nil, cafe])
        #expect(picked[0].size == 24 && picked[1].size == 30 && picked[2].size == style.marker.size)
        #expect(styles.issues.isEmpty)
        // The extent for fitting covers the tallest icon's box above its anchor.
        #expect(styles.extent.top >= 30)
        // An icon the style names but nobody loaded: said once, the shape drawn.
        style.marker.icons = [:]
        let unloaded = MarkerStyler.resolve(points: points, style: style)
        #expect(unloaded.symbols.allSatisfy { $0.icon == nil })
        #expect(unloaded.issues.count == 1 && unloaded.issues[0].contains("marker.icon"))
    }
}
