/// Every route `beaconrules http` answers, in one table: the events API (`EventRoutes`), and the
/// groups that come to the same application (the console of `--console`, the Sensorberg SDK
/// resolver) add their rows here as they add their handlers. docs/http.md lists exactly these
/// rows (`RouteTableTests` holds both: every row is answered, and the guide names every row).
///
/// One app model for every group (`RulesApps`): the events API and the resolver name the app by
/// its `X-Api-Key` header (401 without a valid one once an apps file is given; without one, every
/// request is the one app's). The console names it by its path: with an apps file its pages are
/// under `/apps/ID/` (`/apps/museum/campaigns/EID`) and `/` lists the apps; without one, at the
/// top (`/campaigns/EID`). Paths a group will take are kept free by the others: the console's
/// `/`, `/campaigns/EID`, `/translations`, `/try`, `/results`, `/apps/`, `/assets/`, `/login`;
/// the resolver's `/layout`.
package enum RouteTable {
    /// Who a route serves.
    package enum Group: String, Sendable {
        /// Location backends: events in, records out (`EventRoutes`).
        case events
        /// Campaign managers and translators: the console's pages (`ConsoleRoutes`, `--console`).
        case console
        /// Apps built on Sensorberg's SDKs: the resolver's layout and history (`ResolverRoutes`).
        case resolver
    }

    /// One route: its method and path (`{eid}` a path parameter), its group, and what it does.
    package struct Route: Sendable, Hashable {
        /// `GET`, `POST`.
        package let method: String
        /// The path, with `{NAME}` for a parameter.
        package let path: String
        /// Who it serves.
        package let group: Group
        /// What it answers, in a line (docs/http.md says more).
        package let summary: String
    }

    /// Every route, by group.
    package static let routes: [Route] = [
        Route(method: "POST", path: "/events", group: .events, summary: "one event's records, or NDJSON answered line for line"),
        Route(method: "POST", path: "/responses", group: .events, summary: "one response's records"),
        Route(method: "GET", path: "/campaigns", group: .events, summary: "what is loaded, with its warnings"),
        Route(method: "POST", path: "/explain", group: .events, summary: "explain's verdict per campaign for one event"),
        Route(method: "GET", path: "/", group: .console, summary: "every campaign with its status, trigger, beacons, languages and lint"),
        Route(method: "GET", path: "/campaigns/{eid}", group: .console, summary: "phone previews per language and trigger, the fallback chain, record and APNs JSON, lint"),
        Route(method: "GET", path: "/campaigns/{eid}/edit", group: .console, summary: "the campaign's file in an editor with lint as you type"),
        Route(method: "POST", path: "/campaigns/{eid}/edit", group: .console, summary: "save: lint, write atomically, reload; refused with its errors"),
        Route(method: "POST", path: "/campaigns/{eid}/lint", group: .console, summary: "the editor's lint: diagnostics of the posted text as JSON"),
        Route(method: "GET", path: "/translations", group: .console, summary: "campaigns by language, each cell complete, partial or missing"),
        Route(method: "GET", path: "/translations.csv", group: .console, summary: "the matrix for translators: campaign,trigger,language,field,text"),
        Route(method: "GET", path: "/try", group: .console, summary: "one event's verdict per campaign and the records it fires"),
        Route(method: "GET", path: "/results", group: .console, summary: "funnels by campaign and language from the state"),
        Route(method: "POST", path: "/results", group: .console, summary: "an uploaded trace's timeline SVG"),
        Route(method: "GET", path: "/login", group: .console, summary: "the login form (with --token-file)"),
        Route(method: "POST", path: "/login", group: .console, summary: "trades the token for a cookie"),
        Route(method: "GET", path: "/assets/{name}", group: .console, summary: "the console's own console.css and console.js"),
        Route(method: "GET", path: "/layout", group: .resolver, summary: "the app's campaigns as a Sensorberg layout, with an ETag"),
        Route(method: "POST", path: "/layout", group: .resolver, summary: "an SDK installation's history applied, then the layout"),
    ]
}
