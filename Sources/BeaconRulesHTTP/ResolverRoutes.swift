import BeaconRules
package import BeaconRulesService
package import Hummingbird
import NIOCore

/// The Sensorberg resolver's protocol, for the apps built on Sensorberg's SDKs
/// (docs/http.md "Sensorberg SDK apps"):
/// - `GET /layout`: the app of the `X-Api-Key` as a Sensorberg layout (`SensorbergLayout`), with
///   an `ETag`; `If-None-Match` with the current one: 304; a key of no app: 204, as the
///   resolver answers an unknown key; `X-pid`: only the actions of that beacon.
/// - `POST /layout`: the installation's history (`X-iid`, `SDKHistory`) applied in one
///   transaction (`SDKHistoryLines`), then answered as `GET /layout` is, the resolver's answer to
///   a post; `X-History-Records` says how many records the history's events made (sent again,
///   as many: the same), `X-History-Rejected` how many of its lines were refused. A body that
///   is no history: 400, naming where it broke.
package struct ResolverRoutes: Sendable {
    let apps: RulesApps
    let maximumBody: Int
    /// Each app's whole layout, written once per catalog load.
    let layouts = LayoutCache()

    package static let installation = HeaderName("X-iid")!
    package static let beacon = HeaderName("X-pid")!
    package static let records = HeaderName("X-History-Records")!
    package static let rejected = HeaderName("X-History-Rejected")!

    func add(to router: Router<BasicRequestContext>) {
        router.get("layout") { request, _ in try await layout(request, history: nil) }
        router.post("layout") { request, _ in
            let body = try await request.body.collect(upTo: maximumBody)
            return try await layout(request, history: Array(buffer: body))
        }
    }

    /// The app's layout, after the history when there is one.
    func layout(_ request: Request, history body: [UInt8]?) async throws -> Response {
        guard let app = AppKey.app(of: request, in: apps) else {
            // The resolver's answer to a key it does not know: no content, not an empty layout.
            return AppKey.key(of: request) == nil ? AppKey.unauthorized(request) : Response(status: .noContent)
        }
        var pid: BeaconID?
        if let text = request.headers[Self.beacon] {
            guard let id = BeaconID(pid: text) else {
                return Self.refused("X-pid: expected a 42-char pid (32 hex proximity UUID + 5-digit major + 5-digit minor), found \"\(text)\"")
            }
            pid = id
        }
        var headers: HTTPFields = [:]
        if let body {
            let history: SDKHistory
            do { history = try SDKHistory.parse(body) } catch { return Self.refused("not a history: \(error)") }
            if !history.isEmpty {
                guard let device = request.headers[Self.installation], !device.isEmpty else {
                    return Self.refused("missing X-iid: a history is the installation's, named by the X-iid header")
                }
                let lines = SDKHistoryLines(history, device: device, locale: Self.locale(of: request), campaigns: await app.rules.catalog.campaigns)
                let outcomes: [LineOutcome]
                do {
                    outcomes = try await app.rules.process(lines: lines.lines, source: "layout", linesWithoutID: .identifiedByContent, shown: lines.shown)
                } catch {
                    var w = JSONWriter(capacity: 256)
                    w.raw("{\"ok\":false,\"error\":"); w.string("state not saved, resend: \(error)"); w.raw("}\n")
                    return Self.json(w.bytes, status: .serviceUnavailable)
                }
                var records = 0, rejected = 0
                for (index, outcome) in outcomes.enumerated() {
                    switch outcome {
                    case .accepted(_, let made): if index < lines.events { records += made.count }
                    case .rejected: rejected += 1
                    }
                }
                headers[Self.records] = String(records)
                headers[Self.rejected] = String(rejected)
            }
        }
        let (catalog, load) = await app.rules.loadedCatalog
        let layout = pid == nil
            ? layouts.layout(app: app.definition.id, load: load) { SensorbergLayout(campaigns: catalog.campaigns) }
            : SensorbergLayout(campaigns: catalog.campaigns, beacon: pid)
        headers[.eTag] = layout.etag
        // Revalidated on every fetch (cheap with the ETag), so a reload reaches the phones at once.
        headers[.cacheControl] = "no-cache"
        if layout.isCurrent(ifNoneMatch: request.headers[.ifNoneMatch]) {
            return Response(status: .notModified, headers: headers)
        }
        headers[.contentType] = "application/json"
        return Response(status: .ok, headers: headers, body: ResponseBody(byteBuffer: ByteBuffer(bytes: layout.bytes)))
    }

    /// The first language of `Accept-Language`, when it is a plain tag.
    static func locale(of request: Request) -> String? {
        guard let header = request.headers[.acceptLanguage] else { return nil }
        let first = header.split(separator: ",").first.map { $0.split(separator: ";")[0].trimmingSpaces } ?? ""
        let plain = !first.isEmpty && first.count <= 35 && first != "*" && first.utf8.allSatisfy { byte in
            (byte >= 0x30 && byte <= 0x39) || (byte >= 0x41 && byte <= 0x5A) || (byte >= 0x61 && byte <= 0x7A) || byte == 0x2D || byte == 0x5F
        }
        return plain ? first : nil
    }

    static func refused(_ message: String) -> Response {
        var w = JSONWriter(capacity: 256)
        w.raw("{\"ok\":false,\"error\":"); w.string(message); w.raw("}\n")
        return json(w.bytes, status: .badRequest)
    }

    static func json(_ bytes: [UInt8], status: HTTPResponse.Status) -> Response {
        Response(status: status, headers: [.contentType: "application/json"], body: ResponseBody(byteBuffer: ByteBuffer(bytes: bytes)))
    }
}
