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
    FileHandle.standardError.write(Data((MessageText.escaped(line, keepNewlines: true) + "\n").utf8))
}

/// Parses `WxH`.
func parseSize(_ s: String) -> (Double, Double)? {
    let parts = s.lowercased().split(separator: "x")
    guard parts.count == 2, let w = Int(parts[0]), let h = Int(parts[1]), w > 0, h > 0 else { return nil }
    return (Double(w), Double(h))
}

/// Parses `LAT,LON`.
func parseLatLon(_ s: String) -> (Double, Double)? {
    let parts = s.split(separator: ",").map { Double($0.trimmingCharacters(in: .whitespaces)) }
    guard parts.count == 2, let lat = parts[0], let lon = parts[1], abs(lat) <= 90, abs(lon) <= 180 else { return nil }
    return (lat, lon)
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
        basemap.map { ("--basemap", $0) } + (style.map { [("--style", $0)] } ?? [])
    }
}
