/// Unsigned LEB128: seven bits a byte, the high bit set on every byte but the last. The state
/// file's compact encodings use it: an answer's tail references (`RecordTails`) and the journal's
/// entries (`JournalEntry`, zigzag first for signed numbers).
enum LEB128 {
    /// Appends `value` to `bytes`.
    static func append(_ value: UInt64, to bytes: inout [UInt8]) {
        var value = value
        while value >= 0x80 {
            bytes.append(UInt8(truncatingIfNeeded: value) | 0x80)
            value >>= 7
        }
        bytes.append(UInt8(value))
    }

    /// The number at `cursor` (moved past it), or nil when the bytes end first.
    static func read(_ bytes: ArraySlice<UInt8>, at cursor: inout Int) -> UInt64? {
        var value: UInt64 = 0
        var shift: UInt64 = 0
        while cursor < bytes.endIndex, shift < 64 {
            let byte = bytes[cursor]
            cursor += 1
            value |= UInt64(byte & 0x7F) << shift
            if byte & 0x80 == 0 { return value }
            shift += 7
        }
        return nil
    }
}
