import BeaconRules

/// Keys no part of the engine reads: loading keeps them (the formats are open), `lint` names each
/// with the known key it is nearest to, so that `"supressionTme": 600` is not silently no
/// suppression at all.
extension CampaignLinter {
    func checkKeys(_ f: inout Findings) {
        let source = f.campaign!.source
        check(source, .action, at: [], in: &f)
        if let content = source.member("content")?.value {
            check(content, .content, at: ["content"], in: &f)
            for block in ["onEnter", "onExit"] {
                guard let members = content["payload"]?[block]?.objectMembers else { continue }
                let path: [PathStep] = ["content", "payload", PathStep(block)]
                // Language blocks are objects under any key; every other member is a setting.
                let settings = members.filter { $0.value.objectMembers == nil }
                check(.object(settings), .localizedBlock, at: path, in: &f)
                for language in members where language.value.objectMembers != nil {
                    check(language.value, .languageStrings, at: path + [PathStep(language.key)], in: &f)
                }
            }
        }
        for key in CampaignVocabulary.spellings(of: "notificationAction") {
            if let action = source.member(key)?.value { checkAction(action, at: [PathStep(key)], in: &f) }
        }
        for key in CampaignVocabulary.spellings(of: "categoryActions") {
            for (i, element) in (source.member(key)?.value.arrayElements ?? []).enumerated() {
                checkAction(element.value, at: [PathStep(key), PathStep(index: i)], in: &f)
            }
        }
        if let aps = source.member("aps")?.value { check(aps, .aps, at: ["aps"], in: &f) }
    }

    /// An MCE action object; a calendar action may carry its event's keys flat.
    private func checkAction(_ action: JSONValue, at path: [PathStep], in f: inout Findings) {
        let calendar = action["type"]?.stringValue.map { ActionKind(type: $0) == .calendar } ?? false
        check(action, .notificationAction, also: calendar ? CampaignVocabulary.known(.calendarEvent) : [], at: path, in: &f)
    }

    private func check(_ value: JSONValue, _ object: CampaignVocabulary.Object, also extra: [String] = [], at path: [PathStep], in f: inout Findings) {
        guard let members = value.objectMembers else { return }
        let accepted = CampaignVocabulary.accepted(object).union(extra)
        let place = path.isEmpty ? "the action" : "`" + path.map { step in step.key.map { ".\($0)" } ?? "[\(step.index ?? 0)]" }.joined().dropFirst() + "`"
        for member in members where !accepted.contains(member.key) {
            let hint = Spelling.closest(to: member.key, in: CampaignVocabulary.known(object) + extra).map { "; did you mean \"\($0)\"?" } ?? ""
            f.warning(at: path + [PathStep(member.key)], "unknown key \"\(member.key)\" in \(place): it is kept, but nothing reads it\(hint)")
        }
    }
}
