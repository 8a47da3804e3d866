import Foundation
import Testing
import TestSupport
@testable import MapRenderCore

@Suite struct StyleTests {
    func parse(_ json: String) throws -> Style { try Style.parse(data: Data(json.utf8), name: "s.json") }

    func error(_ json: String) -> String {
        do { _ = try parse(json); return "no error" } catch let e as MapRenderError {
            #expect(e.kind == .style)
            return e.message
        } catch { return "\(error)" }
    }

    @Test func shippedDefaultEqualsTheBuiltIn() throws {
        let s = try Style.load(path: TestPaths.repoFile("styles/default.json"))
        #expect(s == Style.default)
    }

    @Test func overridesOnlyWhatItNames() throws {
        let s = try parse(##"{"marker": {"shape": "circle", "fill": "#336699"}, "background": "rgba(0,0,0,0.5)"}"##)
        #expect(s.marker.shape == .circle)
        #expect(s.marker.fill == RGBA(0x33 / 255.0, 0x66 / 255.0, 0x99 / 255.0))
        #expect(s.marker.size == Style.default.marker.size)
        #expect(s.background == RGBA(0, 0, 0, 0.5))
    }

    @Test func errorsNameTheKeyAndWhatWasExpected() {
        #expect(error(##"{"marker": {"fil": "#fff"}}"##) == "s.json: marker.fil: unknown key; did you mean 'fill'?")
        #expect(error(#"{"marker": {"fill": "reddish"}}"#)
                == ##"s.json: marker.fill: expected a colour like "#rrggbb", "#rrggbbaa" or "rgba(r,g,b,a)", got "reddish""##)
        #expect(error(#"{"marker": {"size": "big"}}"#) == #"s.json: marker.size: expected a number, got "big""#)
        #expect(error(#"{"marker": {"size": true}}"#) == "s.json: marker.size: expected a number, got true")
        #expect(error(#"{"marker": {"size": 0}}"#) == "s.json: marker.size: expected a number in 1...256, got 0")
        #expect(error(#"{"marker": {"shape": "star"}}"#) == #"s.json: marker.shape: expected one of "pin", "circle", "square", got "star""#)
        #expect(error(#"{"label": []}"#) == "s.json: label: expected an object")
        #expect(error(##"{"colour": "#fff"}"##).hasPrefix("s.json: colour: unknown key; expected one of: "))
        #expect(error("{\n  \"marker\": {\"size\": 3 \"fill\": 1}\n}").hasPrefix("s.json: not valid JSON: line 2, column"))
        #expect(error("{\"label\": {\"font\": \"a1e400\"},\n \"marker\": {\"size\": 1e400}}")
                == "s.json: not valid JSON: line 2, column 21: number 1e400 is not representable in swift.")
    }

    @Test func clusterSpreadLabelAndExpressionErrors() {
        #expect(error(#"{"cluster": {"steps": []}}"#) == #"s.json: cluster.steps: expected a non-empty array of {"min", "radius", "fill"} objects"#)
        #expect(error(#"{"cluster": {"steps": [{"min": 10, "radius": 10}, {"min": 5, "radius": 12}]}}"#)
                == #"s.json: cluster.steps[1].min: steps must have ascending "min" values, got 5 after 10"#)
        #expect(error(#"{"cluster": {"steps": [{"min": 0, "radius": 500}]}}"#) == "s.json: cluster.steps[0].radius: expected a number in 1...200, got 500")
        #expect(error(#"{"cluster": {"textsize": 10}}"#) == "s.json: cluster.textsize: unknown key; did you mean 'text-size'?")
        #expect(error(##"{"spread": {"leg-colour": "#000"}}"##) == "s.json: spread.leg-colour: unknown key; did you mean 'leg-color'?")
        #expect(error(#"{"label": {"callout-max-width": 5}}"#) == "s.json: label.callout-max-width: expected a number in 20...2000, got 5")
        #expect(error(#"{"label": {"weight": "heavy"}}"#) == #"s.json: label.weight: expected one of "normal", "bold", got "heavy""#)
        #expect(error(##"{"marker": {"fill": ["matc", ["get", "type"], "a", "#f00", "#00f"]}}"##).hasPrefix("s.json: marker.fill"))
        #expect(error(##"{"marker": {"fill": ["matc", ["get", "type"], "a", "#f00", "#00f"]}}"##).contains("match"))
        #expect(error(#"{"version": 2}"#) == "s.json: version: expected 1, got 2")
    }

    @Test func dataDrivenMarkerValuesParse() throws {
        let s = try parse(##"{"marker": {"fill": ["match", ["get", "type"], "cafe", "#b5651d", "#888888"], "size": ["interpolate", ["linear"], ["get", "pop"], 0, 4, 100, 24]}}"##)
        #expect(s.marker.fillExpression?.propertyNames == ["type"])
        #expect(s.marker.sizeExpression?.propertyNames == ["pop"])
        #expect(s.marker.fillExpression?.colorCategories?.map(\.0) == ["cafe", "other"])
    }

    @Test(arguments: ["default", "dark", "print", "colorblind"])
    func everyShippedStyleLoads(name: String) throws {
        let s = try Style.load(path: TestPaths.repoFile("styles/\(name).json"))
        #expect(s.cluster.steps.count >= 3)
    }

    @Test func parsesColours() {
        #expect(RGBA.parse("#fff") == RGBA(1, 1, 1))
        #expect(RGBA.parse("#ff000080")! == RGBA(1, 0, 0, 128.0 / 255))
        #expect(RGBA.parse("rgb(255, 0, 0)") == RGBA(1, 0, 0))
        #expect(RGBA.parse("red") == RGBA(1, 0, 0))
        #expect(RGBA.parse("#ggg") == nil)
        #expect(RGBA.parse("rgb(300,0,0)") == nil)
        #expect(RGBA.parse("#ff00ff").map(\.description) == "#ff00ff")
    }
}
