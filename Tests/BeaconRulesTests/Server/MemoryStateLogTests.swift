import BeaconRules
@testable import BeaconRulesServer
import Testing

/// The answer log of a server without `--state`.
@Suite("MemoryStateLog")
struct MemoryStateLogTests {
    @Test func everyAnswerComesBackByteForByteAcrossChunksAndOversizedRecords() {
        let log = MemoryStateLog()
        defer { log.close() }
        // The first answer is empty: an event that fired nothing, before any chunk exists.
        log.remember(event: "first", records: [])
        #expect(log.answer(event: "first") == [])
        var expected: [String: [UInt8]] = [:]
        // About 5 MiB of answers of varied sizes: they fill several 2 MiB chunks, one is larger
        // than a chunk, and one is empty (an event that fired nothing).
        for n in 0..<6_000 {
            let size = n == 3_000 ? ByteArena.chunkSize + 17 : n == 10 ? 0 : 200 + (n * 37) % 1_500
            let records = (0..<size).map { UInt8(truncatingIfNeeded: $0 &* 31 &+ n) }
            expected["e-\(n)"] = records
            log.remember(event: "e-\(n)", records: records)
        }
        for (id, records) in expected { #expect(log.answer(event: id) == records) }
        #expect(log.answer(event: "never-seen") == nil)
    }

    @Test func serveWithoutStateAnswersARepeatedIDWithTheSameRecords() async throws {
        let lines = MuseumTrace.devices(2, events: 20, prefix: "mem").flatMap { $0 }
        let server = try await ServerProcess.start([])
        let first = try await LineClient.exchange(port: server.port, lines: lines)
        let again = try await LineClient.exchange(port: server.port, lines: lines.reversed())
        await server.stop()
        #expect(first.count == lines.count)
        #expect(again == first.reversed())
    }
}

/// Answers that refer to bytes the engine keeps (record tails): given back joined, and what they
/// point into is kept alive by the log.
@Suite("MemoryStateLog, references")
struct MemoryStateLogReferencesTests {
    final class Storage {
        let bytes: UnsafeMutableBufferPointer<UInt8>
        init(_ text: String) {
            bytes = .allocate(capacity: text.utf8.count)
            _ = bytes.initialize(from: text.utf8)
        }
        deinit { bytes.deallocate() }
        func run(_ range: Range<Int>) -> UnsafeBufferPointer<UInt8> { UnsafeBufferPointer(rebasing: bytes[range]) }
    }

    @Test func referencedRunsComeBackInTheirPlacesAndTheirStorageIsKept() {
        let log = MemoryStateLog()
        defer { log.close() }
        weak var kept: Storage?
        do {
            let storage = Storage(",\"a\":\"a long tail of the first record\"}\n,\"b\":2}\n")
            kept = storage
            var w = JSONWriter()
            w.collectsReferences = true
            w.shortestReference = 4
            w.raw(#"{"head":1"#)
            w.appendStable(storage.run(0..<40))
            w.raw(#"{"head":2"#)
            w.appendStable(storage.run(40..<48))
            // Too short to be referenced: copied.
            w.raw(#"{"h":3"#)
            w.appendStable(storage.run(45..<48))
            #expect(w.references.count == 2)
            log.remember(event: "e", written: w, holding: storage)
            // Plain bytes in between do not disturb the references.
            log.remember(event: "plain", records: Array("{}\n".utf8))
        }
        #expect(kept != nil)
        let expected = #"{"head":1,"a":"a long tail of the first record"}"# + "\n" + #"{"head":2,"b":2}"# + "\n" + #"{"h":32}"# + "\n"
        #expect(log.answer(event: "e").map { String(decoding: $0, as: UTF8.self) } == expected)
        #expect(log.answer(event: "plain") == Array("{}\n".utf8))
    }
}
