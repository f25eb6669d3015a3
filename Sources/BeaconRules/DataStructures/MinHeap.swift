/// A binary min-heap: the presence layer's timers and its reorder buffer. Its items are in
/// chunks (`ChunkedArray`), so that a heap of hundreds of thousands of buffered sightings grows
/// without copying them all. Items are compared and swapped where they are (`isOrdered`,
/// `swapAt`): a buffered sighting refers to its strings, and a copy retains them.
struct MinHeap<Element: Comparable>: Sendable where Element: Sendable {
    private(set) var items = ChunkedArray<Element>(shift: 12)

    var isEmpty: Bool { items.isEmpty }
    var count: Int { items.count }
    var min: Element? { items.first }

    mutating func push(_ element: Element) {
        items.append(element)
        var i = items.count - 1
        while i > 0 {
            let parent = (i - 1) / 2
            guard items.isOrdered(i, before: parent) else { break }
            items.swapAt(i, parent)
            i = parent
        }
    }

    mutating func pop() -> Element? {
        guard !items.isEmpty else { return nil }
        items.swapAt(0, items.count - 1)
        let top = items.removeLast()
        var i = 0
        while true {
            let l = 2 * i + 1, r = l + 1
            var smallest = i
            if l < items.count && items.isOrdered(l, before: smallest) { smallest = l }
            if r < items.count && items.isOrdered(r, before: smallest) { smallest = r }
            if smallest == i { break }
            items.swapAt(i, smallest)
            i = smallest
        }
        return top
    }
}
