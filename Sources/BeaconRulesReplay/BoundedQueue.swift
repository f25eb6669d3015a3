import Foundation

/// A first-in first-out queue between two threads that holds at most `capacity` items: `push`
/// waits while it is full, `pop` while it is empty. This is what keeps `replay --jobs`'s memory
/// flat: the reader can run at most `capacity` blocks ahead of a shard, a shard ahead of the
/// writer. `close` ends it: pushes are refused, and pops drain what is left, then return nil.
///
/// `@unchecked Sendable`: every stored property is read and written only with `condition`
/// locked (each method locks it for its whole body), so the threads never race on them; the
/// items themselves are `Sendable`.
final class BoundedQueue<Element: Sendable>: @unchecked Sendable {
    private let condition = NSCondition()
    private var items: [Element?]
    private var head = 0
    private var count = 0
    private var closed = false

    init(capacity: Int) {
        precondition(capacity > 0)
        items = Array(repeating: nil, count: capacity)
    }

    /// Waits for room, then appends `item`. False: the queue was closed (nothing will take it).
    @discardableResult
    func push(_ item: Element) -> Bool {
        condition.lock()
        defer { condition.unlock() }
        while count == items.count && !closed { condition.wait() }
        if closed { return false }
        items[(head + count) % items.count] = item
        count += 1
        condition.broadcast()
        return true
    }

    /// Appends `item` only if there is room now (a spare buffer handed back: dropped when full).
    func offer(_ item: Element) {
        condition.lock()
        defer { condition.unlock() }
        guard count < items.count, !closed else { return }
        items[(head + count) % items.count] = item
        count += 1
        condition.broadcast()
    }

    /// Waits for an item and takes it; nil when the queue is closed and empty.
    func pop() -> Element? {
        condition.lock()
        defer { condition.unlock() }
        while count == 0 && !closed { condition.wait() }
        return takeLocked()
    }

    /// Takes an item if there is one now.
    func poll() -> Element? {
        condition.lock()
        defer { condition.unlock() }
        return takeLocked()
    }

    private func takeLocked() -> Element? {
        guard count > 0 else { return nil }
        let item = items[head]
        items[head] = nil
        head = (head + 1) % items.count
        count -= 1
        condition.broadcast()
        return item
    }

    /// No more pushes: waiting pushers return false, poppers drain what is queued, then get nil.
    func close() {
        condition.lock()
        closed = true
        condition.broadcast()
        condition.unlock()
    }
}
