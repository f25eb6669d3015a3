import BeaconRulesServer
import NIOCore
import Testing

@Suite("LineFramer")
struct LineFramerTests {
    /// Feeds the chunks and describes each frame: the line's text, or `<overlong>`.
    private func frames(_ chunks: [String], limit: Int = 8, finish: Bool = true) -> [String] {
        var framer = LineFramer(limit: limit)
        var result: [String] = []
        let emit = { (frame: LineFramer.Frame) in
            switch frame {
            case .line(let buffer): result.append(String(buffer: buffer))
            case .overlong: result.append("<overlong>")
            }
        }
        for chunk in chunks { framer.feed(ByteBuffer(string: chunk), emit) }
        if finish { framer.finish(emit) }
        return result
    }

    @Test func linesSplitAcrossChunksComeOutWhole() {
        #expect(frames(["ab", "c\nde", "f\n\ng"]) == ["abc", "def", "", "g"])
    }

    @Test func aLineAtTheLimitPassesAndOneByteMoreIsOverlong() {
        #expect(frames(["12345678\n123456789\nok\n"]) == ["12345678", "<overlong>", "ok"])
    }

    @Test func anOverlongLineIsReportedOnceAndSkippedToItsNewlineAcrossChunks() {
        #expect(frames(["1234", "5678", "9abc", "def", "\nnext\n"]) == ["<overlong>", "next"])
    }

    @Test func anOverlongLineIsReportedBeforeItsNewlineArrives() {
        // The error reply must not wait for a newline that may never come.
        #expect(frames(["123456789abcdef"], finish: false) == ["<overlong>"])
    }

    @Test func aLastLineWithoutNewlineCountsOnlyAtTheEnd() {
        #expect(frames(["a\nb"], finish: false) == ["a"])
        #expect(frames(["a\nb"], finish: true) == ["a", "b"])
    }
}
