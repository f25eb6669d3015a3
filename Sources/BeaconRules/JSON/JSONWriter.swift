/// Appends compact JSON to a byte buffer. Used for records on the hot path: no `JSONEncoder`.
public struct JSONWriter: Sendable {
    /// The output written so far (without runs kept by reference: `forEachSegment` gives all of
    /// it).
    public var bytes: [UInt8]
    /// Runs of bytes kept elsewhere, written between `bytes[..<at]` and the rest (in `at` order).
    /// Empty unless `collectsReferences` is on.
    @usableFromInline package var references: [Reference] = []
    /// On: `appendStable` records long runs as references instead of copying them. Only for a
    /// writer that is written out whole (`forEachSegment`) while the engine that filled it lives,
    /// and never sliced: `bytes` alone is then not the output.
    package var collectsReferences = false
    /// The shortest run `appendStable` references (shorter ones are copied): for output written
    /// with `writev`, a reference costs a vector; for a log that keeps them, 16 bytes.
    package var shortestReference = 256
    /// The bytes of all `references`.
    package private(set) var referencedCount = 0

    /// Bytes that are kept by their owner for good (the engine's record tails) and need not be
    /// copied: `start` stays valid while that owner lives.
    ///
    /// `@unchecked Sendable`: `start` points into a `StableByteArena`, whose bytes are written
    /// once, before any reference to them is made, and never written again or moved; reading
    /// immutable bytes from any thread is safe. (That the arena outlives the reference is the
    /// collecting writer's rule above, on every thread alike.)
    @usableFromInline package struct Reference: @unchecked Sendable {
        @usableFromInline package var at: Int
        @usableFromInline package var start: UnsafePointer<UInt8>
        @usableFromInline package var count: Int
    }

    /// All the output: `bytes` and the referenced runs.
    public var count: Int { bytes.count + referencedCount }

    /// An empty writer with room for `capacity` bytes before its buffer grows.
    public init(capacity: Int = 0) {
        bytes = []
        // Reserving nothing would still allocate an empty buffer (once per event on the hot path).
        if capacity > 0 { bytes.reserveCapacity(capacity) }
    }

    /// Appends bytes that stay where they are while the writer is in use: referenced when the
    /// writer collects references and the run is long enough to be worth it, else copied.
    @inline(__always)
    package mutating func appendStable(_ run: UnsafeBufferPointer<UInt8>) {
        if refers(run) {
            appendReference(at: bytes.count, run)
        } else {
            bytes.append(contentsOf: run)
        }
    }

    /// Whether `appendStable` would reference `run` rather than copy it.
    @inline(__always)
    package func refers(_ run: UnsafeBufferPointer<UInt8>) -> Bool { collectsReferences && run.count >= shortestReference }

    /// Records `run` (stable, see `appendStable`) as written at `at`, a position in `bytes` not
    /// before any earlier reference's: for a caller that appends the bytes around it at once.
    @inline(__always)
    package mutating func appendReference(at: Int, _ run: UnsafeBufferPointer<UInt8>) {
        references.append(Reference(at: at, start: run.baseAddress!, count: run.count))
        referencedCount += run.count
    }

    /// Empties the writer, keeping its capacity.
    public mutating func removeAll() {
        bytes.removeAll(keepingCapacity: true)
        references.removeAll(keepingCapacity: true)
        referencedCount = 0
    }

    /// The output in order, as runs of bytes (`bytes` cut at each reference). Inlinable: a writer
    /// flushed with `writev` visits several runs per record.
    @inlinable
    public func forEachSegment(_ body: (UnsafeBufferPointer<UInt8>) -> Void) {
        bytes.withUnsafeBufferPointer { own in
            var position = 0
            for reference in references {
                if reference.at > position { body(UnsafeBufferPointer(rebasing: own[position..<reference.at])) }
                body(UnsafeBufferPointer(start: reference.start, count: reference.count))
                position = reference.at
            }
            if position < own.count { body(UnsafeBufferPointer(rebasing: own[position...])) }
        }
    }

    /// The whole output as one array: `bytes` with the referenced runs in their places.
    public var joinedBytes: [UInt8] {
        if references.isEmpty { return bytes }
        var out: [UInt8] = []
        out.reserveCapacity(count)
        forEachSegment { out.append(contentsOf: $0) }
        return out
    }

    /// Appends JSON text as it is (punctuation, `null`, a key with its quotes): nothing is escaped.
    @inlinable
    public mutating func raw(_ text: StaticString) {
        bytes.append(contentsOf: UnsafeBufferPointer(start: text.utf8Start, count: text.utf8CodeUnitCount))
    }

    /// Text that is already JSON (a number as read, a rendered value). String literals go to
    /// `raw(_: StaticString)`, which copies without walking a `String`.
    public mutating func rawText(_ text: String) {
        bytes.append(contentsOf: text.utf8)
    }

    /// A JSON string literal with the escapes RFC 8259 requires.
    public mutating func string(_ text: String) {
        bytes.append(0x22)
        escapedContents(text)
        bytes.append(0x22)
    }

    /// The contents of a JSON string literal (no quotes): runs without escapes are copied in bulk.
    public mutating func escapedContents(_ text: String) {
        // Straight from the string's storage when it is contiguous (native strings are): no copy.
        let done: Void? = text.utf8.withContiguousStorageIfAvailable { escapedContents($0) }
        if done == nil {
            var text = text
            text.withUTF8 { escapedContents($0) }
        }
    }

    /// Appends UTF-8 bytes as the inside of a JSON string: quotes, backslashes and control
    /// characters escaped, no quotes around.
    public mutating func escapedContents(_ utf8: UnsafeBufferPointer<UInt8>) {
        var runStart = 0
        for (i, byte) in utf8.enumerated() where byte < 0x20 || byte == 0x22 || byte == 0x5C {
            if i > runStart { bytes.append(contentsOf: UnsafeBufferPointer(rebasing: utf8[runStart..<i])) }
            runStart = i + 1
            switch byte {
            case 0x22: bytes.append(0x5C); bytes.append(0x22)
            case 0x5C: bytes.append(0x5C); bytes.append(0x5C)
            case 0x0A: bytes.append(0x5C); bytes.append(0x6E)
            case 0x0D: bytes.append(0x5C); bytes.append(0x72)
            case 0x09: bytes.append(0x5C); bytes.append(0x74)
            case 0x08: bytes.append(0x5C); bytes.append(0x62)
            case 0x0C: bytes.append(0x5C); bytes.append(0x66)
            default:
                let hex: StaticString = "0123456789abcdef"
                bytes.append(contentsOf: [0x5C, 0x75, 0x30, 0x30, hex.utf8Start[Int(byte >> 4)], hex.utf8Start[Int(byte & 0xF)]])
            }
        }
        if runStart < utf8.count { bytes.append(contentsOf: UnsafeBufferPointer(rebasing: utf8[runStart...])) }
    }

    /// Whether `utf8` holds a byte that JSON string contents must escape.
    @inline(__always)
    public static func needsEscapes(_ utf8: UnsafeBufferPointer<UInt8>) -> Bool {
        for byte in utf8 where byte < 0x20 || byte == 0x22 || byte == 0x5C { return true }
        return false
    }

    /// `text` as JSON string contents (escaped, without quotes).
    public static func escaped(_ text: String) -> [UInt8] {
        var writer = JSONWriter(capacity: text.utf8.count)
        writer.escapedContents(text)
        return writer.bytes
    }

    /// Appends a JSON string, or `null` for nil.
    public mutating func optionalString(_ text: String?) {
        if let text { string(text) } else { raw("null") }
    }

    /// Appends an integer in decimal.
    public mutating func integer(_ value: Int64) {
        rawText(String(value))
    }

    /// Appends `true` or `false`.
    public mutating func bool(_ value: Bool) {
        if value { raw("true") } else { raw("false") }
    }

    /// A `JSONValue` in compact form; numbers are written exactly as they were read.
    public mutating func value(_ value: JSONValue) {
        switch value {
        case .null: raw("null")
        case .bool(let b): bool(b)
        case .number(let text): rawText(text)
        case .string(let s): string(s)
        case .array(let elements):
            bytes.append(0x5B)
            for (i, element) in elements.enumerated() {
                if i > 0 { bytes.append(0x2C) }
                self.value(element.value)
            }
            bytes.append(0x5D)
        case .object(let members):
            bytes.append(0x7B)
            for (i, member) in members.enumerated() {
                if i > 0 { bytes.append(0x2C) }
                string(member.key)
                bytes.append(0x3A)
                self.value(member.value)
            }
            bytes.append(0x7D)
        }
    }
}

extension JSONValue {
    /// The value as compact JSON text.
    public var compactText: String {
        var writer = JSONWriter()
        writer.value(self)
        return String(decoding: writer.bytes, as: UTF8.self)
    }
}
