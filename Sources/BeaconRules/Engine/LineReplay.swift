extension RulesEngine {
    /// One input line in, its records out as JSON lines appended to `writer`: the step that
    /// `replay`, the server and the tests share. Blank lines are skipped (returns false).
    @discardableResult
    public mutating func replay(
        line: UnsafeBufferPointer<UInt8>, fallbackID: @autoclosure () -> String, into writer: inout JSONWriter
    ) throws(EventError) -> Bool {
        if EventParser.isBlank(line) { return false }
        let event = try EventParser.parse(line: line, fallbackID: fallbackID())
        write(event, into: &writer)
        return true
    }
}
