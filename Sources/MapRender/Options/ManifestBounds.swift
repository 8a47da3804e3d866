import CYaml
import Foundation

/// Limits a manifest is checked against before it is parsed into values, so that no manifest can
/// overflow the stack (the YAML composer and the conversion recurse once per nesting level) or
/// exhaust memory (a YAML "billion laughs": aliases of aliases, expanded in full).
///
/// A real manifest nests 5 levels (`jobs` → job → `filter` → expression → argument) plus the
/// depth of its filter expressions, and has a few values per job.
enum ManifestBounds {
    /// Lists and objects nested deeper than this are refused.
    static let maxDepth = 64
    /// Values (scalars, lists, objects) after expanding every YAML alias; 20 per job is typical.
    static let maxValues = 1_000_000

    /// Walks libyaml's events (libyaml parses with explicit stacks, no recursion), counting the
    /// nesting depth and the number of values after alias expansion. Syntax errors are left for
    /// the composer to report; only the bounds throw here.
    static func checkYAML(_ bytes: [UInt8]) throws {
        var parser = yaml_parser_t()
        guard yaml_parser_initialize(&parser) == 1 else { return }
        defer { yaml_parser_delete(&parser) }
        yaml_parser_set_encoding(&parser, YAML_UTF8_ENCODING)
        try bytes.withUnsafeBufferPointer { buffer in
            yaml_parser_set_input_string(&parser, buffer.baseAddress, buffer.count)
            // Per open list/object: its anchor and the values inside it so far (expanded).
            var open: [(anchor: String?, values: Int)] = []
            var anchored: [String: Int] = [:]
            var total = 0
            func add(_ n: Int, line: Int) throws {
                total = total > maxValues - n ? maxValues + 1 : total + n
                if total > maxValues { throw tooManyValues(line: line) }
                if !open.isEmpty { open[open.count - 1].values += n }
            }
            while true {
                var event = yaml_event_t()
                guard yaml_parser_parse(&parser, &event) == 1 else { return }
                defer { yaml_event_delete(&event) }
                let line = Int(event.start_mark.line) + 1
                switch event.type {
                case YAML_STREAM_END_EVENT:
                    return
                case YAML_SCALAR_EVENT:
                    try add(1, line: line)
                    if let a = string(event.data.scalar.anchor) { anchored[a] = 1 }
                case YAML_ALIAS_EVENT:
                    try add(string(event.data.alias.anchor).flatMap { anchored[$0] } ?? 1, line: line)
                case YAML_SEQUENCE_START_EVENT, YAML_MAPPING_START_EVENT:
                    if open.count >= maxDepth { throw tooDeep(line: line) }
                    try add(1, line: line)
                    let a = event.type == YAML_SEQUENCE_START_EVENT
                        ? string(event.data.sequence_start.anchor) : string(event.data.mapping_start.anchor)
                    open.append((anchor: a, values: 1))
                case YAML_SEQUENCE_END_EVENT, YAML_MAPPING_END_EVENT:
                    guard let closed = open.popLast() else { break }
                    if let a = closed.anchor { anchored[a] = closed.values }
                    if !open.isEmpty { open[open.count - 1].values += closed.values - 1 }
                default:
                    break
                }
            }
        }
    }

    /// JSON nesting depth, counted over brackets outside strings (JSONSerialization recurses).
    static func checkJSON(_ data: Data) throws {
        var depth = 0, line = 1, inString = false, escaped = false
        for b in data {
            if b == 0x0A { line += 1 }
            if inString {
                if escaped { escaped = false } else if b == 0x5C { escaped = true } else if b == 0x22 { inString = false }
                continue
            }
            switch b {
            case 0x22: inString = true
            case 0x5B, 0x7B:
                depth += 1
                if depth > maxDepth { throw tooDeep(line: line) }
            case 0x5D, 0x7D: depth -= 1
            default: break
            }
        }
    }

    static func tooDeep(line: Int) -> ManifestSyntaxError {
        ManifestSyntaxError(message: "line \(line): lists and objects nested more than \(maxDepth) levels deep (the manifest limit)")
    }

    static func tooManyValues(line: Int) -> ManifestSyntaxError {
        ManifestSyntaxError(message: "line \(line): more than \(maxValues) values once YAML aliases are expanded (the manifest limit)")
    }

    private static func string(_ p: UnsafeMutablePointer<UInt8>?) -> String? {
        p.map { String(cString: $0) }
    }
}
