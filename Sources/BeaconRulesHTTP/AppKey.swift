import BeaconRules
import Foundation
package import BeaconRulesService
package import Hummingbird
import NIOCore

/// A header's name (swift-http-types' `HTTPField.Name`, reached through the fields Hummingbird
/// exports).
package typealias HeaderName = HTTPFields.Element.Name

/// How a request names its app: the `X-Api-Key` header (the events API and the Sensorberg
/// resolver). Without an apps file every request is the one app's, key or none; with one, a
/// request without a key of a configured app is refused before any app is read or changed.
package enum AppKey {
    /// The header every SDK and backend sends its key in.
    package static let header = HeaderName("X-Api-Key")!

    /// The key the request carries, if any (the first, trimmed; an empty one is none).
    package static func key(of request: Request) -> String? {
        guard let value = request.headers[header]?.trimmingCharacters(in: .whitespaces), !value.isEmpty else { return nil }
        return value
    }

    /// The request's app, or nil when an apps file is given and the key names none.
    package static func app(of request: Request, in apps: RulesApps) -> RulesApps.App? {
        apps.app(apiKey: key(of: request))
    }

    /// 401 with a JSON error saying what was missing or wrong (never the keys that exist).
    package static func unauthorized(_ request: Request) -> Response {
        let message = key(of: request) == nil
            ? "missing X-Api-Key: this service hosts several apps; send the key of yours in the X-Api-Key header"
            : "unknown X-Api-Key: no app of this service has this key"
        var w = JSONWriter(capacity: 256)
        w.raw("{\"ok\":false,\"error\":"); w.string(message); w.raw("}\n")
        return Response(
            status: .unauthorized, headers: [.contentType: "application/json", .wwwAuthenticate: "X-Api-Key"],
            body: ResponseBody(byteBuffer: ByteBuffer(bytes: w.bytes)))
    }
}
