import BeaconRules
import Synchronization

/// Each app's whole layout (`GET /layout` without `X-pid`) as last written, with the catalog load
/// it was written from: written again only once the app's campaigns are reloaded, not on every
/// fetch (10,000 campaigns are megabytes of JSON, and every installation fetches it). One entry
/// per app, replaced on a reload; a layout of one beacon (`X-pid`) is written per request.
package final class LayoutCache: Sendable {
    private struct Entry {
        let load: Int
        let layout: SensorbergLayout
    }

    private let entries = Mutex<[String: Entry]>([:])

    package init() {}

    /// The layout of `app`'s campaigns as of catalog load `load`; `make` writes it when none is
    /// kept for that load.
    package func layout(app: String, load: Int, _ make: () -> SensorbergLayout) -> SensorbergLayout {
        if let kept = entries.withLock({ $0[app] }), kept.load == load { return kept.layout }
        let made = make()
        entries.withLock { entries in
            // A newer load written meanwhile stays.
            if let kept = entries[app], kept.load > load { return }
            entries[app] = Entry(load: load, layout: made)
        }
        return made
    }
}
