/// Decides whether a campaign URL is one a phone can open safely (RFC 3986 syntax, no schemes
/// that run code, embed content or reach local files).
enum URLCheck {
    enum Outcome: Equatable {
        /// Parses; the scheme lower-cased.
        case valid(scheme: String)
        case forbidden(scheme: String, why: String)
        case invalid(why: String)
    }

    static let forbidden: [String: String] = [
        "javascript": "it runs script in the app's web view",
        "data": "it embeds arbitrary content that can impersonate a page",
        "file": "it reads files on the device",
    ]

    static func check(_ url: String) -> Outcome {
        let scalars = Array(url.unicodeScalars)
        // The scheme: ALPHA *( ALPHA / DIGIT / "+" / "-" / "." ) ":"
        guard let colon = scalars.firstIndex(of: ":"), colon > 0,
              isAlpha(scalars[0]), scalars[1..<colon].allSatisfy({ isAlpha($0) || isDigit($0) || "+-.".unicodeScalars.contains($0) }) else {
            return .invalid(why: "it has no scheme; expected an absolute URL like https://example.com/page")
        }
        let scheme = String(String.UnicodeScalarView(scalars[..<colon])).lowercased()
        if let why = forbidden[scheme] { return .forbidden(scheme: scheme, why: why) }
        for (i, s) in scalars.enumerated() {
            if s == " " { return .invalid(why: "character \(i + 1) is a space; write it as %20") }
            if s.value < 0x21 || s.value == 0x7F { return .invalid(why: "character \(i + 1) is a control character; remove it") }
            if s.value > 0x7E { return .invalid(why: "character \(i + 1) (\"\(s)\") is not ASCII; percent-encode it as UTF-8 (for example ü as %C3%BC)") }
            if "\"<>\\^`{|}".unicodeScalars.contains(s) { return .invalid(why: "character \(i + 1) (\"\(s)\") is not allowed in a URL; percent-encode it") }
            if s == "%" {
                let hex = scalars.dropFirst(i + 1).prefix(2)
                if hex.count < 2 || !hex.allSatisfy(isHex) { return .invalid(why: "character \(i + 1) starts a bad percent escape; % must be followed by two hex digits (%25 for % itself)") }
            }
        }
        if scalars.filter({ $0 == "#" }).count > 1 { return .invalid(why: "it has more than one #") }
        if scheme == "http" || scheme == "https" {
            let rest = scalars[(colon + 1)...]
            guard rest.starts(with: "//".unicodeScalars) else { return .invalid(why: "an \(scheme) URL needs // and a host after \(scheme):") }
            let authority = rest.dropFirst(2).prefix { $0 != "/" && $0 != "?" && $0 != "#" }
            let hostAndPort = authority.split(separator: "@", omittingEmptySubsequences: false).last ?? []
            // An IPv6 literal ([::1]) holds colons of its own.
            let host: ArraySlice<Unicode.Scalar>
            if hostAndPort.first == "[", let close = hostAndPort.firstIndex(of: "]") {
                host = hostAndPort[...close]
            } else {
                host = hostAndPort.prefix { $0 != ":" }
            }
            if host.isEmpty { return .invalid(why: "it has no host; expected \(scheme)://example.com/...") }
            if hostAndPort.count > host.count {
                let port = hostAndPort.dropFirst(host.count + 1)
                if !port.allSatisfy(isDigit) || port.count > 5 { return .invalid(why: "the port \"\(String(String.UnicodeScalarView(port)))\" is not a number") }
            }
        }
        return .valid(scheme: scheme)
    }

    static func isAlpha(_ s: Unicode.Scalar) -> Bool { (s >= "a" && s <= "z") || (s >= "A" && s <= "Z") }
    static func isDigit(_ s: Unicode.Scalar) -> Bool { s >= "0" && s <= "9" }
    static func isHex(_ s: Unicode.Scalar) -> Bool { isDigit(s) || (s >= "a" && s <= "f") || (s >= "A" && s <= "F") }
}
