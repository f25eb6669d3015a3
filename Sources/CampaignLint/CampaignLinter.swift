package import BeaconRules

/// Finds the mistakes in loaded campaigns that loading lets through because the engine can run
/// them, but that make a campaign manager ask "why did nobody get this notification?".
///
/// Every finding is a `Diagnostic` pointing at the field (file, line, column) with what is wrong and
/// what to do; errors are campaigns that can not work as meant, warnings those that work otherwise
/// than the manager probably expects.
package struct CampaignLinter: Sendable {
    /// "Now" for the checks about the past (timeframes that all ended, deliverAt gone by).
    package var now: Timestamp
    package var locales: LocaleTable

    package init(now: Timestamp, locales: LocaleTable) {
        self.now = now
        self.locales = locales
    }

    /// Every finding for `campaigns`, campaign by campaign in load order.
    package func lint(_ campaigns: [Campaign]) -> [Diagnostic] {
        var findings = Findings()
        var firstByID: [CampaignID: Campaign] = [:]
        for campaign in campaigns {
            var f = Findings(campaign: campaign)
            if let first = firstByID[campaign.id] {
                f.warning(at: ["eid"], "duplicate eid \"\(campaign.eid)\" (also at \(first.origin)): actions that share an eid are one campaign, so only the first that fires sends and they share suppression state; give each campaign its own eid")
            } else {
                firstByID[campaign.id] = campaign
            }
            checkBeacons(&f)
            checkKeys(&f)
            checkBlocks(&f)
            checkTimes(&f)
            checkSuppression(&f)
            checkURL(&f)
            findings.all += f.all
        }
        return findings.all
    }

    // MARK: - Beacons

    func checkBeacons(_ f: inout Findings) {
        let c = f.campaign!
        guard !c.isInstant else { return }
        if c.beacons.isEmpty {
            f.warning(at: ["eid"], "the campaign lists no beacons, so no event ever matches it; add a beacon (a 42-char pid, or a 32-hex proximity UUID for all its beacons)")
        } else if c.beacons.allSatisfy({ if case .geofence = $0 { true } else { false } }) {
            f.warning(at: ["beacons"], "the campaign lists only geofence ids (14 characters); they never match a beacon event, so it never fires")
        }
        var seen: [BeaconPattern] = []
        for (i, pattern) in c.beacons.enumerated() {
            if seen.contains(pattern) { f.warning(at: ["beacons", PathStep(index: i)], "beacon \(i + 1) repeats an earlier entry of this campaign; remove it") }
            seen.append(pattern)
        }
    }

    // MARK: - Localized blocks

    func checkBlocks(_ f: inout Findings) {
        let c = f.campaign!
        guard c.actionType != .silent else { return }
        let served: [EventKind] = c.isInstant ? [.enter, .exit] : [EventKind.enter, .exit].filter { c.trigger.matches($0) }
        let blocks: [(kind: EventKind, block: LocalizedBlock)] = [(.enter, c.onEnter), (.exit, c.onExit)].compactMap { k, b in b.map { (k, $0) } }
        let payloadPath: [PathStep] = ["content", "payload"]
        func blockName(_ kind: EventKind) -> String { kind == .enter ? "onEnter" : "onExit" }

        if !blocks.isEmpty {
            for kind in served where c.block(for: kind) == nil {
                let other = blockName(kind == .enter ? .exit : .enter)
                let fallback = c.content.subject ?? c.content.body
                if fallback == nil {
                    f.error(at: ["trigger"], "trigger \(c.trigger.name) fires on \(kind.name), but only \(other) has localized strings and content has no subject or body: \(kind.name) notifications would be empty; add an \(blockName(kind)) block or change the trigger")
                } else {
                    f.warning(at: ["trigger"], "trigger \(c.trigger.name) fires on \(kind.name), but only \(other) has localized strings: \(kind.name) notifications show content.subject/body in every language; add an \(blockName(kind)) block or change the trigger")
                }
            }
            for (kind, _) in blocks where !served.contains(kind) {
                f.warning(at: payloadPath + [PathStep(blockName(kind))], "\(blockName(kind)) is never used: trigger \(c.trigger.name) never fires on \(kind.name)")
            }
        }
        if let enter = c.onEnter, let exit = c.onExit, served.count == 2 {
            let exitTags = Set(exit.languages.map(\.tag))
            for language in enter.languages where !exitTags.contains(language.tag) {
                f.warning(at: payloadPath + ["onExit"], "language \"\(language.key)\" has onEnter strings but none in onExit: its users get exit notifications in another language; add \"\(language.key)\" to onExit")
            }
        }
        let chooser = LanguageChooser(locales: locales)
        for (kind, block) in blocks where served.contains(kind) {
            let path = payloadPath + [PathStep(blockName(kind))]
            for language in block.languages {
                let at = path + [PathStep(language.key)]
                let label = "\(blockName(kind)) language \"\(language.key)\""
                for (key, fallback, field) in [("title", c.content.subject, "subject"), ("message", c.content.body, "body")] where language.strings[key] == nil {
                    if let fallback {
                        f.warning(at: at, "\(label) has no \(key): content.\(field) \"\(fallback)\" is shown instead; add \(key)")
                    } else {
                        f.error(at: at, "\(label) has no \(key), and content has no \(field): the notification would have no \(key == "title" ? "title" : "text"); add \(key)")
                    }
                }
                // The campaign's own buttons replace OK and Cancel: their titles are never shown.
                guard c.actions.categoryActions.isEmpty else { continue }
                let buttons: [(key: String, fallback: String?)] = [
                    ("okButtonTitle", chooser.defaultConfirmTitle(block.confirmAction, tag: language.tag)),
                    ("cancelButtonTitle", chooser.defaultCancelTitle(tag: language.tag)),
                ].filter { language.strings[$0.key] == nil }
                if buttons.contains(where: { $0.fallback == nil }) {
                    f.error(at: at, "\(label) has no \(buttons.map(\.key).joined(separator: " or ")) and no Locales file gives one: a button would have no title; add it")
                } else if !buttons.isEmpty {
                    let defaults = buttons.map { "\"\($0.fallback!)\"" }.joined(separator: " and ")
                    f.warning(at: at, "\(label) has no \(buttons.map(\.key).joined(separator: " or ")): the Locales default\(buttons.count == 1 ? "" : "s") \(defaults) \(buttons.count == 1 ? "is" : "are") shown; add \(buttons.count == 1 ? "it" : "them") to choose the words")
                }
            }
        }
    }

    // MARK: - Time

    func checkTimes(_ f: inout Findings) {
        let c = f.campaign!
        for (i, frame) in c.timeframes.enumerated() {
            if let start = frame.start, let end = frame.end, end <= start {
                f.error(at: ["timeframes", PathStep(index: i)], "timeframe \(i + 1) ends (\(end)) \(end == start ? "when" : "before") it starts (\(start)): it is never live; swap or correct the bounds")
            }
        }
        let usable = c.timeframes.filter { frame in !(frame.start != nil && frame.end != nil && frame.end! <= frame.start!) }
        let allPast = !usable.isEmpty && usable.allSatisfy { $0.end.map { $0 <= now } ?? false }
        if allPast {
            let last = usable.compactMap(\.end).max()!
            f.warning(at: ["timeframes"], "every timeframe ended by \(now) (the last at \(last)): the campaign never fires again; add a current timeframe or retire it")
        }
        guard let deliverAt = c.deliverAt else { return }
        if c.delayMilliseconds > 0 {
            f.warning(at: ["deliverAt"], "deliverAt is ignored because delay is set (the fireDate is the event time + delay); remove one of them")
            return
        }
        if !usable.isEmpty, usable.allSatisfy({ $0.start.map { $0 > deliverAt } ?? false }) {
            let first = usable.compactMap(\.start).min()!
            f.error(at: ["deliverAt"], "deliverAt \(deliverAt) is before every timeframe (the first opens \(first)): every event inside a timeframe comes after deliverAt, so nothing is ever delivered; move deliverAt into or after a timeframe")
        } else if deliverAt < now && !allPast {
            f.warning(at: ["deliverAt"], "deliverAt \(deliverAt) is before \(now): events from now on get nothing from this campaign")
        }
    }

    // MARK: - Suppression

    func checkSuppression(_ f: inout Findings) {
        let c = f.campaign!
        guard c.sendOnlyOnce else { return }
        let key = c.source.member("suppressionTime") != nil ? "suppressionTime" : "supressionTime"
        guard let member = c.source.member(key), !member.value.isNull, member.value.doubleValue != -1 else { return }
        f.warning(at: [PathStep(key)], "suppressionTime (\(member.value.compactText) s) and sendOnlyOnce are both set: sendOnlyOnce wins, the campaign fires at most once per device, ever; remove suppressionTime, or set sendOnlyOnce to false to repeat after the suppression time")
    }

    // MARK: - URL

    func checkURL(_ f: inout Findings) {
        let c = f.campaign!
        guard let url = c.content.url, !url.isEmpty else { return }
        switch URLCheck.check(url) {
        case .valid(let scheme):
            if scheme == "http" && c.actionType == .website {
                f.warning(at: ["content", "url"], "website campaign with an http URL (\"\(url)\"): the page would open unencrypted, and iOS blocks plain http by default; use https://")
            }
        case .forbidden(let scheme, let why):
            f.error(at: ["content", "url"], "\(scheme): URLs are not allowed in campaigns (\(why)): \"\(url)\"; use an https:// URL or an app URL scheme")
        case .invalid(let why):
            f.error(at: ["content", "url"], "url \"\(url)\" does not parse: \(why)")
        }
    }
}

/// A step into a campaign's source: a member name or an array index.
struct PathStep: ExpressibleByStringLiteral, ExpressibleByIntegerLiteral, Sendable {
    var key: String?
    var index: Int?

    init(_ key: String) { self.key = key }
    init(index: Int) { self.index = index }
    init(stringLiteral value: String) { key = value }
    init(integerLiteral value: Int) { index = value }
}

/// Findings for one campaign, placed at the source position of the field they are about.
struct Findings {
    var campaign: Campaign?
    var all: [Diagnostic] = []

    init(campaign: Campaign? = nil) { self.campaign = campaign }

    /// The deepest position along `path` that the source knows; the campaign itself otherwise.
    func location(_ path: [PathStep]) -> SourceLocation {
        guard let campaign else { return SourceLocation(file: "", line: 0) }
        var best = campaign.origin
        var value = campaign.source
        for step in path {
            if let key = step.key, let member = value.member(key) {
                if member.line > 0 { best = SourceLocation(file: campaign.origin.file, line: member.line, column: member.column > 0 ? member.column : nil) }
                value = member.value
            } else if let index = step.index, let elements = value.arrayElements, index < elements.count {
                let element = elements[index]
                if element.line > 0 { best = SourceLocation(file: campaign.origin.file, line: element.line, column: element.column > 0 ? element.column : nil) }
                value = element.value
            } else {
                break
            }
        }
        return best
    }

    mutating func error(at path: [PathStep], _ message: String) {
        all.append(Diagnostic(.error, location(path), prefixed(message)))
    }

    mutating func warning(at path: [PathStep], _ message: String) {
        all.append(Diagnostic(.warning, location(path), prefixed(message)))
    }

    /// Names the campaign, since one file often holds many.
    private func prefixed(_ message: String) -> String {
        guard let campaign else { return message }
        return "campaign \"\(campaign.eid)\": \(message)"
    }
}
