/// Finds where each start tag and attribute of a well-formed export stands in its bytes.
///
/// libxml2 keeps only a line per node (capped at 65535) and nothing per attribute, while every
/// message here promises a line and a column. Once libxml2 has accepted the document (no DOCTYPE,
/// so no entity can add elements), the n-th element in document order is the n-th start tag in the
/// text, and a start tag is easy to find: text and attribute values can never hold a raw `<`.
struct XMLSourceMap {
    /// One start tag: where its `<` is, where each attribute name is, and where its content starts.
    struct StartTag: Equatable {
        var offset: Int
        var attributes: [(name: String, offset: Int)]
        var contentOffset: Int

        static func == (a: StartTag, b: StartTag) -> Bool {
            a.offset == b.offset && a.contentOffset == b.contentOffset
                && a.attributes.map(\.name) == b.attributes.map(\.name) && a.attributes.map(\.offset) == b.attributes.map(\.offset)
        }
    }

    let bytes: [UInt8]
    /// The offset at which each line starts; empty until `indexed()`, so that a refusal early in a
    /// large document costs a scan of its first bytes only.
    private(set) var lineStarts: [Int] = []

    init(bytes: [UInt8]) {
        self.bytes = bytes
    }

    /// The same map with the line table built, for many lookups.
    func indexed() -> XMLSourceMap {
        var map = self
        var starts = [0]
        bytes.withUnsafeBufferPointer { buffer in
            for i in 0..<buffer.count where buffer[i] == 0x0A { starts.append(i + 1) }
        }
        map.lineStarts = starts
        return map
    }

    /// The 1-based line and column (in characters) of a byte offset.
    func position(of offset: Int) -> TextPosition {
        let clamped = max(0, min(offset, bytes.count))
        var line = 1, lineStart = 0
        if lineStarts.isEmpty {
            for i in 0..<clamped where bytes[i] == 0x0A { line += 1; lineStart = i + 1 }
        } else {
            var low = 0, high = lineStarts.count - 1
            while low < high {
                let mid = (low + high + 1) / 2
                if lineStarts[mid] <= clamped { low = mid } else { high = mid - 1 }
            }
            line = low + 1
            lineStart = lineStarts[low]
        }
        var column = 1
        for i in lineStart..<clamped where bytes[i] & 0xC0 != 0x80 {
            // Count characters, not bytes: UTF-8 continuation bytes do not start one.
            column += 1
        }
        return TextPosition(line: line, column: column)
    }

    /// The offset of the `<` that opens the markup ending at or before `offset` (libxml2 reports
    /// positions just after a start tag).
    func markupStart(before offset: Int) -> Int {
        var i = min(offset, bytes.count) - 1
        while i > 0 && bytes[i] != 0x3C { i -= 1 }
        return max(i, 0)
    }

    /// The offset of the last `pattern` that starts before `offset`, if any.
    func lastOccurrence(of pattern: String, before offset: Int) -> Int? {
        let p = Array(pattern.utf8)
        var i = min(offset, bytes.count) - p.count
        while i >= 0 {
            if bytes[i] == p[0] && Array(bytes[i..<(i + p.count)]) == p { return i }
            i -= 1
        }
        return nil
    }

    /// Every start tag in document order.
    func startTags() -> [StartTag] {
        var tags: [StartTag] = []
        var i = 0
        let n = bytes.count
        func starts(_ text: String, at index: Int) -> Bool {
            let p = Array(text.utf8)
            return index + p.count <= n && Array(bytes[index..<(index + p.count)]) == p
        }
        func skip(past terminator: String, from index: Int) -> Int {
            let t = Array(terminator.utf8)
            var j = index
            while j + t.count <= n {
                if bytes[j] == t[0] && Array(bytes[j..<(j + t.count)]) == t { return j + t.count }
                j += 1
            }
            return n
        }
        func isSpace(_ b: UInt8) -> Bool { b == 0x20 || b == 0x09 || b == 0x0A || b == 0x0D }
        while i < n {
            guard bytes[i] == 0x3C else { i += 1; continue }
            if starts("<!--", at: i) { i = skip(past: "-->", from: i + 4); continue }
            if starts("<![CDATA[", at: i) { i = skip(past: "]]>", from: i + 9); continue }
            if starts("<?", at: i) { i = skip(past: "?>", from: i + 2); continue }
            if starts("<!", at: i) || starts("</", at: i) { i = skip(past: ">", from: i + 2); continue }
            let tagStart = i
            i += 1
            while i < n && !isSpace(bytes[i]) && bytes[i] != 0x3E && bytes[i] != 0x2F { i += 1 }
            var attributes: [(name: String, offset: Int)] = []
            while i < n {
                while i < n && isSpace(bytes[i]) { i += 1 }
                guard i < n else { break }
                if bytes[i] == 0x3E { i += 1; break }
                if bytes[i] == 0x2F { i += 1; continue }
                let nameStart = i
                while i < n && !isSpace(bytes[i]) && bytes[i] != 0x3D && bytes[i] != 0x3E { i += 1 }
                attributes.append((String(decoding: bytes[nameStart..<i], as: UTF8.self), nameStart))
                while i < n && (isSpace(bytes[i]) || bytes[i] == 0x3D) { i += 1 }
                guard i < n, bytes[i] == 0x22 || bytes[i] == 0x27 else { continue }
                let quote = bytes[i]
                i += 1
                while i < n && bytes[i] != quote { i += 1 }
                i += 1
            }
            tags.append(StartTag(offset: tagStart, attributes: attributes, contentOffset: i))
        }
        return tags
    }

    /// Fills in the positions of `root` and its descendants, matching elements to start tags in
    /// document order.
    func locate(_ root: inout ParsedElement) {
        let map = lineStarts.isEmpty ? indexed() : self
        let tags = map.startTags()
        var next = 0
        func visit(_ element: inout ParsedElement) {
            guard next < tags.count else { return }
            let tag = tags[next]
            next += 1
            element.position = map.position(of: tag.offset)
            element.contentPosition = map.position(of: tag.contentOffset)
            for index in element.attributes.indices {
                if let hit = tag.attributes.first(where: { $0.name == element.attributes[index].name }) {
                    element.attributes[index].position = map.position(of: hit.offset)
                } else {
                    element.attributes[index].position = element.position
                }
            }
            for index in element.children.indices { visit(&element.children[index]) }
        }
        visit(&root)
    }
}
