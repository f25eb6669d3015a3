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
