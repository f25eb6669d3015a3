/// A JSON document as written: numbers keep their source text, objects keep member order,
/// and every member and array element remembers the line it started on.
///
/// Not `indirect`: arrays and objects already live in their arrays' heap buffers, and boxing every
/// string and number besides cost an allocation per value (tens per campaign).
public enum JSONValue: Sendable, Equatable {
    /// `null`.
    case null
    /// `true` or `false`.
    case bool(Bool)
    /// The number's text exactly as written (`1.4E-4` stays `1.4E-4`).
    case number(String)
    /// A string, unescaped.
    case string(String)
    /// An array, each element with its line and column.
    case array([JSONElement])
    /// An object's members in the order written (duplicate keys kept), each with its line and
    /// column.
    case object([JSONMember])

    /// The last member named `key`, when this is an object.
    public subscript(key: String) -> JSONValue? {
        member(key)?.value
    }

    /// The last member named `key` (a later duplicate wins), when this is an object.
    public func member(_ key: String) -> JSONMember? {
        guard case .object(let members) = self else { return nil }
        return members.last { $0.key == key }
    }

    /// Whether this is `null`.
    public var isNull: Bool { if case .null = self { true } else { false } }

    /// The string, when this is one.
    public var stringValue: String? { if case .string(let s) = self { s } else { nil } }

    /// The members in document order (duplicates kept), when this is an object.
    public var objectMembers: [JSONMember]? { if case .object(let m) = self { m } else { nil } }

    /// The elements, when this is an array.
    public var arrayElements: [JSONElement]? { if case .array(let e) = self { e } else { nil } }

    /// A short name of the value's kind, for error messages.
    public var kindName: String {
        switch self {
        case .null: "null"
        case .bool: "a boolean"
        case .number: "a number"
        case .string: "a string"
        case .array: "an array"
        case .object: "an object"
        }
    }

    /// An integer value when the number has no fraction or exponent and fits in Int64.
    public var integerValue: Int64? {
        guard case .number(let text) = self else { return nil }
        return Int64(text)
    }

    /// A number as Double (for values like `1e3` that users write for integers).
    public var doubleValue: Double? {
        guard case .number(let text) = self else { return nil }
        return Double(text)
    }
}

/// One member of a JSON object with the position where its key starts.
public struct JSONMember: Sendable, Equatable {
    /// The key, unescaped.
    public var key: String
    /// The member's value.
    public var value: JSONValue
    /// The key's line (1-based; 0 when not parsed from text).
    public var line: Int
    /// The key's column (1-based; 0 when not parsed from text).
    public var column: Int

    /// A member of each part.
    public init(key: String, value: JSONValue, line: Int = 0, column: Int = 0) {
        self.key = key
        self.value = value
        self.line = line
        self.column = column
    }
}

/// One element of a JSON array with the position where it starts.
public struct JSONElement: Sendable, Equatable {
    /// The element's value.
    public var value: JSONValue
    /// Its line (1-based; 0 when not parsed from text).
    public var line: Int
    /// Its column (1-based; 0 when not parsed from text).
    public var column: Int

    /// An element of each part.
    public init(value: JSONValue, line: Int = 0, column: Int = 0) {
        self.value = value
        self.line = line
        self.column = column
    }
}

extension JSONValue {
    /// Builds an object from key-value pairs in order (positions unknown).
    public static func makeObject(_ pairs: [(String, JSONValue)]) -> JSONValue {
        .object(pairs.map { JSONMember(key: $0.0, value: $0.1) })
    }

    /// Builds an array from values in order (positions unknown).
    public static func makeArray(_ values: [JSONValue]) -> JSONValue {
        .array(values.map { JSONElement(value: $0) })
    }

    /// Compares values ignoring source positions.
    public func sameContent(as other: JSONValue) -> Bool {
        switch (self, other) {
        case (.null, .null): return true
        case (.bool(let a), .bool(let b)): return a == b
        case (.number(let a), .number(let b)): return a == b
        case (.string(let a), .string(let b)): return a == b
        case (.array(let a), .array(let b)):
            return a.count == b.count && zip(a, b).allSatisfy { $0.value.sameContent(as: $1.value) }
        case (.object(let a), .object(let b)):
            return a.count == b.count
                && zip(a, b).allSatisfy { $0.key == $1.key && $0.value.sameContent(as: $1.value) }
        default: return false
        }
    }
}
