import BeaconRules
import BeaconRulesServer
import Testing

/// A response without an `id` is known by what it says; the text typed into a text input button
/// is part of that, and only when there is one.
struct ResponseIdentityTests {
    static func response(text: String?, data: JSONValue? = nil) -> ResponseEvent {
        ResponseEvent(id: "", device: "d1", notification: "c:d1:e1", action: .click, actionId: "reply", time: Timestamp(milliseconds: 1_000), data: data, text: text)
    }

    @Test func differentTextIsADifferentResponse() {
        #expect(EventIdentity.id(of: Self.response(text: "yes")) != EventIdentity.id(of: Self.response(text: "no")))
        #expect(EventIdentity.id(of: Self.response(text: "yes")) == EventIdentity.id(of: Self.response(text: "yes")))
    }

    /// Ids derived before responses could carry text or data stay the same (a saved answer log
    /// still answers them): the 128-bit FNV-1a of `r`, then each of device, record, action,
    /// button and time after a zero byte, computed apart from the code.
    @Test func aResponseWithoutTextKeepsItsEarlierID() {
        #expect(EventIdentity.id(of: Self.response(text: nil)) == "auto-dc48a82f363844b9cedc34ab794d5fbb")
        #expect(EventIdentity.id(of: Self.response(text: nil, data: .string("x"))) == EventIdentity.id(of: Self.response(text: nil)))
        #expect(EventIdentity.id(of: Self.response(text: nil)) != EventIdentity.id(of: Self.response(text: "")))
    }
}
