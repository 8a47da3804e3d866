import Foundation
import Testing
@testable import MapRenderCore

@Suite struct ExpressionTests {
    func parse(_ json: String, _ type: ExpressionType = .any) throws -> StyleExpression {
        try StyleExpression.parse(jsonText: json, file: "s.json", path: "marker.fill", expecting: type)
    }

    func eval(_ json: String, _ props: [String: PropertyValue] = [:], zoom: Double = 0,
              as type: ExpressionType = .any) throws -> ExpressionValue {
        try parse(json, type).evaluate(FeatureContext(zoom: zoom, properties: props))
    }

    func error(_ json: String, _ type: ExpressionType = .any) -> String {
        do { _ = try parse(json, type); return "no error" } catch let e as MapRenderError {
            #expect(e.kind == .style)
            return e.message
        } catch { return "\(error)" }
    }

    // MARK: - Values and lookups

    @Test func literalsAndLookups() throws {
        #expect(try eval("3") == .number(3))
        #expect(try eval("true") == .bool(true))
        #expect(try eval("null") == .null)
        #expect(try eval(##""#ff0000""##) == .string("#ff0000"))  // stays a string unless asked for a colour
        #expect(try eval(##""#ff0000""##, as: .color) == .color(RGBA(1, 0, 0)))
        #expect(try eval(#"["literal", "x"]"#) == .string("x"))
        let p: [String: PropertyValue] = ["name": .string("Lyon"), "n": .number(2), "nil": .null, "tags": .json("[1]")]
        #expect(try eval(#"["get", "name"]"#, p) == .string("Lyon"))
        #expect(try eval(#"["get", "absent"]"#, p) == .null)
        #expect(try eval(#"["get", "tags"]"#, p) == .null)
        #expect(try eval(#"["has", "nil"]"#, p) == .bool(true))
        #expect(try eval(#"["has", "absent"]"#, p) == .bool(false))
        #expect(try eval(#"["get", "point_count"]"#, ["point_count": .number(12)]) == .number(12))
    }

    @Test func valueHelpers() {
        #expect(ExpressionValue.number(12).stringValue == "12")
        #expect(ExpressionValue.number(1.5).stringValue == "1.5")
        #expect(ExpressionValue.null.stringValue == nil)
        #expect(ExpressionValue.string("12").numberValue == nil)
        #expect(ExpressionValue.string("red").colorValue == RGBA(1, 0, 0))
        #expect(ExpressionValue.number(1).colorValue == nil)
        #expect(ExpressionValue.color(RGBA(1, 0, 0, 0.5)).stringValue == "rgba(255,0,0,0.5)")
        #expect(ExpressionValue.bool(true).truthy)
        #expect(!ExpressionValue.number(1).truthy)
        #expect(!ExpressionValue.null.truthy)
    }

    @Test func conversionsAndAssertions() throws {
        let p: [String: PropertyValue] = ["s": .string(" 42 "), "word": .string("abc"), "b": .bool(true)]
        #expect(try eval(#"["to-number", ["get", "s"]]"#, p) == .number(42))
        #expect(try eval(#"["to-number", ["get", "word"], ["get", "b"]]"#, p) == .number(1))
        #expect(try eval(#"["to-number", ["get", "word"]]"#, p) == .null)
        #expect(try eval(#"["to-number", ["get", "absent"]]"#, p) == .number(0))
        #expect(try eval(#"["to-number", ""]"#) == .number(0))
        #expect(try eval(#"["to-string", 3]"#) == .string("3"))
        #expect(try eval(#"["to-string", 0.25]"#) == .string("0.25"))
        #expect(try eval(#"["to-string", ["get", "absent"]]"#) == .string(""))
        #expect(try eval(#"["to-string", ["to-color", "blue"]]"#) == .string("rgba(0,0,255,1)"))
        #expect(try eval(#"["to-boolean", ""]"#) == .bool(false))
        #expect(try eval(#"["to-boolean", 0]"#) == .bool(false))
        #expect(try eval(#"["to-boolean", "no"]"#) == .bool(true))
        #expect(try eval(##"["to-color", "nope", "#00f"]"##) == .color(RGBA(0, 0, 1)))
        #expect(try eval(#"["number", ["get", "s"], ["get", "word"], 7]"#, p) == .number(7))
        #expect(try eval(#"["string", ["get", "absent"], ["get", "word"]]"#, p) == .string("abc"))
        #expect(try eval(#"["number", ["get", "s"]]"#, p) == .null)
    }

    // MARK: - Branching

    @Test func matchWithLabelArrays() throws {
        let e = try parse(##"["match", ["get", "kind"], ["cafe", "bar"], "#ff0000", "museum", "#0000ff", "#808080"]"##, .color)
        func at(_ kind: PropertyValue) -> ExpressionValue { e.evaluate(FeatureContext(properties: ["kind": kind])) }
        #expect(at(.string("cafe")) == .color(RGBA(1, 0, 0)))
        #expect(at(.string("bar")) == .color(RGBA(1, 0, 0)))
        #expect(at(.string("museum")) == .color(RGBA(0, 0, 1)))
        #expect(at(.string("shop")) == .color(RGBA.parse("#808080")!))
        #expect(at(.missing) == .color(RGBA.parse("#808080")!))

        let n = try parse(#"["match", ["get", "n"], [1, 2], "few", 3, "three", "many"]"#)
        #expect(n.evaluate(FeatureContext(properties: ["n": .number(2)])) == .string("few"))
        #expect(n.evaluate(FeatureContext(properties: ["n": .number(3)])) == .string("three"))
        #expect(n.evaluate(FeatureContext(properties: ["n": .string("2")])) == .string("many"))  // types differ
    }

    @Test func stepBoundariesExactlyAtStops() throws {
        let e = try parse(#"["step", ["get", "v"], "small", 10, "medium", 100, "large"]"#)
        func at(_ v: Double) -> ExpressionValue { e.evaluate(FeatureContext(properties: ["v": .number(v)])) }
        #expect(at(-5) == .string("small"))
        #expect(at(9.999) == .string("small"))
        #expect(at(10) == .string("medium"))
        #expect(at(99) == .string("medium"))
        #expect(at(100) == .string("large"))
        #expect(at(1e9) == .string("large"))
        #expect(e.evaluate(FeatureContext(properties: ["v": .string("10")])) == .null)
    }

    @Test func interpolateBetweenAndOutsideStops() throws {
        let e = try parse(#"["interpolate", ["linear"], ["get", "v"], 0, 10, 10, 20, 20, 40]"#, .number)
        func at(_ v: Double) -> Double? { e.evaluate(FeatureContext(properties: ["v": .number(v)])).numberValue }
        #expect(at(-3) == 10)
        #expect(at(0) == 10)
        #expect(at(5) == 15)
        #expect(at(10) == 20)
        #expect(at(15) == 30)
        #expect(at(20) == 40)
        #expect(at(99) == 40)
        #expect(e.evaluate(FeatureContext()) == .null)

        let x = try parse(#"["interpolate", ["exponential", 2], ["zoom"], 0, 0, 2, 3]"#)
        #expect(x.evaluate(FeatureContext(zoom: 1)) == .number(1))  // (2^1 - 1) / (2^2 - 1) * 3
        let one = try parse(#"["interpolate", ["linear"], ["zoom"], 5, 50]"#)
        #expect(one.evaluate(FeatureContext(zoom: 1)) == .number(50))
    }

    @Test func colourInterpolationMidpoint() throws {
        let e = try parse(##"["interpolate", ["linear"], ["get", "v"], 0, "#000000", 10, "#ffffff"]"##)
        #expect(e.evaluate(FeatureContext(properties: ["v": .number(5)])) == .color(RGBA(0.5, 0.5, 0.5)))
        let rb = try parse(#"["interpolate", ["linear"], ["get", "v"], 0, "red", 1, "rgba(0,0,255,0)"]"#, .color)
        #expect(rb.evaluate(FeatureContext(properties: ["v": .number(0.5)])) == .color(RGBA(0.5, 0, 0.5, 0.5)))
        #expect(rb.evaluate(FeatureContext(properties: ["v": .number(-1)])) == .color(RGBA(1, 0, 0)))
    }

    @Test func caseAndCoalesce() throws {
        let e = try parse(#"["case", [">", ["get", "v"], 100], "big", [">", ["get", "v"], 10], "mid", "small"]"#)
        #expect(e.evaluate(FeatureContext(properties: ["v": .number(500)])) == .string("big"))
        #expect(e.evaluate(FeatureContext(properties: ["v": .number(50)])) == .string("mid"))
        #expect(e.evaluate(FeatureContext(properties: ["v": .number(5)])) == .string("small"))
        // A condition that is not a boolean is an evaluation error, as in MapLibre.
        #expect(try eval(#"["case", ["get", "absent"], 1, 2]"#) == .null)
        #expect(try eval(#"["coalesce", ["get", "a"], ["get", "b"], "none"]"#, ["b": .string("B")]) == .string("B"))
        #expect(try eval(#"["coalesce", ["get", "a"], "none"]"#) == .string("none"))
    }

    // MARK: - Decisions

    @Test func comparisonsAcrossTypes() throws {
        #expect(try eval(#"["==", 1, "1"]"#) == .bool(false))
        #expect(try eval(#"["!=", 1, "1"]"#) == .bool(true))
        #expect(try eval(#"["==", ["get", "absent"], null]"#) == .bool(true))
        #expect(try eval(#"["==", 2, 2.0]"#) == .bool(true))
        #expect(try eval(#"["<", 1, "2"]"#) == .null)  // an error: filters treat it as false
        #expect(try eval(#"["<", "a", "b"]"#) == .bool(true))
        #expect(try eval(#"["<", "B", "a"]"#) == .bool(true))  // code units, as JavaScript
        #expect(try eval(#"["<=", 2, 2]"#) == .bool(true))
        #expect(try eval(#"[">", 2, 2]"#) == .bool(false))
        #expect(try eval(#"[">=", 3, 2]"#) == .bool(true))
        #expect(try eval(#"["!", ["==", 1, 1]]"#) == .bool(false))
        #expect(try eval(#"["!", ["get", "absent"]]"#) == .null)
    }

    @Test func allAndAnyShortCircuit() throws {
        let props: [String: PropertyValue] = ["a": .number(1), "b": .string("x")]
        // The second argument would be an error (string < number); it is never reached.
        #expect(try eval(#"["all", ["==", ["get", "a"], 2], ["<", ["get", "b"], 2]]"#, props) == .bool(false))
        #expect(try eval(#"["any", ["==", ["get", "a"], 1], ["<", ["get", "b"], 2]]"#, props) == .bool(true))
        // ... and is an error when it is reached.
        #expect(try eval(#"["all", ["==", ["get", "a"], 1], ["<", ["get", "b"], 2]]"#, props) == .null)
        #expect(try eval(#"["all"]"#) == .bool(true))
        #expect(try eval(#"["any"]"#) == .bool(false))
    }

    @Test func inStringsAndLists() throws {
        let p: [String: PropertyValue] = ["name": .string("Saint-Malo"), "c": .string("FR"), "n": .number(3)]
        #expect(try eval(#"["in", "Malo", ["get", "name"]]"#, p) == .bool(true))
        #expect(try eval(#"["in", "malo", ["get", "name"]]"#, p) == .bool(false))
        #expect(try eval(#"["in", ["get", "c"], ["literal", ["FR", "DE", "IT"]]]"#, p) == .bool(true))
        #expect(try eval(#"["in", ["get", "n"], ["literal", [1, 2, 3]]]"#, p) == .bool(true))
        #expect(try eval(#"["in", ["get", "n"], ["literal", ["3"]]]"#, p) == .bool(false))
        #expect(try eval(#"["in", "x", ["get", "absent"]]"#, p) == .bool(false))
    }

    // MARK: - Numbers and text

    @Test func arithmeticAndZoom() throws {
        let p: [String: PropertyValue] = ["v": .number(10), "s": .string("10")]
        #expect(try eval(#"["+", ["get", "v"], 1, 2]"#, p) == .number(13))
        #expect(try eval(#"["-", ["get", "v"], 4]"#, p) == .number(6))
        #expect(try eval(#"["-", ["get", "v"]]"#, p) == .number(-10))
        #expect(try eval(#"["*", ["get", "v"], 2.5]"#, p) == .number(25))
        #expect(try eval(#"["/", ["get", "v"], 4]"#, p) == .number(2.5))
        #expect(try eval(#"["%", ["get", "v"], 3]"#, p) == .number(1))
        #expect(try eval(#"["%", -7, 3]"#) == .number(-1))
        #expect(try eval(#"["^", ["get", "v"], 2]"#, p) == .number(100))
        #expect(try eval(#"["sqrt", ["get", "v"]]"#, p).numberValue! == 10.0.squareRoot())
        #expect(try eval(#"["round", -1.5]"#) == .number(-2))
        #expect(try eval(#"["max", 1, 5, 3]"#) == .number(5))
        #expect(try eval(#"["+", ["get", "s"], 1]"#, p) == .null)  // no implicit coercion
        #expect(try eval(#"["*", ["zoom"], 2]"#, zoom: 3.5) == .number(7))
    }

    @Test func textOperators() throws {
        let p: [String: PropertyValue] = ["name": .string("Lyon"), "pop": .number(522_000)]
        #expect(try eval(#"["concat", ["get", "name"], " (", ["get", "pop"], ")"]"#, p) == .string("Lyon (522000)"))
        #expect(try eval(#"["concat", ["get", "absent"], "!"]"#, p) == .string("!"))
        #expect(try eval(#"["upcase", ["get", "name"]]"#, p) == .string("LYON"))
        #expect(try eval(#"["downcase", ["get", "name"]]"#, p) == .string("lyon"))
        #expect(try eval(#"["upcase", ["get", "pop"]]"#, p) == .null)
        #expect(try eval(#"["length", "abc"]"#) == .number(3))
    }

    // MARK: - Constants

    @Test func constantsAreFoldedAndDependenciesKnown() throws {
        let c = try parse(#"["concat", "a", ["to-string", ["+", 1, 2]]]"#)
        #expect(c.isConstant && c.constantValue == .string("a3"))
        let z = try parse(#"["interpolate", ["linear"], ["zoom"], 0, 1, 10, 5]"#)
        #expect(z.isFeatureConstant && !z.isZoomConstant && !z.isConstant && z.constantValue == nil)
        let d = try parse(#"["case", ["has", "b"], ["get", "a"], ["get", "b"]]"#)
        #expect(!d.isFeatureConstant && d.isZoomConstant && d.propertyNames == ["a", "b"])
        #expect(try parse(#"["match", 2, 2, "red", "blue"]"#, .color).constantValue == .color(RGBA(1, 0, 0)))
        #expect(StyleExpression(constant: .number(4)).isConstant)
    }

    // MARK: - Errors

    @Test func parseErrorsNameThePathAndTheProblem() {
        #expect(error(#"["interpolat", ["linear"], ["zoom"], 0, 1]"#)
                == #"s.json: marker.fill[0]: unknown operator "interpolat"; did you mean "interpolate"?"#)
        #expect(error(#"["case", true, ["gett", "x"], 0]"#)
                == #"s.json: marker.fill[2][0]: unknown operator "gett"; did you mean "get"?"#)
        #expect(error(#"["frobnicate", 1]"#) == #"s.json: marker.fill[0]: unknown operator "frobnicate""#)
        #expect(error(#"["get", "a", "b"]"#) == #"s.json: marker.fill: "get" expects 1 argument, got 2"#)
        #expect(error(#"["-", 1, 2, 3]"#) == #"s.json: marker.fill: "-" expects 1 or 2 arguments, got 3"#)
        #expect(error(#"["+", 1]"#) == #"s.json: marker.fill: "+" expects at least 2 arguments, got 1"#)
        #expect(error(#"["zoom", 1]"#) == #"s.json: marker.fill: "zoom" expects 0 arguments, got 1"#)
        #expect(error(#"["get", 3]"#) == #"s.json: marker.fill[1]: expected a property name string, got 3"#)
        #expect(error(#"["case", ["interpolate", ["linear"], ["zoom"], 0, 1, 2], 1, 0]"#)
                == #"s.json: marker.fill[1]: "interpolate" needs an even number of stop arguments"#)
        #expect(error(#"["interpolate", ["linear"], ["zoom"], 0, 1, 5, 2, 5, 3]"#)
                == #"s.json: marker.fill[7]: "interpolate" stops must be in strictly ascending order, but 5 follows 5"#)
        #expect(error(#"["step", ["zoom"], 0, 10, 1, 2, 3]"#)
                == #"s.json: marker.fill[5]: "step" stops must be in strictly ascending order, but 2 follows 10"#)
        #expect(error(#"["step", ["zoom"], 0, ["get", "x"], 1]"#)
                == #"s.json: marker.fill[3]: a "step" stop must be a literal number, got an array"#)
        #expect(error(#"["interpolate", ["cubic-bezier", 0, 0, 1, 1], ["zoom"], 0, 1]"#)
                == #"s.json: marker.fill[1][0]: unsupported interpolation "cubic-bezier"; expected ["linear"] or ["exponential", base]"#)
        #expect(error(#"["match", ["get", "k"], "a", 1, 2]"#) == "no error")
        #expect(error(#"["match", ["get", "k"], "a", 1]"#)
                == #"s.json: marker.fill: "match" needs an input, label/output pairs and a fallback"#)
        #expect(error(#"["match", ["get", "k"], ["a", "b"], 1, "a", 2, 0]"#)
                == #"s.json: marker.fill[4]: duplicate "match" label "a""#)
        #expect(error(#"["match", ["get", "k"], "a", 1, 2, 2, 0]"#)
                == #"s.json: marker.fill[4]: "match" labels must be all strings or all numbers, got 2 after strings"#)
        #expect(error(#"["case", true, 1]"#) == #"s.json: marker.fill: "case" needs condition/output pairs and a fallback"#)
        #expect(error(#"["match", ["get", "k"], "a", "reddish", "blue"]"#, .color)
                == ##"s.json: marker.fill[3]: expected a colour like "#rrggbb", "#rrggbbaa" or "rgba(r,g,b,a)", got "reddish""##)
        #expect(error(#"["interpolate", ["linear"], ["zoom"], 0, 1, 10, "big"]"#)
                == ##"s.json: marker.fill[4]: expected a colour like "#rrggbb", "#rrggbbaa" or "rgba(r,g,b,a)", got 1"##)
        #expect(error(#"["step", ["zoom"], 1, 5, true]"#, .number) == "s.json: marker.fill[4]: expected a number, got true")
        #expect(error(#"["all", true, "yes"]"#) == #"s.json: marker.fill[2]: expected a boolean, got "yes""#)
        #expect(error(#"["in", ["get", "c"], ["FR", "DE"]]"#)
                == #"s.json: marker.fill[2]: a list of values is written ["literal", [...]]"#)
        #expect(error("[]") == #"s.json: marker.fill: empty array; an expression starts with an operator, a literal array is written ["literal", [...]]"#)
        #expect(error(#"{"a": 1}"#) == "s.json: marker.fill: objects are not supported in expressions")
        #expect(error(#"["get", "a""#).hasPrefix("s.json: marker.fill: not valid JSON: "))
    }

    @Test func parsesSwiftValuesAsWellAsJSONSerializationOutput() throws {
        let e = try StyleExpression.parse(["==", ["get", "ok"], true] as [Any], file: "f", path: "filter")
        #expect(e.evaluate(FeatureContext(properties: ["ok": .bool(true)])) == .bool(true))
        #expect(e.evaluate(FeatureContext(properties: ["ok": .number(1)])) == .bool(false))
        let n = try StyleExpression.parse(["+", 1, 2.5] as [Any], file: "f", path: "p")
        #expect(n.constantValue == .number(3.5))
    }

    // MARK: - Binding to a table

    func countries() -> PropertyTable {
        var t = PropertyTable()
        let country = t.addColumn("country"), pop = t.addColumn("population")
        t.appendRow([(country, .string("FR")), (pop, .number(2_100_000))])
        t.appendRow([(country, .string("DE")), (pop, .number(3_600_000))])
        t.appendRow([(pop, .number(50))])
        t.appendRow([(country, .string("FR")), (pop, .string("unknown"))])
        t.appendRow([(country, .null)])
        return t
    }

    @Test func countryFilterOnRows() throws {
        let table = countries()
        let filter = try parse(#"["==", ["get", "country"], "FR"]"#, .boolean).bind(to: table)
        let kept = (0..<table.rowCount).filter { filter.evaluate(row: $0).truthy }
        #expect(kept == [0, 3])

        let notFR = try parse(#"["!=", ["get", "country"], "FR"]"#, .boolean).bind(to: table)
        #expect((0..<table.rowCount).filter { notFR.evaluate(row: $0).truthy } == [1, 2, 4])

        let big = try parse(#"["all", ["in", ["get", "country"], ["literal", ["FR", "DE"]]], [">", ["get", "population"], 1000000]]"#)
            .bind(to: table)
        #expect((0..<table.rowCount).filter { big.evaluate(row: $0).truthy } == [0, 1])
    }

    @Test func boundEvaluationMatchesNamedEvaluation() throws {
        let table = countries()
        let e = try parse(#"["interpolate", ["linear"], ["coalesce", ["number", ["get", "population"]], 0], 0, 4, 4000000, 24]"#, .number)
        let bound = e.bind(to: table)
        for r in 0..<table.rowCount {
            let named = FeatureContext(properties: Dictionary(uniqueKeysWithValues: table.row(r)))
            #expect(bound.evaluate(row: r) == e.evaluate(named))
        }
        #expect(bound.evaluate(row: 0).numberValue == 4.0 + 20.0 * (2_100_000.0 / 4_000_000.0))
        #expect(bound.evaluate(row: 2).numberValue == 4.0 + 20.0 * (50.0 / 4_000_000.0))
        #expect(bound.evaluate(row: 3) == .number(4))
    }

    @Test func extraPropertiesAndRowlessFeatures() throws {
        let table = countries()
        let label = try parse(#"["case", ["has", "point_count"], ["concat", ["get", "point_count"], " places"], ["get", "country"]]"#)
            .bind(to: table)
        #expect(label.evaluate(row: 0) == .string("FR"))
        #expect(label.evaluate(row: nil, extra: ["point_count": .number(12)]) == .string("12 places"))
        #expect(label.evaluate(row: 1, extra: ["country": .string("XX")]) == .string("XX"))  // extra wins
        #expect(label.evaluate(row: nil) == .null)
        let z = try parse(#"["step", ["zoom"], "far", 10, "near"]"#).bind(to: table)
        #expect(z.evaluate(row: 0, zoom: 9.99) == .string("far"))
        #expect(z.evaluate(row: 0, zoom: 10) == .string("near"))
    }
}
