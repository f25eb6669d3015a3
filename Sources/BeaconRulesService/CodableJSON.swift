import BeaconRules

/// A `JSONValue` through `Codable`: objects member by member (in order, for encoders that keep
/// it), numbers as integers when they are whole and fit, else as doubles.
struct CodableJSON: Codable {
    var value: JSONValue

    init(_ value: JSONValue) { self.value = value }

    struct Key: CodingKey {
        var stringValue: String
        var intValue: Int? { nil }
        init(stringValue: String) { self.stringValue = stringValue }
        init?(intValue: Int) { nil }
    }

    func encode(to encoder: any Encoder) throws {
        switch value {
        case .null:
            var c = encoder.singleValueContainer()
            try c.encodeNil()
        case .bool(let b):
            var c = encoder.singleValueContainer()
            try c.encode(b)
        case .number(let text):
            var c = encoder.singleValueContainer()
            if let integer = Int64(text) { try c.encode(integer) } else { try c.encode(Double(text) ?? 0) }
        case .string(let s):
            var c = encoder.singleValueContainer()
            try c.encode(s)
        case .array(let elements):
            var c = encoder.unkeyedContainer()
            for element in elements { try c.encode(CodableJSON(element.value)) }
        case .object(let members):
            var c = encoder.container(keyedBy: Key.self)
            for member in members { try c.encode(CodableJSON(member.value), forKey: Key(stringValue: member.key)) }
        }
    }

    init(from decoder: any Decoder) throws {
        if let keyed = try? decoder.container(keyedBy: Key.self) {
            var members: [JSONMember] = []
            for key in keyed.allKeys {
                members.append(JSONMember(key: key.stringValue, value: try keyed.decode(CodableJSON.self, forKey: key).value, line: 0))
            }
            value = .object(members)
        } else if var unkeyed = try? decoder.unkeyedContainer() {
            var elements: [JSONElement] = []
            while !unkeyed.isAtEnd { elements.append(JSONElement(value: try unkeyed.decode(CodableJSON.self).value, line: 0)) }
            value = .array(elements)
        } else {
            let c = try decoder.singleValueContainer()
            if c.decodeNil() { value = .null }
            else if let b = try? c.decode(Bool.self) { value = .bool(b) }
            else if let i = try? c.decode(Int64.self) { value = .number(String(i)) }
            else if let d = try? c.decode(Double.self) { value = .number(String(d)) }
            else { value = .string(try c.decode(String.self)) }
        }
    }
}
