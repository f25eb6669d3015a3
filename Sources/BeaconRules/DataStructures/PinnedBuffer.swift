/// Elements copied into memory of their own that never moves and is never written again, for a
/// pointer that reads them without reference counting (an array read on the hot path while its
/// owner changes is retained and released at every read). Freed with the last reference to it:
/// whoever keeps the pointer keeps this object too.
final class PinnedBuffer<Element> {
    /// The elements, valid as long as this object lives.
    let elements: UnsafeBufferPointer<Element>

    init(_ source: [Element]) {
        let base = UnsafeMutablePointer<Element>.allocate(capacity: max(source.count, 1))
        source.withUnsafeBufferPointer { if let start = $0.baseAddress { base.initialize(from: start, count: source.count) } }
        elements = UnsafeBufferPointer(start: base, count: source.count)
    }

    deinit {
        let base = UnsafeMutablePointer(mutating: elements.baseAddress!)
        base.deinitialize(count: elements.count)
        base.deallocate()
    }
}
