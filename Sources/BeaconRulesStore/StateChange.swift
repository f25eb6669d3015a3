/// One write of a transaction on the event path, as the journal keeps it (issue 32, state file
/// version 5): a suppression row upserted, an answer added (with the row number it takes), a
/// ledger line deleted or saved (by its row number). Every other write (record tails, the outbox,
/// the presence snapshot, retention's deletes, apps) goes to the tables directly
/// (`SQLiteStateStore+Journal`).
enum StateChange: Equatable {
    case firing(app: Int64, device: String, campaign: String, time: Int64)
    case answer(row: Int64, app: Int64, event: String, stored: [UInt8], at: Int64)
    case ledgerDeleted(seq: Int64)
    case ledgerSaved(seq: Int64, app: Int64, key: String, line: [UInt8])

    /// About the bytes the change takes in an entry (for the bound on a journaled transaction).
    var size: Int {
        switch self {
        case .firing(_, let device, let campaign, _): 12 + device.utf8.count + campaign.utf8.count
        case .answer(_, _, let event, let stored, _): 20 + event.utf8.count + stored.count
        case .ledgerDeleted: 6
        case .ledgerSaved(_, _, let key, let line): 16 + key.utf8.count + line.count
        }
    }
}

/// A journal row's `change`: the whole change of one committed transaction, in a small binary
/// encoding of its own. A format byte (1), the number of changes, each change as a tag byte and
/// its fields (integers as zigzag LEB128, text and bytes as their length then the bytes), then a
/// 32-bit FNV-1a checksum of everything before it (little-endian), so that a truncated or damaged
/// entry is refused (`decode`) instead of being folded into the tables.
enum JournalEntry {
    static let format: UInt8 = 1

    static func encode(_ changes: [StateChange], capacity: Int = 0) -> [UInt8] {
        var bytes: [UInt8] = []
        bytes.reserveCapacity(capacity + 16)
        bytes.append(format)
        appendNumber(Int64(changes.count), to: &bytes)
        for change in changes {
            switch change {
            case .firing(let app, let device, let campaign, let time):
                bytes.append(1)
                appendNumber(app, to: &bytes)
                appendText(device, to: &bytes)
                appendText(campaign, to: &bytes)
                appendNumber(time, to: &bytes)
            case .answer(let row, let app, let event, let stored, let at):
                bytes.append(2)
                appendNumber(row, to: &bytes)
                appendNumber(app, to: &bytes)
                appendText(event, to: &bytes)
                appendRun(stored, to: &bytes)
                appendNumber(at, to: &bytes)
            case .ledgerDeleted(let seq):
                bytes.append(3)
                appendNumber(seq, to: &bytes)
            case .ledgerSaved(let seq, let app, let key, let line):
                bytes.append(4)
                appendNumber(seq, to: &bytes)
                appendNumber(app, to: &bytes)
                appendText(key, to: &bytes)
                appendRun(line, to: &bytes)
            }
        }
        let sum = checksum(bytes[...])
        for shift in stride(from: 0, to: 32, by: 8) { bytes.append(UInt8(truncatingIfNeeded: sum >> UInt32(shift))) }
        return bytes
    }

    /// The changes of journal row `seq` of the file at `path`; a truncated or damaged entry is an
    /// error that names the row.
    static func decode(_ bytes: [UInt8], seq: Int64, path: String) throws(StoreError) -> [StateChange] {
        func damaged(_ why: String) -> StoreError {
            StoreError(path: path, message: "the journal's entry \(seq) is damaged (\(why)); the state cannot be recovered past it")
        }
        guard bytes.count >= 6 else { throw damaged("\(bytes.count) bytes, too short") }
        let body = bytes[..<(bytes.count - 4)]
        var stored: UInt32 = 0
        for k in 0..<4 { stored |= UInt32(bytes[bytes.count - 4 + k]) << UInt32(8 * k) }
        guard checksum(body) == stored else { throw damaged("its checksum does not match: truncated or overwritten") }
        guard body.first == format else { throw damaged("format \(body.first ?? 0), this beaconrules reads \(format)") }
        var cursor = 1
        func number() throws(StoreError) -> Int64 {
            guard let value = LEB128.read(body, at: &cursor) else { throw damaged("a number ends early") }
            return Int64(bitPattern: value >> 1) ^ -Int64(bitPattern: value & 1)
        }
        func run() throws(StoreError) -> ArraySlice<UInt8> {
            let count = try number()
            guard count >= 0, count <= body.endIndex - cursor else { throw damaged("a length runs past its end") }
            defer { cursor += Int(count) }
            return body[cursor..<(cursor + Int(count))]
        }
        func text() throws(StoreError) -> String {
            guard let text = String(validating: try run(), as: UTF8.self) else { throw damaged("a text is not UTF-8") }
            return text
        }
        let count = try number()
        guard count >= 0, count <= body.count else { throw damaged("\(count) changes") }
        var changes: [StateChange] = []
        changes.reserveCapacity(Int(count))
        for _ in 0..<count {
            guard cursor < body.endIndex else { throw damaged("it ends before its last change") }
            let tag = body[cursor]
            cursor += 1
            switch tag {
            case 1:
                let app = try number(), device = try text(), campaign = try text()
                changes.append(.firing(app: app, device: device, campaign: campaign, time: try number()))
            case 2:
                let row = try number(), app = try number(), event = try text(), stored = Array(try run())
                changes.append(.answer(row: row, app: app, event: event, stored: stored, at: try number()))
            case 3:
                changes.append(.ledgerDeleted(seq: try number()))
            case 4:
                let seq = try number(), app = try number(), key = try text()
                changes.append(.ledgerSaved(seq: seq, app: app, key: key, line: Array(try run())))
            default:
                throw damaged("an unknown change \(tag)")
            }
        }
        guard cursor == body.endIndex else { throw damaged("\(body.endIndex - cursor) bytes after its last change") }
        return changes
    }

    /// Zigzag LEB128: small numbers of either sign in few bytes.
    static func appendNumber(_ value: Int64, to bytes: inout [UInt8]) {
        LEB128.append(UInt64(bitPattern: (value << 1) ^ (value >> 63)), to: &bytes)
    }

    static func appendRun(_ run: [UInt8], to bytes: inout [UInt8]) {
        appendNumber(Int64(run.count), to: &bytes)
        bytes.append(contentsOf: run)
    }

    static func appendText(_ text: String, to bytes: inout [UInt8]) {
        appendNumber(Int64(text.utf8.count), to: &bytes)
        bytes.append(contentsOf: text.utf8)
    }

    /// 32-bit FNV-1a.
    static func checksum(_ bytes: ArraySlice<UInt8>) -> UInt32 {
        var hash: UInt32 = 0x811C_9DC5
        for byte in bytes {
            hash ^= UInt32(byte)
            hash = hash &* 0x0100_0193
        }
        return hash
    }
}
