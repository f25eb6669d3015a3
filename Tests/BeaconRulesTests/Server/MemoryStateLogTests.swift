import BeaconRules
@testable import BeaconRulesServer
import BenchmarkWorkload
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

    /// Answers given and forgotten (by the answer retention, a short step at a time) while the
    /// id table doubles, ids answered again among them: the log answers as a dictionary of the
    /// latest answer per id, less those given before the retention, does at every step.
    @Test func answersForgottenWhileTheIdTableGrowsAreGoneAndTheOthersStay() {
        let log = MemoryStateLog()
        defer { log.close() }
        var model: [String: (at: Int64, records: [UInt8])] = [:]
        var generator = SeededRandom(seed: 5)
        var now: Int64 = 1_000_000
        let retention: Int64 = 3_000
        for step in 0..<30_000 {
            now += Int64.random(in: 0...1, using: &generator)
            log.setClock(Timestamp(milliseconds: now))
            // One id in ten is an earlier one answered again: its latest answer is the one kept.
            let id = step % 10 == 0 && step > 0 ? "e-\(Int.random(in: 0..<step, using: &generator))" : "e-\(step)"
            let records = Array("{\"n\":\(step)}\n".utf8)
            log.remember(event: id, records: records)
            model[id] = (now, records)
            if step % 7 == 0 {
                _ = log.forgetAnswers(before: Timestamp(milliseconds: now - retention), limit: 16)
            }
            if step % 1_000 == 999 {
                // Everything due goes, then the log holds what the model keeps.
                while log.forgetAnswers(before: Timestamp(milliseconds: now - retention), limit: 64) > 0 {}
                model = model.filter { $0.value.at >= now - retention }
                #expect(log.answerCount == model.count, "at step \(step)")
                for n in Swift.max(0, step - 5_000)...step {
                    #expect(log.answer(event: "e-\(n)") == model["e-\(n)"]?.records, "e-\(n) at step \(step)")
                }
            }
        }
        #expect(model.count > 2_000)
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
