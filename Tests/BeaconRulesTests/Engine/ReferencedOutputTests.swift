@testable import BeaconRules
import Testing

/// A writer that collects references (what `replay` writes with `writev`) gives exactly the bytes
/// of one that copies everything.
@Suite("Referenced output")
struct ReferencedOutputTests {
    @Test func segmentsKeepTheOrderOfBytesAndReferences() {
        let kept = Array(repeating: UInt8(ascii: "x"), count: 300) + [0x0A]
        kept.withUnsafeBufferPointer { stable in
            var w = JSONWriter()
            w.collectsReferences = true
            w.raw("{\"a\":1")
            w.appendStable(stable)
            w.raw("{\"b\":2")
            w.appendStable(UnsafeBufferPointer(rebasing: stable[0..<10]))
            w.appendStable(stable)
            #expect(w.references.count == 2)
            #expect(w.count == 6 + 301 + 6 + 10 + 301)
            var joined: [UInt8] = []
            w.forEachSegment { joined.append(contentsOf: $0) }
            #expect(joined == Array("{\"a\":1".utf8) + kept + Array("{\"b\":2".utf8) + Array(kept[0..<10]) + kept)
            w.removeAll()
            #expect(w.count == 0 && w.references.isEmpty)
        }
    }

    @Test func theMuseumTraceIsTheSameWithReferences() throws {
        let events = Paths.bytes(Paths.fixture("museum-day.jsonl"))
        var engine = try Harness.engine(paths: [Paths.campaigns])
        var writer = JSONWriter()
        writer.collectsReferences = true
        for (offset, line) in events.split(separator: 0x0A, omittingEmptySubsequences: false).enumerated() where !line.isEmpty {
            let id = "Tests/Fixtures/museum-day.jsonl:\(offset + 1)"
            let event = try Array(line).withUnsafeBufferPointer { try EventParser.parse(line: $0, fallbackID: id) }
            engine.write(event, into: &writer)
        }
        #expect(!writer.references.isEmpty)
        var joined: [UInt8] = []
        writer.forEachSegment { joined.append(contentsOf: $0) }
        #expect(String(decoding: joined, as: UTF8.self) == Paths.read(Paths.fixture("museum-day.records.jsonl")))
    }
}
