import ArgumentParser
import Foundation
import MapRender

/// Runs a command body, turning library errors into one line on stderr and the documented exit code.
func runReportingErrors(_ body: () throws -> Void) throws {
    do {
        try body()
    } catch let e as MapRenderError {
        printError("maprender: error: \(e.message)")
        throw ExitCode(e.exitCode)
    }
}

func printError(_ line: String) {
    // Messages may quote names from files: never let their control characters reach the terminal.
    StandardStreams.writeError(MessageText.escaped(line, keepNewlines: true) + "\n")
}

// MARK: - Options from RenderOptionTable

extension ArgumentHelp {
    /// The help of a `RenderOptionTable` entry, by long name: `@Option(help: .table("size"))`.
    static func table(_ name: String) -> ArgumentHelp {
        guard let o = RenderOptionTable.option(named: name) else {
            return ArgumentHelp("(missing from RenderOptionTable: \(name))")
        }
        return ArgumentHelp(o.help, valueName: o.valueName)
    }
}

/// A group whose options are all `RenderOptionTable` entries, each declared as
/// `@Option(help: .table("marker-size")) var markerSize: String?` (or `[String]` for a repeatable
/// one, `@Flag ... = false` for a flag): the property's name is the option's, camel-cased, as
/// ArgumentParser spells it. `given` finds the values by reflection, so a new option needs no
/// other line in the CLI.
protocol TableOptionGroup: ParsableArguments {}

extension TableOptionGroup {
    /// Every option given on the command line, by long name, nested groups included.
    var given: [(name: String, value: OptionValue)] {
        Mirror(reflecting: self).children.flatMap { child -> [(name: String, value: OptionValue)] in
            if let group = child.value as? NestedTableGroup { return group.nestedGiven }
            guard let label = child.label, let option = child.value as? GivenOption, let value = option.givenValue else { return [] }
            return [(name: longName(label), value: value)]
        }
    }

    /// The request these options make (also checks every value and combination).
    func request(files: OptionFiles = OptionFiles()) throws -> RenderRequest {
        try RenderOptionTable.request(commandLine: given, files: files)
    }

    /// For `validate()`: a bad value or combination is a usage error with ArgumentParser's
    /// help; files are read (and their errors reported) in `run()`.
    func validateValues() throws {
        do {
            _ = try RenderOptionTable.request(commandLine: given.filter { !["style", "basemap"].contains($0.name) })
        } catch let e as MapRenderError where e.kind == .usage {
            throw ValidationError(e.message)
        } catch is MapRenderError {
            // Reported by run() with its own exit code.
        }
    }
}

/// `_markerSize` → `marker-size`, as ArgumentParser names a property's long option.
private func longName(_ label: String) -> String {
    var out = ""
    for c in label.drop(while: { $0 == "_" }) {
        if c.isUppercase { out += "-" + c.lowercased() } else { out.append(c) }
    }
    return out
}

protocol GivenOption { var givenValue: OptionValue? { get } }
protocol NestedTableGroup { var nestedGiven: [(name: String, value: OptionValue)] { get } }

extension Option: GivenOption {
    var givenValue: OptionValue? {
        switch wrappedValue as Any {
        case let words as [String]: return words.isEmpty ? nil : OptionValue(words: words)
        case let word as String: return OptionValue(word: word)
        default: return nil
        }
    }
}

extension Flag: GivenOption {
    var givenValue: OptionValue? { (wrappedValue as? Bool) == true ? OptionValue(flag: true) : nil }
}

extension OptionGroup: NestedTableGroup where Value: TableOptionGroup {
    var nestedGiven: [(name: String, value: OptionValue)] { wrappedValue.given }
}

func jsonText<T: Encodable>(_ value: T) throws -> Data {
    let enc = JSONEncoder()
    enc.outputFormatting = [.prettyPrinted, .sortedKeys, .withoutEscapingSlashes]
    var d = try enc.encode(value)
    d.append(0x0A)
    return d
}

extension MapOptionGroup {
    /// The files the map options read (basemaps, style): no output may replace them.
    var filesRead: [OutputSafety.Named] {
        basemap.map { ("--basemap", $0) } + (style.map { [("--style", $0)] } ?? []) + (basemapStyle.map { [("--basemap-style", $0)] } ?? [])
    }
}
