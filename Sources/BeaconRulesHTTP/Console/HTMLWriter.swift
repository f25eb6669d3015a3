/// The console's HTML, written as bytes: markup the code writes (`raw`) and text from files and
/// requests (`text`, `attribute`), which is always escaped. A campaign titled
/// `<img src=x onerror=alert(1)>` shows exactly those characters: nothing a campaign, a locale or
/// a request says reaches the page as markup.
package struct HTMLWriter: Sendable {
    package private(set) var bytes: [UInt8] = []

    package init(capacity: Int = 1 << 14) {
        bytes.reserveCapacity(capacity)
    }

    /// Markup written by the console itself, never text from outside.
    package mutating func raw(_ markup: StaticString) {
        markup.withUTF8Buffer { bytes.append(contentsOf: $0) }
    }

    /// Text from a file or a request: `&`, `<`, `>`, `"` and `'` escaped, safe in an element and in
    /// a quoted attribute value.
    package mutating func text(_ value: some StringProtocol) {
        for byte in value.utf8 {
            switch byte {
            case UInt8(ascii: "&"): bytes.append(contentsOf: [0x26, 0x61, 0x6D, 0x70, 0x3B])
            case UInt8(ascii: "<"): bytes.append(contentsOf: [0x26, 0x6C, 0x74, 0x3B])
            case UInt8(ascii: ">"): bytes.append(contentsOf: [0x26, 0x67, 0x74, 0x3B])
            case UInt8(ascii: "\""): bytes.append(contentsOf: [0x26, 0x71, 0x75, 0x6F, 0x74, 0x3B])
            case UInt8(ascii: "'"): bytes.append(contentsOf: [0x26, 0x23, 0x33, 0x39, 0x3B])
            default: bytes.append(byte)
            }
        }
    }

    /// A number.
    package mutating func number(_ value: Int) {
        bytes.append(contentsOf: String(value).utf8)
    }

    /// `<TAG>text</TAG>` for a tag written by the console.
    package mutating func element(_ open: StaticString, _ value: some StringProtocol, _ close: StaticString) {
        raw(open); text(value); raw(close)
    }

    /// A path segment of a link (`/campaigns/EID`): every byte but unreserved ones percent-encoded,
    /// so that an eid cannot end the attribute or the path. Escape the result as text as well.
    package mutating func pathSegment(_ value: some StringProtocol) {
        text(Self.percentEncoded(value))
    }

    /// `value` with every byte but `A-Z a-z 0-9 - _ . ~` percent-encoded.
    package static func percentEncoded(_ value: some StringProtocol) -> String {
        let hex = Array("0123456789ABCDEF".utf8)
        var out: [UInt8] = []
        for byte in value.utf8 {
            switch byte {
            case UInt8(ascii: "A")...UInt8(ascii: "Z"), UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "0")...UInt8(ascii: "9"),
                 UInt8(ascii: "-"), UInt8(ascii: "_"), UInt8(ascii: "."), UInt8(ascii: "~"):
                out.append(byte)
            default:
                out.append(UInt8(ascii: "%")); out.append(hex[Int(byte >> 4)]); out.append(hex[Int(byte & 0x0F)])
            }
        }
        return String(decoding: out, as: UTF8.self)
    }
}

extension HTMLWriter {
    /// Another writer's bytes, as they are (already escaped where they had to be).
    package mutating func append(_ other: HTMLWriter) {
        bytes.append(contentsOf: other.bytes)
    }
}
