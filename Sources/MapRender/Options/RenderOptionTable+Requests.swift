import Foundation
import MapRenderCore

// MARK: - Requests to `maprender serve`

extension RenderOptionTable {
    /// The options a request to `maprender serve` may give, by manifest key (`cluster`, `size`):
    /// every entry but those that name files or folders on the server or set the server itself.
    public static var requestOptions: [RenderOption] {
        options.filter { $0.requestUse == .allowed || $0.requestUse == .named }
    }

    /// Applies options given as text by a request to `maprender serve` — query parameters
    /// (`?cluster=false&label=name`), and the values of the URL's path (`size`, `center`, `zoom`,
    /// `bbox`, `scale`) — the table's third source after the command line and manifests. Names
    /// are manifest keys; repeated names give a list option its values in order. Each value
    /// goes through its entry's check, so a bad value has the command line's message after the
    /// name (`size: width and height must each be in 1...16384, got "0x5"`). A flag takes
    /// `true`, `false` or nothing (true). Options that name files take the names in `names`
    /// (`style=dark`); other file options and the server's own settings are refused, naming why.
    public static func apply(request given: [(name: String, values: [String])], names: RequestNames,
                             files: OptionFiles, to settings: inout RenderSettings) throws {
        for (name, values) in given {
            guard let option = options.first(where: { $0.name == name }) else {
                let known = options.map(\.name)
                let hint = KeySuggestion.closest(to: name, among: known).map { "; did you mean '\($0)'?" } ?? ""
                throw MapRenderError(.usage, "\(name): unknown option\(hint)")
            }
            let value: OptionValue
            switch option.form {
            case .flag, .offFlag:
                guard values.count == 1 else { throw MapRenderError(.usage, "\(name): given \(values.count) times") }
                switch values[0].lowercased() {
                case "", "true": value = OptionValue(flag: true)
                case "false": value = OptionValue(flag: false)
                default: value = OptionValue(word: values[0])   // the entry's own message
                }
            case .value:
                guard values.count == 1 else { throw MapRenderError(.usage, "\(name): given \(values.count) times") }
                value = OptionValue(word: values[0])
            case .list:
                value = OptionValue(words: values)
            }
            let context = OptionContext(files: files, file: name, path: name, names: names)
            do {
                try option.apply(value, to: &settings, context: context)
            } catch let e as MapRenderError {
                throw MapRenderError(e.kind, e.message.hasPrefix("\(name): ") ? e.message : "\(name): \(e.message)")
            }
        }
        if let p = settings.problems(spell: { $0 }).first { throw MapRenderError(.usage, p) }
    }
}
