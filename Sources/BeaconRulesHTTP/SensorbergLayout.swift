package import BeaconRules
import CampaignFiles

/// An app's campaigns written as the Sensorberg layout an SDK reads (`GET /layout`), the form
/// the resolver answers: `accountProximityUUIDs` (every proximity UUID the campaigns name, in
/// load order), `actions` and `instantActions` (each with `eid`, `trigger` 1/2/3, `beacons`,
/// `suppressionTime` with the resolver's misspelled `supressionTime` beside it for older SDKs,
/// `content`, `type` and `typeString`, `timeframes`, `sendOnlyOnce`, `delay`, `deliverAt`) and
/// `currentVersion`.
///
/// The fields are written from the campaign as loaded, and every other member of the action as
/// read (`name`, `dwell`, the notification-action extensions) is carried over as it was, so that
/// the layout loaded again (`replay --campaigns`) decides exactly as the campaigns it came from.
package struct SensorbergLayout: Sendable {
    /// The document, one line.
    package let bytes: [UInt8]
    /// A strong validator of `bytes` (`"` + 16 hex digits of their FNV-1a hash + `"`).
    package let etag: String

    /// The layout of `campaigns`; with `beacon`, only the actions that answer it (the
    /// `X-pid` filter; instant actions ride along with every beacon, so they all stay).
    package init(campaigns: CampaignSet, beacon: BeaconID? = nil) {
        var w = JSONWriter(capacity: 1 << 14)
        w.raw("{\"accountProximityUUIDs\":[")
        for (i, uuid) in CampaignLayoutFile.proximityUUIDs(of: campaigns.campaigns).enumerated() {
            if i > 0 { w.raw(",") }
            w.string(uuid.description)
        }
        let chosen = campaigns.campaigns.filter { campaign in
            campaign.isInstant || beacon.map { id in campaign.beacons.contains { $0.matches(id) } } ?? true
        }
        w.raw("],\"actions\":[")
        Self.write(chosen.filter { !$0.isInstant }, into: &w)
        w.raw("],\"instantActions\":[")
        Self.write(chosen.filter(\.isInstant), into: &w)
        w.raw("],\"currentVersion\":false}\n")
        bytes = w.bytes
        etag = Self.etag(of: bytes)
    }

    /// Whether `ifNoneMatch` (the header's value: one tag, a list, or `*`) names `etag`.
    package func isCurrent(ifNoneMatch: String?) -> Bool {
        guard let ifNoneMatch else { return false }
        return ifNoneMatch.split(separator: ",").contains { candidate in
            var tag = candidate.trimmingSpaces
            if tag == "*" { return true }
            if tag.hasPrefix("W/") { tag = String(tag.dropFirst(2)) }
            if !tag.hasPrefix("\"") { tag = "\"" + tag + "\"" }
            return tag == etag
        }
    }

    /// The members `write` makes from the model; any other member of the action is copied.
    static let writtenMembers: Set<String> = [
        "eid", "trigger", "beacons", "suppressionTime", "supressionTime", "content", "type", "typeString",
        "timeframes", "sendOnlyOnce", "delay", "deliverAt",
    ]

    private static func write(_ campaigns: [Campaign], into w: inout JSONWriter) {
        for (i, campaign) in campaigns.enumerated() {
            if i > 0 { w.raw(",") }
            w.raw("{\"eid\":"); w.string(campaign.eid)
            w.raw(",\"trigger\":")
            switch campaign.trigger {
            case .enter: w.raw("1")
            case .exit: w.raw("2")
            case .enterExit: w.raw("3")
            }
            w.raw(",\"beacons\":[")
            for (j, pattern) in campaign.beacons.enumerated() {
                if j > 0 { w.raw(",") }
                switch pattern {
                case .exact(let id): w.string(id.description)
                case .proximityUUID(let uuid): w.string(uuid.description)
                case .geofence(let text): w.string(text)
                }
            }
            w.raw("]")
            let suppression: String = switch campaign.suppression {
            case .none: "-1"
            case .once: "0"
            case .interval(let milliseconds): seconds(milliseconds)
            }
            w.raw(",\"suppressionTime\":"); w.rawText(suppression)
            w.raw(",\"supressionTime\":"); w.rawText(suppression)
            w.raw(",\"content\":{\"subject\":"); w.optionalString(campaign.content.subject)
            w.raw(",\"body\":"); w.optionalString(campaign.content.body)
            w.raw(",\"url\":"); w.optionalString(campaign.content.url)
            if let payload = campaign.content.payload {
                w.raw(",\"payload\":"); w.value(payload)
            }
            w.raw("},\"type\":"); w.integer(Int64(campaign.actionType.rawValue))
            w.raw(",\"typeString\":"); w.string(typeString(campaign.actionType))
            w.raw(",\"timeframes\":[")
            for (j, frame) in campaign.timeframes.enumerated() {
                if j > 0 { w.raw(",") }
                w.raw("{\"start\":"); w.optionalString(frame.start?.description)
                w.raw(",\"end\":"); w.optionalString(frame.end?.description)
                w.raw("}")
            }
            w.raw("],\"sendOnlyOnce\":"); w.bool(campaign.sendOnlyOnce)
            w.raw(",\"delay\":"); w.rawText(seconds(campaign.delayMilliseconds))
            if let deliverAt = campaign.deliverAt {
                w.raw(",\"deliverAt\":"); w.string(deliverAt.description)
            }
            for member in campaign.source.objectMembers ?? [] where !writtenMembers.contains(member.key) {
                w.raw(","); w.string(member.key); w.raw(":"); w.value(member.value)
            }
            w.raw("}")
        }
    }

    /// The resolver's `typeString`: `function` for in-app actions.
    static func typeString(_ type: ActionType) -> String {
        switch type {
        case .notification: "notification"
        case .website: "website"
        case .inApp: "function"
        case .silent: "silent"
        }
    }

    /// Milliseconds as seconds, exactly: `90`, `1.5`.
    static func seconds(_ milliseconds: Int64) -> String {
        let whole = milliseconds / 1000, rest = milliseconds % 1000
        guard rest != 0 else { return String(whole) }
        var fraction = String(rest)
        fraction = String(repeating: "0", count: 3 - fraction.count) + fraction
        while fraction.hasSuffix("0") { fraction.removeLast() }
        return "\(whole).\(fraction)"
    }

    /// FNV-1a over the bytes, quoted.
    static func etag(of bytes: [UInt8]) -> String {
        var hash: UInt64 = 0xcbf2_9ce4_8422_2325
        for byte in bytes {
            hash ^= UInt64(byte)
            hash = hash &* 0x0000_0100_0000_01b3
        }
        let hex = String(hash, radix: 16)
        return "\"" + String(repeating: "0", count: 16 - hex.count) + hex + "\""
    }
}

extension Substring {
    /// Without leading and trailing spaces and tabs.
    var trimmingSpaces: String {
        String(drop { $0 == " " || $0 == "\t" }.reversed().drop { $0 == " " || $0 == "\t" }.reversed())
    }
}
