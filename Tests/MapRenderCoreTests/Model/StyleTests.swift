import Foundation
import Testing
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
