public import BeaconRules
import BeaconRulesServer

// Events and responses as `Codable`: encoded as SPEC sections 1 and 8 write them (time in UTC),
// decoded through the same parser as `replay` and `serve`, so that a bad field is refused with
// the same message (as `DecodingError.dataCorrupted`). One without an `id` gets the id made
// from its content, as on the socket.
//
// Here, not in the engine: the engine stays free of any coding machinery, and this module is
// the one that offers the conformance (allowed without `@retroactive` within one package).

extension BeaconEvent: Codable {
    /// `{"id":...,"device":...,"type":"enter","beacon":PID,"time":RFC3339,"locale":...}`.
    public var json: String {
        var w = JSONWriter(capacity: 256)
        w.raw("{\"id\":"); w.string(id)
        w.raw(",\"device\":"); w.string(device)
        w.raw(",\"type\":"); w.string(kind.name)
        w.raw(",\"beacon\":"); w.string(beacon.description)
        w.raw(",\"time\":"); w.string(time.description)
        if let locale { w.raw(",\"locale\":"); w.string(locale) }
        w.raw("}")
        return String(decoding: w.bytes, as: UTF8.self)
    }

    /// Encodes the event as SPEC section 1's object (`json`).
    public func encode(to encoder: any Encoder) throws {
        try CodableJSON(JSONParser.parse(json)).encode(to: encoder)
    }

    /// Decodes SPEC section 1's object, with the same checks and messages as `replay`.
    public init(from decoder: any Decoder) throws {
        guard case .beacon(let event) = try parsedInput(from: decoder) else {
            throw DecodingError.dataCorrupted(.init(codingPath: decoder.codingPath, debugDescription: "expected a beacon event (SPEC section 1), found a response or a sighting"))
        }
        self = event
    }
}

extension ResponseEvent: Codable {
    /// `{"id":...,"type":"response","device":...,"notification":...,"action":...,"time":RFC3339,...}`.
    public var json: String {
        var w = JSONWriter(capacity: 256)
        w.raw("{\"id\":"); w.string(id)
        w.raw(",\"type\":\"response\",\"device\":"); w.string(device)
        w.raw(",\"notification\":"); w.string(notification)
        w.raw(",\"action\":"); w.string(action.rawValue)
        if let actionId { w.raw(",\"actionId\":"); w.string(actionId) }
        w.raw(",\"time\":"); w.string(time.description)
        if let data { w.raw(",\"data\":"); w.value(data) }
        if let text { w.raw(",\"text\":"); w.string(text) }
        w.raw("}")
        return String(decoding: w.bytes, as: UTF8.self)
    }

    /// Encodes the response as SPEC section 8's object (`json`).
    public func encode(to encoder: any Encoder) throws {
        try CodableJSON(JSONParser.parse(json)).encode(to: encoder)
    }

    /// Decodes SPEC section 8's object, with the same checks and messages as `replay`.
    public init(from decoder: any Decoder) throws {
        guard case .response(let response) = try parsedInput(from: decoder) else {
            throw DecodingError.dataCorrupted(.init(codingPath: decoder.codingPath, debugDescription: "expected a response (SPEC section 8)"))
        }
        self = response
    }
}

/// The decoder's object written out as one JSON line and read as a connection reads it (an
/// object without `id` gets the id made from its content).
private func parsedInput(from decoder: any Decoder) throws -> InputLine {
    var w = JSONWriter(capacity: 256)
    w.value(try CodableJSON(from: decoder).value)
    let read = w.bytes.withUnsafeBufferPointer { LineIntake.connection(readsOutboxRequests: false).read($0, number: 1) }
    switch read {
    case .input(let input, _): return input
    case .rejected(let message): throw DecodingError.dataCorrupted(.init(codingPath: decoder.codingPath, debugDescription: message))
    case .outbox, .blank: preconditionFailure("a connection's intake without outbox requests skips no line")
    }
}
