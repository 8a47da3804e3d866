import Foundation

/// Credentials in tile URLs kept out of messages: the userinfo of `scheme://user:password@host`
/// and the values of query parameters that carry keys and tokens (`key`, `apikey`, `api_key`,
/// `access_token`, `token`, ...) become `REDACTED`, wherever an http(s) URL appears in a line.
public enum Redaction {
    /// Query parameter names whose values are secrets (compared lowercased).
    static let secretParameters: Set<String> = [
        "key", "apikey", "api_key", "api-key", "access_token", "token", "auth", "authorization",
        "password", "passwd", "secret", "client_secret", "signature", "sig",
    ]
    static let marker = "REDACTED"

    /// `text` with every http(s) URL in it redacted.
    public static func redact(_ text: String) -> String {
        guard text.range(of: "://") != nil else { return text }
        var out = ""
        var rest = Substring(text)
        while let start = rest.range(of: "http", options: .caseInsensitive) {
            let tail = rest[start.lowerBound...]
            guard let scheme = tail.range(of: "://"), ["http", "https"].contains(tail[..<scheme.lowerBound].lowercased()) else {
                out += rest[..<start.upperBound]
                rest = rest[start.upperBound...]
                continue
            }
            out += rest[..<start.lowerBound]
            // The URL runs to the first space, quote or angle bracket.
            let end = tail.firstIndex { $0.isWhitespace || "\"'<>`".contains($0) } ?? tail.endIndex
            out += url(String(tail[..<end]))
            rest = tail[end...]
        }
        return out + rest
    }

    /// One URL, redacted.
    static func url(_ u: String) -> String {
        guard let sep = u.range(of: "://") else { return u }
        let scheme = u[..<sep.upperBound]
        var rest = u[sep.upperBound...]
        // Userinfo: before the last "@" of the authority.
        let authorityEnd = rest.firstIndex { "/?#".contains($0) } ?? rest.endIndex
        var authority = String(rest[..<authorityEnd])
        if let at = authority.lastIndex(of: "@") { authority = marker + authority[at...] }
        rest = rest[authorityEnd...]
        guard let q = rest.firstIndex(of: "?") else { return scheme + authority + rest }
        let path = rest[..<q]
        let queryAndFragment = rest[rest.index(after: q)...]
        let fragmentStart = queryAndFragment.firstIndex(of: "#") ?? queryAndFragment.endIndex
        let query = queryAndFragment[..<fragmentStart].split(separator: "&", omittingEmptySubsequences: false).map { pair -> String in
            guard let eq = pair.firstIndex(of: "="),
                  secretParameters.contains(pair[..<eq].lowercased()) else { return String(pair) }
            return pair[...eq] + marker
        }
        return scheme + authority + path + "?" + query.joined(separator: "&") + queryAndFragment[fragmentStart...]
    }
}
