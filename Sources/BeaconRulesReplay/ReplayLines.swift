/// The blocks a `replay` run is cut into, with one engine or with `--jobs N`.
package enum ReplayLines {
    /// A block (one commit with `--state`, one write to stdout) ends at this many bytes of
    /// records or this many lines: large enough that the commit's fsync costs little per event,
    /// small enough to keep memory flat.
    package static let blockBytes = 1 << 20
    package static let blockLines = 16384
}
