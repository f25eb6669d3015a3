public import BeaconRules

/// One notification record (or silent record) as SPEC section 3 writes it.
///
/// `json` is the record exactly as `replay` writes it (byte for byte, without the newline).
/// `Codable` encodes and decodes the same JSON object, member by member; an encoder that orders
/// keys its own way (Foundation's `JSONEncoder`) gives the same object with its members
/// reordered, so send `json` where the bytes matter.
public struct Record: Sendable, Hashable, Codable, CustomStringConvertible {
    /// The SPEC's JSON object, exactly.
    public let json: String
    /// `CAMPAIGN:DEVICE:EVENT`: what a response names.
    public let id: String
    /// `notification` or `silent`.
    public let kind: String
    /// The campaign's `eid` as written.
    public let campaign: String
    /// The device the record is for.
    public let device: String
    /// The id of the event that fired it.
    public let event: String
    /// RFC 3339, UTC.
    public let fireDate: String
    /// The record as a JSON tree, members in order.
    public var value: JSONValue { (try? JSONParser.parse(json)) ?? .null }

    /// A record from one SPEC section 3 JSON object (as `replay` writes it).
    public init(json: String) throws(JSONSyntaxError) {
        let value = try JSONParser.parse(json)
        self.json = json
        id = value["id"]?.stringValue ?? ""
        kind = value["kind"]?.stringValue ?? ""
        campaign = value["campaign"]?.stringValue ?? ""
        device = value["device"]?.stringValue ?? ""
        event = value["event"]?.stringValue ?? ""
        fireDate = value["fireDate"]?.stringValue ?? ""
    }

    /// The records of JSON lines (each ending in `\n`), in order.
    static func lines(_ bytes: some Collection<UInt8>) -> [Record] {
        bytes.split(separator: 0x0A).compactMap { try? Record(json: String(decoding: $0, as: UTF8.self)) }
    }

    /// The record's JSON (`json`).
    public var description: String { json }

    /// Records are equal when their JSON is byte for byte.
    public static func == (a: Record, b: Record) -> Bool { a.json == b.json }
    /// Hashes the JSON, as `==` compares it.
    public func hash(into hasher: inout Hasher) { hasher.combine(json) }

    /// Encodes the record's object (its fields in the encoder's own key order: `json` keeps the
    /// SPEC's).
    public func encode(to encoder: any Encoder) throws {
        try CodableJSON(value).encode(to: encoder)
    }

    /// Decodes a record's object and checks it as `init(json:)` does.
    public init(from decoder: any Decoder) throws {
        var w = JSONWriter(capacity: 1024)
        w.value(try CodableJSON(from: decoder).value)
        try self.init(json: String(decoding: w.bytes, as: UTF8.self))
    }
}
