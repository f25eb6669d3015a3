import Foundation
import Testing

/// The console in a real browser: Debian's chromium, headless, through chromedriver, against the
/// real binary over loopback (`http --console`, on a copy of the museum campaigns it may edit).
/// The screenshots of docs/console.md are taken here.
@Suite("Console in chromium", .serialized, .enabled(if: Browser.isAvailable, "needs chromium and chromium-driver (.ci/run installs them)"))
struct ConsoleBrowserTests {
    static let entranceExitDE = #"{"id":"e-1","device":"d-42","type":"exit","beacon":"b9407f30f5f8466eaff925556b57fe6d0010000001","time":"2026-06-05T17:30:00+02:00","locale":"de-DE"}"#

    /// A copy of the museum campaigns, and `http --console` on it, started in the copy's folder
    /// with `--campaigns museum`: the pages show the files as given (`museum/01-visit.json`), so
    /// the screenshots are the same from one run to the next. `body` gets the server and the
    /// copy's folder; the server is stopped when it ends (`ServerProcess.with`).
    static func withMuseum(_ extra: [String] = [], _ body: (ServerProcess, String) async throws -> Void) async throws {
        let folder = Paths.temporaryDirectory()
        try FileManager.default.copyItem(atPath: Paths.repo("Campaigns/museum"), toPath: folder + "/museum")
        try await ServerProcess.with(["--console", "--campaigns", "museum", "--locales", Paths.locales] + extra, directory: folder, command: "http") { server in
            try await body(server, folder + "/museum")
        }
    }

    static func withBrowser(_ body: (Browser) async throws -> Void) async throws {
        let browser = try await Browser.start()
        defer { browser.quit() }
        try await body(browser)
    }

    @Test func theMuseumGoodbyeShowsTeilenAndNeinDankeAndShareAndNoThanks() async throws {
        try await Self.withMuseum { server, _ in
            try await Self.withBrowser { browser in
                try browser.open("http://127.0.0.1:\(server.port)/campaigns/museum-goodbye")
                func buttons(_ language: String) throws -> [String] {
                    try browser.script("return Array.from(document.querySelectorAll('#trigger-exit .phones.own .phone[data-language=\(language)] .button')).map(b => b.textContent)") as? [String] ?? []
                }
                #expect(try buttons("de") == ["Teilen", "Nein danke"])
                #expect(try buttons("en") == ["Share", "No thanks"])
                #expect(try browser.text("#trigger-exit .phones.own").contains("Danke für Ihren Besuch!"))
                try browser.screenshot("campaign")
                try browser.open("http://127.0.0.1:\(server.port)/")
                #expect(try browser.text("#campaigns").contains("museum-goodbye"))
                try browser.screenshot("campaigns")
                try browser.open("http://127.0.0.1:\(server.port)/translations")
                #expect(try browser.text("table.matrix").contains("museum-goodbye"))
                try browser.screenshot("translations")
            }
        }
    }

    @Test func tryingAGermanExitAtTheEntranceShowsTheGoodbyeFiringWithTeilen() async throws {
        try await Self.withMuseum { server, _ in
            try await Self.withBrowser { browser in
                try browser.open("http://127.0.0.1:\(server.port)/try")
                try browser.type("input[name=beacon]", "b9407f30f5f8466eaff925556b57fe6d0010000001")
                try browser.script("document.querySelector('select[name=type]').value = 'exit'")
                try browser.script("document.querySelector('input[name=time]').value = '2026-06-05T17:30:00+02:00'")
                try browser.type("input[name=locale]", "de-DE")
                try browser.click("form button")
                #expect(await browser.wait { try browser.text("#fired").contains("Teilen") })
                let verdicts = try browser.text("#verdicts")
                #expect(verdicts.contains("museum-goodbye fired"))
                try browser.screenshot("try")
            }
        }
    }

    @Test func typingAMisspelledKeyInTheEditorShowsItsDidYouMean() async throws {
        try await Self.withMuseum { server, _ in
            try await Self.withBrowser { browser in
                try browser.open("http://127.0.0.1:\(server.port)/campaigns/museum-goodbye/edit")
                try browser.script("const e = document.getElementById('editor'); e.value = e.value.replace('\"suppressionTime\"', '\"suppressionTme\"')")
                // A key typed by the user (whitespace at the end keeps the JSON whole) sends the text to lint.
                try browser.type("#editor", " ")
                #expect(await browser.wait { try browser.text("#diagnostics").contains("did you mean \"suppressionTime\"") })
                try browser.screenshot("edit")
            }
        }
    }

    @Test func aSavedEditChangesWhatPostEventsAnswers() async throws {
        try await Self.withMuseum { server, campaigns in
            let before = try LoopbackHTTP.request(port: server.port, "POST", "/events", body: Array(Self.entranceExitDE.utf8))
            #expect(before.text.contains("\"title\":\"Teilen\""))
            try await Self.withBrowser { browser in
                try browser.open("http://127.0.0.1:\(server.port)/campaigns/museum-goodbye/edit")
                // A save with an error is refused with it, and the old set keeps serving.
                try browser.script("const e = document.getElementById('editor'); e.value = e.value.replace('\"trigger\": 2', '\"trigger\": 2,,')")
                try browser.click("#save")
                #expect(await browser.wait { try browser.text("#notice").contains("Not saved") })
                #expect(try LoopbackHTTP.request(port: server.port, "POST", "/events", body: Array(Self.entranceExitDE.utf8)).text == before.text)
                try browser.open("http://127.0.0.1:\(server.port)/campaigns/museum-goodbye/edit")
                try browser.script("const e = document.getElementById('editor'); e.value = e.value.replace('\"okButtonTitle\": \"Teilen\"', '\"okButtonTitle\": \"Jetzt teilen\"')")
                try browser.click("#save")
                #expect(await browser.wait { try browser.text("#notice").contains("Saved") })
            }
            let after = try LoopbackHTTP.request(port: server.port, "POST", "/events", body: Array(Self.entranceExitDE.replacingOccurrences(of: "e-1", with: "e-2").replacingOccurrences(of: "d-42", with: "d-43").utf8))
            #expect(after.text.contains("\"title\":\"Jetzt teilen\""))
            #expect(Paths.read(campaigns + "/01-visit.json").contains("\"okButtonTitle\": \"Jetzt teilen\""))
        }
    }

    @Test func aHostileCampaignOpensNoDialogAndShowsItsText() async throws {
        let folder = Paths.temporaryDirectory()
        let hostile = "<img src=x onerror=alert(1)>"
        try #"""
            [{"eid": "hostile", "name": "<script>alert(2)</script>", "trigger": 1, "type": 1,
              "beacons": ["b9407f30f5f8466eaff925556b57fe6d0010000009"],
              "content": {"subject": "<img src=x onerror=alert(1)>", "body": "\"><svg onload=alert(3)>",
                "payload": {"onEnter": {"en": {"title": "<img src=x onerror=alert(1)>", "message": "'><b>bold</b>"}}}}}]
            """#.write(toFile: folder + "/hostile.json", atomically: true, encoding: .utf8)
        try await ServerProcess.with(["--console", "--campaigns", folder, "--locales", Paths.locales], command: "http") { server in
            try await Self.withBrowser { browser in
                for page in ["/", "/campaigns/hostile", "/translations", "/campaigns/hostile/edit"] {
                    try browser.open("http://127.0.0.1:\(server.port)" + page)
                    #expect(browser.dialog() == nil, "a dialog opened on \(page)")
                    #expect(try browser.script("return document.querySelectorAll('img, svg, script:not([src]), b').length") as? Int == 0, "markup from the campaign on \(page)")
                }
                try browser.open("http://127.0.0.1:\(server.port)/campaigns/hostile")
                #expect(try browser.text("#trigger-enter .phones.own").contains(hostile))
                #expect(try browser.text("main").contains("<script>alert(2)</script>"))
            }
        }
    }

    @Test func theResultsPageDrawsFunnelsAndAnUploadedTracesTimeline() async throws {
        let state = Paths.temporaryDirectory() + "/state.sqlite"
        try await Self.withMuseum(["--state", state]) { server, _ in
            let day = Paths.read(Paths.fixture("museum-day.jsonl"))
            _ = try LoopbackHTTP.request(port: server.port, "POST", "/events", headers: ["Content-Type": "application/x-ndjson"], body: Array(day.utf8))
            try await Self.withBrowser { browser in
                try browser.open("http://127.0.0.1:\(server.port)/results")
                #expect(try browser.text("#funnels").contains("museum-welcome"))
                try browser.type("input[type=file]", Paths.fixture("museum-day.jsonl"))
                try browser.click("form button")
                #expect(await browser.wait { try browser.script("const i = document.getElementById('timeline'); return i !== null && i.complete && i.naturalWidth > 0") as? Bool == true })
                try browser.script("document.querySelector('h2:last-of-type').scrollIntoView()")
                try browser.screenshot("results")
            }
        }
    }

    @Test func offLoopbackTheConsoleNeedsATokenAndRefusesRequestsWithoutIt() async throws {
        let refused = try CommandRunner.run(["console", "--host", "0.0.0.0", "--port", "0", "--locales", Paths.locales])
        #expect(refused.status == 2)
        #expect(refused.stderr.contains("needs --token-file"))
        let tokenFile = Paths.temporaryDirectory() + "/token"
        let token = "museum-console-token-0123456789"
        try (token + "\n").write(toFile: tokenFile, atomically: true, encoding: .utf8)
        try await ServerProcess.with(["--host", "0.0.0.0", "--token-file", tokenFile, "--locales", Paths.locales], command: "console") { server in
            let anonymous = try LoopbackHTTP.request(port: server.port, "GET", "/campaigns/museum-goodbye")
            #expect(anonymous.status == 303 && anonymous.header("Location") == "/login")
            #expect(try LoopbackHTTP.request(port: server.port, "POST", "/campaigns/museum-goodbye/lint", body: Array("{}".utf8)).status == 401)
            let bearer = try LoopbackHTTP.request(port: server.port, "GET", "/campaigns/museum-goodbye", headers: ["Authorization": "Bearer " + token])
            #expect(bearer.status == 200 && bearer.text.contains("Nein danke"))
            #expect(try LoopbackHTTP.request(port: server.port, "GET", "/", headers: ["Authorization": "Bearer wrong-token-0123456789"]).status == 303)
            try await Self.withBrowser { browser in
                try browser.open("http://127.0.0.1:\(server.port)/campaigns/museum-goodbye")
                #expect(await browser.wait { try browser.script("return location.pathname") as? String == "/login" })
                try browser.type("input[name=token]", token)
                try browser.click("form button")
                #expect(await browser.wait { try browser.text("#campaigns").contains("museum-goodbye") })
            }
        }
    }
}
