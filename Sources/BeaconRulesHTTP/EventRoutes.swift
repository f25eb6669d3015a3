import BeaconRules
import BeaconRulesServer
import BeaconRulesService
import Hummingbird
import NIOCore

/// The routes of the HTTP front, each a call of `RulesService`:
/// - `POST /events`: one JSON event, answered with its records (a JSON array, SPEC order), or
///   400 with `replay`'s message; NDJSON (`application/x-ndjson`, or several lines), answered
///   line for line with the socket's reply lines (SPEC section 5).
/// - `POST /responses`: one response (SPEC section 8), answered as one event.
/// - `GET /campaigns`: what is loaded, with the warnings found loading it.
/// - `POST /explain`: one event, answered with one JSON object per campaign.
///
/// A line without an `id` gets the id made from its content, as on the socket: sent again, it
/// is answered as before. 503 when the state could not be saved (nothing of the call was kept).
/// Each request is served by the app its `X-Api-Key` names (`AppKey`; 401 without one, once an
/// apps file is given).
struct EventRoutes: Sendable {
    let apps: RulesApps
    let maximumBody: Int

    func add(to router: Router<BasicRequestContext>) {
        router.post("events") { request, _ in try await served(request, events) }
        router.post("responses") { request, _ in try await served(request, responses) }
        router.get("campaigns") { request, _ in try await served(request) { _, rules in await campaigns(rules) } }
        router.post("explain") { request, _ in try await served(request, explain) }
    }

    /// `handler` on the request's app, or 401.
    private func served(_ request: Request, _ handler: (Request, RulesService) async throws -> Response) async throws -> Response {
        guard let app = AppKey.app(of: request, in: apps) else { return AppKey.unauthorized(request) }
        return try await handler(request, app.rules)
    }

    func events(_ request: Request, _ rules: RulesService) async throws -> Response {
        let lines = try await bodyLines(request)
        if lines.count == 1 && request.headers[.contentType]?.hasPrefix("application/x-ndjson") != true {
            return try await single(lines[0], rules)
        }
        // As on the socket: every line is answered in its place (a blank one refused), in one call.
        let outcomes: [LineOutcome]
        do { outcomes = try await rules.process(lines: lines, source: "request", linesWithoutID: .identifiedByContent) } catch {
            return unsaved(error)
        }
        var w = JSONWriter(capacity: 1 << 12)
        for outcome in outcomes {
            switch outcome {
            case .accepted(let event, let records): Reply.accepted(event: event, records: Self.bytes(records), into: &w)
            case .rejected(let rejection): Reply.rejected(line: rejection.line, message: rejection.message, into: &w)
            }
        }
        return Self.json(w.bytes, contentType: "application/x-ndjson")
    }

    func responses(_ request: Request, _ rules: RulesService) async throws -> Response {
        let lines = try await bodyLines(request)
        guard lines.count == 1, case .response? = try? EventParser.parseInput(line: lines[0], fallbackID: "") else {
            return Self.refused("expected one response object {\"type\":\"response\",\"device\":...,\"notification\":...,\"action\":...,\"time\":...} (SPEC section 8)")
        }
        return try await single(lines[0], rules)
    }

    func campaigns(_ rules: RulesService) async -> Response {
        let catalog = await rules.catalog
        var w = JSONWriter(capacity: 1 << 12)
        w.raw("{\"campaigns\":[")
        for (i, campaign) in catalog.campaigns.campaigns.enumerated() {
            if i > 0 { w.raw(",") }
            w.raw("{\"eid\":"); w.string(campaign.eid)
            w.raw(",\"file\":"); w.string(campaign.origin.file)
            w.raw(",\"line\":"); w.integer(Int64(campaign.origin.line))
            w.raw("}")
        }
        w.raw("],\"warnings\":[")
        for (i, warning) in catalog.warnings.enumerated() {
            if i > 0 { w.raw(",") }
            w.string(warning.description)
        }
        w.raw("]}\n")
        return Self.json(w.bytes)
    }

    func explain(_ request: Request, _ rules: RulesService) async throws -> Response {
        let lines = try await bodyLines(request)
        guard lines.count == 1 else { return Self.refused("expected one JSON event object") }
        let event: BeaconEvent
        do { event = try EventParser.parse(line: lines[0], fallbackID: "request:1") } catch {
            return Self.refused(error.description)
        }
        let explanations: [Explanation]
        do { explanations = try await rules.explain(event) } catch {
            return unreadable(error)
        }
        return Self.json(Array(("[" + explanations.map(\.json).joined(separator: ",") + "]\n").utf8))
    }

    /// One line: its records as a JSON array, or 400 with the message.
    private func single(_ line: String, _ rules: RulesService) async throws -> Response {
        let outcome: LineOutcome
        do { outcome = try await rules.process(lines: [line], source: "request", linesWithoutID: .identifiedByContent)[0] } catch {
            return unsaved(error)
        }
        switch outcome {
        case .accepted(_, let records):
            var w = JSONWriter(capacity: 1 << 12)
            Reply.array(of: Self.bytes(records), into: &w)
            w.raw("\n")
            return Self.json(w.bytes)
        case .rejected(let rejection):
            return Self.refused(rejection.message)
        }
    }

    /// The body's lines (a final newline ends the last one); 400 for an empty body.
    private func bodyLines(_ request: Request) async throws -> [String] {
        let body = try await request.body.collect(upTo: maximumBody)
        var lines = String(buffer: body).split(separator: "\n", omittingEmptySubsequences: false).map(String.init)
        if lines.last == "" { lines.removeLast() }
        guard !lines.isEmpty else { throw HTTPError(.badRequest, message: "empty body; expected one JSON event object") }
        return lines
    }

    /// 503: the state could not be read (nothing was answered from it).
    private func unreadable(_ error: any Error) -> Response {
        var w = JSONWriter(capacity: 256)
        w.raw("{\"ok\":false,\"error\":"); w.string("state not readable, try again: \(error)"); w.raw("}\n")
        return Self.json(w.bytes, status: .serviceUnavailable)
    }

    private func unsaved(_ error: any Error) -> Response {
        var w = JSONWriter(capacity: 256)
        w.raw("{\"ok\":false,\"error\":"); w.string("state not saved, resend: \(error)"); w.raw("}\n")
        return Self.json(w.bytes, status: .serviceUnavailable)
    }

    private static func refused(_ message: String) -> Response {
        var w = JSONWriter(capacity: 256)
        Reply.rejected(line: 1, message: message, into: &w)
        return json(w.bytes, status: .badRequest)
    }

    private static func bytes(_ records: [Record]) -> [UInt8] {
        Array(records.map { $0.json + "\n" }.joined().utf8)
    }

    private static func json(_ bytes: [UInt8], status: HTTPResponse.Status = .ok, contentType: String = "application/json") -> Response {
        Response(status: status, headers: [.contentType: contentType], body: ResponseBody(byteBuffer: ByteBuffer(bytes: bytes)))
    }
}
