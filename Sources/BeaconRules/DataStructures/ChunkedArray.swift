/// An array kept in chunks of a fixed power-of-two size: element `i` is element `i % size` of
/// chunk `i / size`. Appending takes a new chunk when the last is full and never moves what is
/// there: one growing array copies all its elements at each doubling (a pause as long as the
/// array, 10 to 100 ms for tens of megabytes on a busy machine, and as long again for the
/// kernel to take back the old copy's pages).
///
/// A value, as `Array` is: copies share the chunks until one of them changes. Then, for elements
/// that hold no references (`_isPOD`: plain numbers and structs of them), the copy that changes
/// takes its own copy of the chunks it changes, one chunk at a time, and shares the rest: a
/// transaction that keeps the delivery ledger as it was, for a retry, and changes a few of its
/// entries copies those entries' chunks, not the ledger (docs/performance.md). For other elements
/// the one that changes copies them all, as an `Array` would. The chunks are reached through plain
/// pointers, so that a read is two loads and no reference counting (an array of arrays retained and
/// released the chunk at every read: a tenth more instructions per event in `replay`); an array
/// that was never copied counts no references on a write either.
package struct ChunkedArray<Element> {
    /// A chunk that copies share: freed when the last storage holding it lets it go. Its
    /// references count those storages.
    private final class SharedChunk {
        let base: UnsafeMutableRawPointer
        init(_ base: UnsafeMutableRawPointer) { self.base = base }
        deinit { base.deallocate() }
    }

    private final class Storage {
        let shift: Int
        /// The chunks' first elements; nil for a chunk released (`releaseChunk`).
        var chunks: UnsafeMutablePointer<UnsafeMutablePointer<Element>?>
        var chunkRoom: Int
        /// Chunks allocated (the last may be partly filled).
        var chunkCount = 0
        /// Elements initialized (in released chunks too: they are not counted out).
        var count = 0
        /// Once this storage's chunks are shared with a copy (elements without references only):
        /// per chunk its `SharedChunk`, which frees it; a chunk is this storage's own to change when
        /// no other storage holds its `SharedChunk`. Nil until the first copy: then the chunks are
        /// this storage's alone and freed by it.
        var owners: UnsafeMutablePointer<SharedChunk?>?

        init(shift: Int) {
            self.shift = shift
            chunkRoom = 4
            chunks = .allocate(capacity: chunkRoom)
        }

        var chunkSize: Int { 1 << shift }

        /// Elements initialized in chunk `c`.
        @inline(__always)
        func filled(_ c: Int) -> Int { Swift.max(0, Swift.min(1 &<< shift, count &- c &<< shift)) }

        func addChunk() {
            if chunkCount == chunkRoom {
                let grown = UnsafeMutablePointer<UnsafeMutablePointer<Element>?>.allocate(capacity: chunkRoom * 2)
                grown.moveInitialize(from: chunks, count: chunkCount)
                chunks.deallocate()
                chunks = grown
                if let owners {
                    let more = UnsafeMutablePointer<SharedChunk?>.allocate(capacity: chunkRoom * 2)
                    more.moveInitialize(from: owners, count: chunkCount)
                    owners.deallocate()
                    self.owners = more
                }
                chunkRoom *= 2
            }
            let chunk = UnsafeMutablePointer<Element>.allocate(capacity: chunkSize)
            chunks[chunkCount] = chunk
            owners?.advanced(by: chunkCount).initialize(to: SharedChunk(UnsafeMutableRawPointer(chunk)))
            chunkCount += 1
        }

        func releaseChunk(_ c: Int) {
            guard let chunk = chunks[c] else { return }
            chunks[c] = nil
            if let owners {
                owners[c] = nil
                return
            }
            chunk.deinitialize(count: filled(c))
            chunk.deallocate()
        }

        /// Frees the last chunk (empty), as `releaseChunk` does.
        func dropLastChunk() {
            releaseChunk(chunkCount - 1)
            owners?.advanced(by: chunkCount - 1).deinitialize(count: 1)
            chunkCount -= 1
        }

        /// Makes chunk `c` this storage's own to change: a chunk that a copy still holds is
        /// copied (its filled elements) and the copy's kept. Nothing when the chunks were never
        /// shared.
        @inline(__always)
        func own(_ c: Int) {
            guard let owners, !isKnownUniquelyReferenced(&owners[c]) else { return }
            ownShared(c)
        }

        private func ownShared(_ c: Int) {
            guard let owners, let chunk = chunks[c] else { return }
            let mine = UnsafeMutablePointer<Element>.allocate(capacity: chunkSize)
            mine.initialize(from: chunk, count: filled(c))
            chunks[c] = mine
            owners[c] = SharedChunk(UnsafeMutableRawPointer(mine))
        }

        func copy() -> Storage {
            if _isPOD(Element.self) { return share() }
            let copy = Storage(shift: shift)
            for c in 0..<chunkCount {
                copy.addChunk()
                if let chunk = chunks[c] {
                    copy.chunks[c]!.initialize(from: chunk, count: filled(c))
                } else {
                    copy.chunks[c]!.deallocate()
                    copy.chunks[c] = nil
                }
            }
            copy.count = count
            return copy
        }

        /// A storage holding the same chunks (elements without references): each chunk is then
        /// copied by whichever storage changes it first (`own`).
        private func share() -> Storage {
            if owners == nil {
                let adopted = UnsafeMutablePointer<SharedChunk?>.allocate(capacity: chunkRoom)
                for c in 0..<chunkCount {
                    (adopted + c).initialize(to: chunks[c].map { SharedChunk(UnsafeMutableRawPointer($0)) })
                }
                owners = adopted
            }
            let copy = Storage(shift: shift)
            copy.chunks.deallocate()
            copy.chunks = .allocate(capacity: chunkRoom)
            copy.chunks.initialize(from: chunks, count: chunkCount)
            let shared = UnsafeMutablePointer<SharedChunk?>.allocate(capacity: chunkRoom)
            shared.initialize(from: owners.unsafelyUnwrapped, count: chunkCount)
            copy.owners = shared
            copy.chunkRoom = chunkRoom
            copy.chunkCount = chunkCount
            copy.count = count
            return copy
        }

        deinit {
            if let owners {
                // The elements hold no references: the last storage to let a chunk go frees it.
                owners.deinitialize(count: chunkCount)
                owners.deallocate()
            } else {
                for c in 0..<chunkCount { releaseChunk(c) }
            }
            chunks.deallocate()
        }
    }

    private var storage: Storage
    /// log2 of the chunk size, and the chunk size - 1 (kept here, beside the storage, so that an
    /// element's place is found without reading the storage's header).
    package let shift: Int
    private let mask: Int

    /// Chunks of `1 << shift` elements.
    package init(shift: Int = 14) {
        precondition(shift > 0 && shift < 31, "a chunk holds 2 to 2^30 elements")
        storage = Storage(shift: shift)
        self.shift = shift
        mask = 1 << shift - 1
    }

    package var chunkSize: Int { @inline(__always) get { mask &+ 1 } }
    package var count: Int { @inline(__always) get { storage.count } }
    package var isEmpty: Bool { storage.count == 0 }
    package var indices: Range<Int> { 0..<storage.count }

    package subscript(i: Int) -> Element {
        @inline(__always) get {
            precondition(i >= 0 && i < storage.count, "index \(i) out of a ChunkedArray of \(storage.count)")
            return storage.chunks[i &>> shift].unsafelyUnwrapped[i & mask]
        }
        // Changed in place (an element's own arrays are not copied to change them).
        @inline(__always) _modify {
            precondition(i >= 0 && i < storage.count, "index \(i) out of a ChunkedArray of \(storage.count)")
            makeUnique()
            storage.own(i &>> shift)
            yield &storage.chunks[i &>> shift].unsafelyUnwrapped[i & mask]
        }
    }

    /// Element `i`, which the caller knows is within the array (checked in debug builds only):
    /// for hot paths that would otherwise check the same bounds twice, as `Array`'s unsafe
    /// buffers are used for.
    @inline(__always)
    package func unchecked(_ i: Int) -> Element {
        assert(i >= 0 && i < storage.count, "index \(i) out of a ChunkedArray of \(storage.count)")
        return storage.chunks[i &>> shift].unsafelyUnwrapped[i & mask]
    }

    /// Where element `i` is, for reading it and those after it up to its chunk's end while the
    /// array does not change (`i` within the array: checked in debug builds only).
    @inline(__always)
    package func unsafePointer(at i: Int) -> UnsafePointer<Element> {
        assert(i >= 0 && i < storage.count, "index \(i) out of a ChunkedArray of \(storage.count)")
        return UnsafePointer(storage.chunks[i &>> shift].unsafelyUnwrapped + (i & mask))
    }

    /// Element reads for a loop over many of them, with what locates a chunk read once (the
    /// chunk list, the shift and the mask), valid inside `withReader` only. Indices are not checked
    /// (but in debug builds).
    package struct Reader {
        let chunks: UnsafePointer<UnsafeMutablePointer<Element>?>
        let shift: Int
        let mask: Int
        let count: Int

        @inline(__always)
        package subscript(i: Int) -> Element {
            assert(i >= 0 && i < count, "index \(i) out of a ChunkedArray of \(count)")
            return chunks[i &>> shift].unsafelyUnwrapped[i & mask]
        }

        /// Where element `i` is (see `ChunkedArray.unsafePointer(at:)`).
        @inline(__always)
        package func pointer(at i: Int) -> UnsafePointer<Element> {
            assert(i >= 0 && i < count, "index \(i) out of a ChunkedArray of \(count)")
            return UnsafePointer(chunks[i &>> shift].unsafelyUnwrapped + (i & mask))
        }
    }

    /// Calls `body` with a `Reader` of this array, which must not change meanwhile.
    @inline(__always)
    package func withReader<R>(_ body: (Reader) throws -> R) rethrows -> R {
        try withExtendedLifetime(storage) {
            try body(Reader(chunks: UnsafePointer(storage.chunks), shift: shift, mask: mask, count: storage.count))
        }
    }

    @inline(__always)
    private mutating func makeUnique() {
        if !isKnownUniquelyReferenced(&storage) { storage = storage.copy() }
    }

    package mutating func append(_ element: Element) {
        makeUnique()
        if storage.count == storage.chunkCount << shift { storage.addChunk() } else { storage.own(storage.count &>> shift) }
        (storage.chunks[storage.count &>> shift].unsafelyUnwrapped + (storage.count & mask)).initialize(to: element)
        storage.count += 1
    }

    /// Appends `n` copies of `element`.
    package mutating func append(repeating element: Element, count n: Int) {
        makeUnique()
        var left = n
        while left > 0 {
            if storage.count == storage.chunkCount << shift { storage.addChunk() } else { storage.own(storage.count &>> shift) }
            let offset = storage.count & mask
            let piece = Swift.min(left, chunkSize - offset)
            (storage.chunks[storage.count &>> shift].unsafelyUnwrapped + offset).initialize(repeating: element, count: piece)
            storage.count += piece
            left -= piece
        }
    }

    /// Removes and returns the last element. One empty chunk is kept at the end (so that an array
    /// whose size goes back and forth across a chunk's end does not allocate and free a chunk
    /// each time); a second is freed.
    @discardableResult
    package mutating func removeLast() -> Element {
        precondition(storage.count > 0, "removeLast of an empty ChunkedArray")
        makeUnique()
        storage.count -= 1
        let last = (storage.chunks[storage.count &>> shift].unsafelyUnwrapped + (storage.count & mask)).move()
        if storage.chunkCount >= 2 && storage.count <= (storage.chunkCount - 2) << shift {
            storage.dropLastChunk()
        }
        return last
    }

    /// Swaps elements `i` and `j` by moving their bytes (the collection's default copies each
    /// element out and back, retaining and releasing what it refers to: a tenth of the presence
    /// layer's time went there, in its heaps).
    @inline(__always)
    package mutating func swapAt(_ i: Int, _ j: Int) {
        precondition(i >= 0 && i < storage.count && j >= 0 && j < storage.count, "swapping outside a ChunkedArray")
        guard i != j else { return }
        makeUnique()
        storage.own(i &>> shift)
        storage.own(j &>> shift)
        let p = storage.chunks[i &>> shift].unsafelyUnwrapped + (i & mask)
        let q = storage.chunks[j &>> shift].unsafelyUnwrapped + (j & mask)
        let t = p.move()
        p.moveInitialize(from: q, count: 1)
        q.initialize(to: t)
    }

    /// Whether element `i` is ordered before element `j`, compared where they are (no copy).
    @inline(__always)
    package func isOrdered(_ i: Int, before j: Int) -> Bool where Element: Comparable {
        assert(i >= 0 && i < storage.count && j >= 0 && j < storage.count, "comparing outside a ChunkedArray")
        return storage.chunks[i &>> shift].unsafelyUnwrapped[i & mask] < storage.chunks[j &>> shift].unsafelyUnwrapped[j & mask]
    }

    /// Frees chunk `c` (its elements are never read again: a table being emptied from its start).
    package mutating func releaseChunk(_ c: Int) {
        makeUnique()
        storage.releaseChunk(c)
    }

    /// `withChunk`, to change elements in place (the chunks are made this array's own once, not
    /// at every element).
    @inline(__always)
    package mutating func withMutableChunk<R>(of i: Int, _ body: (_ chunk: UnsafeMutableBufferPointer<Element>, _ offset: Int) throws -> R) rethrows -> R {
        precondition(i >= 0 && i < storage.count, "index \(i) out of a ChunkedArray of \(storage.count)")
        makeUnique()
        let c = i &>> shift
        storage.own(c)
        return try body(UnsafeMutableBufferPointer(start: storage.chunks[c].unsafelyUnwrapped, count: storage.filled(c)), i & mask)
    }

    /// Copies elements `source ..< source + n` over `destination ..< destination + n` (neither
    /// range crossing a chunk's end, and not overlapping).
    @inline(__always)
    package mutating func copy(from source: Int, to destination: Int, count n: Int) {
        guard n > 0 else { return }
        precondition(source >= 0 && source + n <= storage.count && destination >= 0 && destination + n <= storage.count, "copying outside a ChunkedArray")
        assert((source & mask) + n <= chunkSize && (destination & mask) + n <= chunkSize, "copying across a chunk's end")
        makeUnique()
        storage.own(destination &>> shift)
        let from = storage.chunks[source &>> shift].unsafelyUnwrapped + (source & mask)
        let to = storage.chunks[destination &>> shift].unsafelyUnwrapped + (destination & mask)
        to.update(from: from, count: n)
    }
}

extension ChunkedArray: RandomAccessCollection, MutableCollection {
    package var startIndex: Int { 0 }
    package var endIndex: Int { storage.count }
}

extension ChunkedArray: @unchecked Sendable where Element: Sendable {}
