/// Builds `JSONValue` trees for `JSONParser`.
///
/// The members and elements of the containers still open wait on two stacks and are moved into
/// their container's array, allocated once at its final size, when it closes (growing one array per
/// container allocated and copied several times, and left most of the capacity unused). Short
/// strings, above all member names, are made once per document and then reused.
struct JSONTreeBuilder: ~Copyable {
    private var members = OpenItems<JSONMember>()
    private var elements = OpenItems<JSONElement>()
    private var shortStrings = ShortStrings()

    init() {}

    mutating func value(_ s: inout JSONScanner, depth: Int) throws(JSONSyntaxError) -> JSONValue {
        guard depth < JSONParser.maximumDepth else { throw s.error("nesting deeper than \(JSONParser.maximumDepth) levels") }
        switch s.current ?? 0 {
        case 0x22:
            let (range, escaped) = try s.scanString()
            return .string(try string(&s, range, escaped: escaped))
        case 0x7B:
            s.position += 1
            s.skipWhitespace()
            if s.current == 0x7D { s.position += 1; return .object([]) }
            let base = members.count
            while true {
                s.skipWhitespace()
                guard s.current == 0x22 else {
                    throw s.error("expected a member name in quotes, found \(s.foundDescription())")
                }
                let line = s.line, column = s.column
                let (range, escaped) = try s.scanString()
                let key = try string(&s, range, escaped: escaped)
                s.skipWhitespace()
                try s.expect(0x3A, "`:` after member name \"\(key)\"")
                s.skipWhitespace()
                let value = try value(&s, depth: depth + 1)
                members.push(JSONMember(key: key, value: value, line: line, column: column))
                s.skipWhitespace()
                if s.current == 0x2C { s.position += 1; continue }
                try s.expect(0x7D, "`,` or `}` after the value of \"\(key)\"")
                return .object(members.pop(from: base))
            }
        case 0x5B:
            s.position += 1
            s.skipWhitespace()
            if s.current == 0x5D { s.position += 1; return .array([]) }
            let base = elements.count
            while true {
                s.skipWhitespace()
                let line = s.line, column = s.column
                let value = try value(&s, depth: depth + 1)
                elements.push(JSONElement(value: value, line: line, column: column))
                s.skipWhitespace()
                if s.current == 0x2C { s.position += 1; continue }
                try s.expect(0x5D, "`,` or `]` in array")
                return .array(elements.pop(from: base))
            }
        case 0x2D, 0x30...0x39:
            let range = try s.scanNumber()
            return .number(shortStrings.string(UnsafeBufferPointer(rebasing: s.bytes[range]), readable: s.bytes.count - range.lowerBound))
        case 0:
            throw s.error("expected a JSON value, found \(s.foundDescription())")
        default:
            return try s.scanLiteral()
        }
    }

    /// A string's contents: ASCII without escapes (nearly every key and value) is taken as is;
    /// anything else is validated and unescaped by the scanner.
    @inline(__always)
    private mutating func string(_ s: inout JSONScanner, _ range: Range<Int>, escaped: Bool) throws(JSONSyntaxError) -> String {
        let slice = UnsafeBufferPointer(rebasing: s.bytes[range])
        if !escaped && isASCII(slice) { return shortStrings.string(slice, readable: s.bytes.count - range.lowerBound) }
        return try s.decodeString(range, escaped: escaped)
    }
}

/// The items of the containers still open, in one buffer: pushed as they are parsed, moved out
/// (no reference counting) into an array of their own when their container closes.
struct OpenItems<Item>: ~Copyable {
    private var storage: UnsafeMutablePointer<Item>
    private var capacity = 64
    private(set) var count = 0

    init() { storage = .allocate(capacity: capacity) }

    deinit {
        storage.deinitialize(count: count)
        storage.deallocate()
    }

    @inline(__always)
    mutating func push(_ item: consuming Item) {
        if count == capacity {
            let larger = UnsafeMutablePointer<Item>.allocate(capacity: capacity * 2)
            larger.moveInitialize(from: storage, count: count)
            storage.deallocate()
            storage = larger
            capacity *= 2
        }
        (storage + count).initialize(to: item)
        count += 1
    }

    /// The items from `base` on, in order; they leave the stack.
    @inline(__always)
    mutating func pop(from base: Int) -> [Item] {
        var items: [Item] = []
        items.reserveCapacity(count - base)
        for i in base..<count { items.append((storage + i).move()) }
        count = base
        return items
    }
}

/// ASCII strings of up to 15 bytes (Swift keeps those inline, without an allocation) by their
/// bytes, in a small direct-mapped table: a document repeats its member names and many of its
/// short values, and reusing a string is cheaper than making it again.
struct ShortStrings: ~Copyable {
    private struct Entry {
        var low: UInt64
        var high: UInt64
        var count: Int
        var string: String
    }

    private static let size = 512
    private let entries: UnsafeMutablePointer<Entry>

    init() {
        entries = .allocate(capacity: Self.size)
        entries.initialize(repeating: Entry(low: 0, high: 0, count: -1, string: ""), count: Self.size)
    }

    deinit {
        entries.deinitialize(count: Self.size)
        entries.deallocate()
    }

    /// `bytes` (ASCII) as a `String`. `readable` bytes from the start of `bytes` may be read (the
    /// rest of the document), so that a short string is loaded as two words.
    @inline(__always)
    mutating func string(_ bytes: UnsafeBufferPointer<UInt8>, readable: Int) -> String {
        let n = bytes.count
        guard n <= 15, readable >= 16, let base = bytes.baseAddress else { return Self.make(bytes) }
        let raw = UnsafeRawPointer(base)
        let low = UInt64(littleEndian: raw.loadUnaligned(as: UInt64.self)) & Self.mask(n)
        let high = n > 8 ? UInt64(littleEndian: raw.loadUnaligned(fromByteOffset: 8, as: UInt64.self)) & Self.mask(n - 8) : 0
        let slot = Int(truncatingIfNeeded: ((low ^ (high &* 0x9E37_79B9_7F4A_7C15) ^ UInt64(n)) &* 0xBF58_476D_1CE4_E5B9) >> 55)
        let entry = entries + slot
        if entry.pointee.count == n && entry.pointee.low == low && entry.pointee.high == high { return entry.pointee.string }
        let made = Self.make(bytes)
        entry.pointee = Entry(low: low, high: high, count: n, string: made)
        return made
    }

    /// The low `n` bytes (all eight from 8 on) of a little-endian word.
    @inline(__always)
    private static func mask(_ n: Int) -> UInt64 {
        n >= 8 ? ~0 : (1 << UInt64(8 * n)) &- 1
    }

    @inline(__always)
    private static func make(_ bytes: UnsafeBufferPointer<UInt8>) -> String {
        String(unsafeUninitializedCapacity: bytes.count) { out in
            _ = out.initialize(fromContentsOf: bytes)
            return bytes.count
        }
    }
}
