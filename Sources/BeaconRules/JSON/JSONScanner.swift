/// Byte-level JSON lexing over a buffer the caller keeps alive.
///
/// Shared by the document parser (campaign files) and the event parser (the hot path), so both
/// accept exactly the same JSON and report positions the same way.
@usableFromInline
struct JSONScanner {
    @usableFromInline let bytes: UnsafeBufferPointer<UInt8>
    @usableFromInline var position: Int = 0
    /// 1-based line of `position`, kept up to date by `skipWhitespace`.
    @usableFromInline var line: Int = 1
    /// Offset where the current line starts.
    @usableFromInline var lineStart: Int = 0

    @inlinable
    init(_ bytes: UnsafeBufferPointer<UInt8>) {
        self.bytes = bytes
    }

    @inlinable var isAtEnd: Bool { position >= bytes.count }

    @inlinable var current: UInt8? { position < bytes.count ? bytes[position] : nil }

    /// 1-based column of `position`, counted in bytes.
    @inlinable var column: Int { position - lineStart + 1 }

    @inlinable
    func error(_ message: String, at offset: Int? = nil) -> JSONSyntaxError {
        let at = offset ?? position
        return JSONSyntaxError(message: message, line: line, column: at - lineStart + 1)
    }

    @inlinable
    mutating func skipWhitespace() {
        while position < bytes.count {
            switch bytes[position] {
            case 0x20, 0x09, 0x0D:
                position += 1
            case 0x0A:
                position += 1
                line += 1
                lineStart = position
            default:
                return
            }
        }
    }

    /// Describes what stands at the current position, for "expected X, found Y" messages.
    @usableFromInline
    func foundDescription() -> String {
        guard let byte = current else { return "the end of the input" }
        if byte >= 0x21 && byte < 0x7F { return "`\(Character(Unicode.Scalar(byte)))`" }
        return "byte 0x\(String(byte, radix: 16, uppercase: true))"
    }

    @inlinable
    mutating func expect(_ byte: UInt8, _ what: @autoclosure () -> String) throws(JSONSyntaxError) {
        guard current == byte else {
            throw error("expected \(what()), found \(foundDescription())")
        }
        position += 1
    }

    /// Scans a string starting at its opening quote. Returns the byte range of its contents
    /// (without quotes) and whether it contains escapes.
    @inlinable
    mutating func scanString() throws(JSONSyntaxError) -> (range: Range<Int>, escaped: Bool) {
        let open = position
        position += 1
        let start = position
        var escaped = false
        position = firstStringStop(bytes, from: position, stopsAtNonASCII: false)
        while position < bytes.count {
            let byte = bytes[position]
            if byte == 0x22 {
                let range = start..<position
                position += 1
                return (range, escaped)
            } else if byte == 0x5C {
                escaped = true
                position += 2
            } else if byte < 0x20 {
                throw error("control character (0x\(String(byte, radix: 16))) inside a string; escape it")
            } else {
                position += 1
            }
        }
        throw error("unterminated string", at: open)
    }

    /// Decodes the contents of a string scanned by `scanString`, validating UTF-8 and escapes.
    mutating func decodeString(_ range: Range<Int>, escaped: Bool) throws(JSONSyntaxError) -> String {
        let slice = UnsafeBufferPointer(rebasing: bytes[range])
        if !escaped {
            // ASCII needs no validation, and `String(validating:)` runs unspecialized (generic
            // metadata lookups on every call): most ids and tags take this path.
            if isASCII(slice) { return String(decoding: slice, as: UTF8.self) }
            guard let s = String(validating: slice, as: UTF8.self) else {
                throw error("string is not valid UTF-8", at: range.lowerBound)
            }
            return s
        }
        var out: [UInt8] = []
        out.reserveCapacity(range.count)
        var i = range.lowerBound
        while i < range.upperBound {
            let byte = bytes[i]
            guard byte == 0x5C else {
                out.append(byte)
                i += 1
                continue
            }
            guard i + 1 < range.upperBound else { throw error("dangling backslash in string", at: i) }
            let escape = bytes[i + 1]
            i += 2
            switch escape {
            case 0x22: out.append(0x22)
            case 0x5C: out.append(0x5C)
            case 0x2F: out.append(0x2F)
            case 0x62: out.append(0x08)
            case 0x66: out.append(0x0C)
            case 0x6E: out.append(0x0A)
            case 0x72: out.append(0x0D)
            case 0x74: out.append(0x09)
            case 0x75:
                var scalar = try hex4(at: i)
                i += 4
                if (0xD800...0xDBFF).contains(scalar) {
                    guard i + 6 <= range.upperBound, bytes[i] == 0x5C, bytes[i + 1] == 0x75 else {
                        throw error("unpaired surrogate \\u\(String(scalar, radix: 16)) in string", at: i - 6)
                    }
                    let low = try hex4(at: i + 2)
                    guard (0xDC00...0xDFFF).contains(low) else {
                        throw error("unpaired surrogate \\u\(String(scalar, radix: 16)) in string", at: i - 6)
                    }
                    i += 6
                    scalar = 0x10000 + ((scalar - 0xD800) << 10) + (low - 0xDC00)
                } else if (0xDC00...0xDFFF).contains(scalar) {
                    throw error("unpaired surrogate \\u\(String(scalar, radix: 16)) in string", at: i - 6)
                }
                out.append(contentsOf: UTF8.encode(Unicode.Scalar(scalar)!)!)
            default:
                throw error("invalid escape `\\\(Character(Unicode.Scalar(escape)))` in string", at: i - 2)
            }
        }
        guard let s = String(validating: out, as: UTF8.self) else {
            throw error("string is not valid UTF-8", at: range.lowerBound)
        }
        return s
    }

    private func hex4(at offset: Int) throws(JSONSyntaxError) -> UInt32 {
        guard offset + 4 <= bytes.count else { throw error("incomplete \\u escape", at: offset - 2) }
        var value: UInt32 = 0
        for k in 0..<4 {
            guard let digit = hexDigitValue(bytes[offset + k]) else {
                throw error("invalid \\u escape: expected 4 hex digits", at: offset - 2)
            }
            value = value << 4 | UInt32(digit)
        }
        return value
    }

    /// Scans a JSON number and returns its byte range.
    @inlinable
    mutating func scanNumber() throws(JSONSyntaxError) -> Range<Int> {
        let start = position
        if current == 0x2D { position += 1 }
        guard let first = current, isDigit(first) else {
            throw error("invalid number: expected a digit after `-`", at: start)
        }
        if first == 0x30 {
            position += 1
            if let next = current, isDigit(next) {
                throw error("invalid number: leading zeros are not allowed", at: start)
            }
        } else {
            while let b = current, isDigit(b) { position += 1 }
        }
        if current == 0x2E {
            position += 1
            guard let b = current, isDigit(b) else { throw error("invalid number: expected a digit after `.`", at: start) }
            while let b = current, isDigit(b) { position += 1 }
        }
        if current == 0x65 || current == 0x45 {
            position += 1
            if current == 0x2B || current == 0x2D { position += 1 }
            guard let b = current, isDigit(b) else { throw error("invalid number: expected a digit in the exponent", at: start) }
            while let b = current, isDigit(b) { position += 1 }
        }
        return start..<position
    }

    /// Scans a literal `true`, `false` or `null` at the current position.
    @inlinable
    mutating func scanLiteral() throws(JSONSyntaxError) -> JSONValue {
        func matches(_ word: StaticString) -> Bool {
            let n = word.utf8CodeUnitCount
            guard position + n <= bytes.count else { return false }
            let p = word.utf8Start
            for k in 0..<n where bytes[position + k] != p[k] { return false }
            return true
        }
        if matches("true") { position += 4; return .bool(true) }
        if matches("false") { position += 5; return .bool(false) }
        if matches("null") { position += 4; return .null }
        throw error("expected a JSON value, found \(foundDescription())")
    }

    /// Skips any JSON value, validating its syntax, without building it.
    mutating func skipValue(depth: Int = 0) throws(JSONSyntaxError) {
        guard depth < JSONParser.maximumDepth else { throw error("nesting deeper than \(JSONParser.maximumDepth) levels") }
        skipWhitespace()
        switch current ?? 0 {
        case 0x22:
            let (range, escaped) = try scanString()
            if escaped { _ = try decodeString(range, escaped: true) }
            else if String(validating: UnsafeBufferPointer(rebasing: bytes[range]), as: UTF8.self) == nil {
                throw error("string is not valid UTF-8", at: range.lowerBound)
            }
        case 0x7B:
            position += 1
            skipWhitespace()
            if current == 0x7D { position += 1; return }
            while true {
                skipWhitespace()
                guard current == 0x22 else { throw error("expected a member name in quotes, found \(foundDescription())") }
                _ = try scanString()
                skipWhitespace()
                try expect(0x3A, "`:` after a member name")
                try skipValue(depth: depth + 1)
                skipWhitespace()
                if current == 0x2C { position += 1; continue }
                try expect(0x7D, "`,` or `}` in object")
                return
            }
        case 0x5B:
            position += 1
            skipWhitespace()
            if current == 0x5D { position += 1; return }
            while true {
                try skipValue(depth: depth + 1)
                skipWhitespace()
                if current == 0x2C { position += 1; continue }
                try expect(0x5D, "`,` or `]` in array")
                return
            }
        case 0x2D, 0x30...0x39:
            _ = try scanNumber()
        case 0:
            throw error("expected a JSON value, found \(foundDescription())")
        default:
            _ = try scanLiteral()
        }
    }
}

@inlinable func isDigit(_ b: UInt8) -> Bool { b &- 0x30 < 10 }

/// The offset of the first byte from `start` on that ends a plain run of a JSON string: a quote,
/// a backslash or a control character (and, with `stopsAtNonASCII`, a byte of a multi-byte
/// character); `bytes.count` when there is none. Eight bytes at a time.
@inline(__always) @usableFromInline
func firstStringStop(_ bytes: UnsafeBufferPointer<UInt8>, from start: Int, stopsAtNonASCII: Bool) -> Int {
    var i = start
    guard let base = bytes.baseAddress else { return i }
    let raw = UnsafeRawPointer(base)
    let highs: UInt64 = 0x8080_8080_8080_8080
    while i + 8 <= bytes.count {
        let word = raw.loadUnaligned(fromByteOffset: i, as: UInt64.self)
        let quote = word ^ 0x2222_2222_2222_2222
        let backslash = word ^ 0x5C5C_5C5C_5C5C_5C5C
        let ones: UInt64 = 0x0101_0101_0101_0101
        var stops = (((quote &- ones) & ~quote) | ((backslash &- ones) & ~backslash) | ((word &- 0x2020_2020_2020_2020) & ~word)) & highs
        if stopsAtNonASCII { stops |= word & highs }
        // The lowest flagged byte is the first stop (false flags only sit above a true one).
        if stops != 0 { return i + stops.trailingZeroBitCount >> 3 }
        i += 8
    }
    while i < bytes.count {
        let byte = bytes[i]
        if byte == 0x22 || byte == 0x5C || byte < 0x20 || (stopsAtNonASCII && byte >= 0x80) { return i }
        i += 1
    }
    return i
}

/// True when every byte is below 0x80, checked eight bytes at a time.
@usableFromInline func isASCII(_ bytes: UnsafeBufferPointer<UInt8>) -> Bool {
    guard let base = bytes.baseAddress else { return true }
    var i = 0
    let n = bytes.count
    let raw = UnsafeRawPointer(base)
    while i + 8 <= n {
        if raw.loadUnaligned(fromByteOffset: i, as: UInt64.self) & 0x8080_8080_8080_8080 != 0 { return false }
        i += 8
    }
    while i < n {
        if base[i] >= 0x80 { return false }
        i += 1
    }
    return true
}

@inlinable func hexDigitValue(_ b: UInt8) -> UInt8? {
    switch b {
    case 0x30...0x39: b - 0x30
    case 0x61...0x66: b - 0x61 + 10
    case 0x41...0x46: b - 0x41 + 10
    default: nil
    }
}
