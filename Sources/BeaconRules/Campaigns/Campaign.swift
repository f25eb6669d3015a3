/// One campaign action in the Sensorberg sense: which beacons and triggers it answers, when it is
/// live, how often it may fire per device, and what it delivers.
///
/// Its rules are read twice: as written here by `verdict` (Verdict.swift: the reference, and what
/// `explain` says), and compiled for the hot path (`CompiledRule`, `CandidateRow`, matched by
/// `RulesEngine.match`). `WorkloadEquivalenceTests.fastPathGivesExactlyTheReferenceRecords`
/// replays a workload both ways and requires the same records: a rule changed here is changed in
/// `CompiledRule`/`CandidateRow` too.
public struct Campaign: Sendable {
    /// The eid as written in the campaign file (records carry it verbatim).
    public var eid: String
    /// The eid compared case-insensitively with dashes ignored: state is kept per this id.
    public var id: CampaignID
    /// Which transitions it answers (enter, exit or both).
    public var trigger: Trigger
    /// What its records ask the app to do.
    public var actionType: ActionType
    /// The beacons it answers (any of them).
    public var beacons: [BeaconPattern]
    /// When it is live (any of them; none: always).
    public var timeframes: [Timeframe]
    /// How often it may fire per device.
    public var suppression: Suppression
    /// Whether it fires at most once per device, ever.
    public var sendOnlyOnce: Bool
    /// Seconds between the event and the record's `fireDate`, in milliseconds.
    public var delayMilliseconds: Int64
    /// A fixed `fireDate`, used when there is no delay; a later event gets nothing.
    public var deliverAt: Timestamp?
    /// `dwell` in milliseconds, 0 for none: the enter side fires only once the device has stayed
    /// this long (presence layer), never on the enter itself.
    public var dwellMilliseconds: Int64 = 0
    /// What it delivers, as written.
    public var content: CampaignContent
    /// Rides along with every event, whatever the beacon and trigger (layout `instantActions`).
    public var isInstant: Bool
    /// The campaign's name, when the file gives one.
    public var name: String?
    /// The localized `onEnter` / `onExit` blocks of `content.payload`, parsed once at load.
    public var onEnter: LocalizedBlock?
    /// The `onExit` block (see `onEnter`).
    public var onExit: LocalizedBlock?
    /// Where the action was read from.
    public var origin: SourceLocation
    /// The action object as read, for tools that convert or inspect campaigns.
    public var source: JSONValue
    /// The notification-action extensions (`notificationAction`, `categoryActions`, ...); empty for
    /// a plain Sensorberg campaign.
    public var actions = CampaignActions()

    /// A campaign of each part; `id` is derived from `eid`.
    public init(
        eid: String, trigger: Trigger = .enterExit, actionType: ActionType = .notification,
        beacons: [BeaconPattern] = [], timeframes: [Timeframe] = [], suppression: Suppression = .none,
        sendOnlyOnce: Bool = false, delayMilliseconds: Int64 = 0, deliverAt: Timestamp? = nil,
        content: CampaignContent = CampaignContent(), isInstant: Bool = false, name: String? = nil,
        onEnter: LocalizedBlock? = nil, onExit: LocalizedBlock? = nil,
        origin: SourceLocation = SourceLocation(file: "", line: 0), source: JSONValue = .null
    ) {
        self.eid = eid
        self.id = CampaignID(eid: eid)
        self.trigger = trigger
        self.actionType = actionType
        self.beacons = beacons
        self.timeframes = timeframes
        self.suppression = suppression
        self.sendOnlyOnce = sendOnlyOnce
        self.delayMilliseconds = delayMilliseconds
        self.deliverAt = deliverAt
        self.content = content
        self.isInstant = isInstant
        self.name = name
        self.onEnter = onEnter
        self.onExit = onExit
        self.origin = origin
        self.source = source
    }

    /// The localized block an event of `kind` reads: `onEnter` or `onExit`.
    public func block(for kind: EventKind) -> LocalizedBlock? {
        kind == .enter ? onEnter : onExit
    }
}

/// A campaign's identity for state: the eid lower-cased with dashes removed.
public struct CampaignID: Sendable, Hashable, Comparable, CustomStringConvertible {
    /// The eid lower-cased with dashes removed.
    public var canonical: String

    /// The id of an eid as written.
    public init(eid: String) {
        // ASCII (every eid seen in practice) is folded byte by byte; anything else through Unicode.
        var text = eid
        if let folded = text.withUTF8({ isASCII($0) ? Self.fold($0) : nil }) {
            canonical = folded
        } else {
            canonical = String(String.UnicodeScalarView(eid.lowercased().unicodeScalars.filter { $0 != "-" }))
        }
    }

    /// The id of a text already canonical (read back from stored state).
    public init(canonical: String) { self.canonical = canonical }

    /// ASCII lower-cased with dashes dropped, written straight into the new string.
    private static func fold(_ ascii: UnsafeBufferPointer<UInt8>) -> String {
        String(unsafeUninitializedCapacity: ascii.count) { out in
            var n = 0
            for byte in ascii where byte != 0x2D {
                out[n] = byte >= 0x41 && byte <= 0x5A ? byte | 0x20 : byte
                n += 1
            }
            return n
        }
    }

    /// The canonical form: lower-cased, dashes dropped.
    public var description: String { canonical }

    /// Orders ids by their canonical text (listings such as `report`'s are sorted so).
    public static func < (a: CampaignID, b: CampaignID) -> Bool { a.canonical < b.canonical }
}

/// Which beacon transitions a campaign answers.
public enum Trigger: Sendable, Equatable {
    /// Only when the device comes into range (`trigger: 1`).
    case enter
    /// Only when the device leaves (`trigger: 2`).
    case exit
    /// Both (`trigger: 3`, the default).
    case enterExit

    /// Whether an event of `kind` is one this trigger answers.
    public func matches(_ kind: EventKind) -> Bool {
        switch self {
        case .enter: kind == .enter
        case .exit: kind == .exit
        case .enterExit: true
        }
    }

    /// The trigger as campaign files write it.
    public var name: String {
        switch self {
        case .enter: "enter"
        case .exit: "exit"
        case .enterExit: "enterExit"
        }
    }
}

/// The kind of a beacon event.
public enum EventKind: Sendable, Equatable {
    /// The device came into the beacon's range.
    case enter
    /// The device left it.
    case exit

    /// The kind as events and records write it.
    public var name: String { self == .enter ? "enter" : "exit" }
}

/// What a record asks the app to do.
public enum ActionType: Int, Sendable, Equatable {
    /// `type: 1`: a notification the device shows.
    case notification = 1
    /// `type: 2`: a web page the app opens.
    case website = 2
    /// `type: 3`: content shown inside the app.
    case inApp = 3
    /// `type: 4`: data for the app, nothing shown (records of kind `silent`).
    case silent = 4

    /// The record's `actionType` text.
    public var name: String {
        switch self {
        case .notification: "notification"
        case .website: "website"
        case .inApp: "inApp"
        case .silent: "silent"
        }
    }
}

/// A window in which a campaign is live: start inclusive, end exclusive, either bound open.
public struct Timeframe: Sendable, Equatable {
    /// The first instant live, nil for no bound.
    public var start: Timestamp?
    /// The first instant no longer live, nil for no bound.
    public var end: Timestamp?

    /// A window between these bounds.
    public init(start: Timestamp?, end: Timestamp?) {
        self.start = start
        self.end = end
    }

    /// Whether `t` is inside the window: at or after `start`, before `end`.
    @inlinable
    public func contains(_ t: Timestamp) -> Bool {
        (start.map { $0 <= t } ?? true) && (end.map { t < $0 } ?? true)
    }
}

/// How often a campaign may fire for one device.
public enum Suppression: Sendable, Equatable {
    /// `-1` or absent.
    case none
    /// `0`: once per device, ever.
    case once
    /// `> 0`: not again before the last firing's event time plus this many milliseconds.
    case interval(milliseconds: Int64)
}

/// `content` of a Sensorberg action; every field may be absent.
public struct CampaignContent: Sendable, Equatable {
    /// The notification's title.
    public var subject: String?
    /// The notification's text.
    public var body: String?
    /// The URL the action opens.
    public var url: String?
    /// `content.payload` as written; nil when absent (records then carry `null`).
    public var payload: JSONValue?

    /// Content of each part.
    public init(subject: String? = nil, body: String? = nil, url: String? = nil, payload: JSONValue? = nil) {
        self.subject = subject
        self.body = body
        self.url = url
        self.payload = payload
    }
}

/// A file and line a campaign or diagnostic points at.
public struct SourceLocation: Sendable, Equatable, CustomStringConvertible {
    /// The file as given.
    public var file: String
    /// The line (1 for the first; 0 when not known).
    public var line: Int
    /// The column, when known.
    public var column: Int?

    /// A place in a file.
    public init(file: String, line: Int, column: Int? = nil) {
        self.file = file
        self.line = line
        self.column = column
    }

    /// `FILE:LINE:COLUMN`, leaving out what is not known, as compilers print a place.
    public var description: String {
        var text = file
        if line > 0 { text += ":\(line)" }
        if let column, line > 0 { text += ":\(column)" }
        return text
    }
}
