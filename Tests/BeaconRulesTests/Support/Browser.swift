import Foundation
#if canImport(Glibc)
import Glibc
#endif

/// Debian's chromium, headless, driven through chromedriver over WebDriver (HTTP and JSON, with
/// `LoopbackHTTP`). As root chromium needs `--no-sandbox`; its profile is a temporary folder of
/// its own. Neither outlives the test: `quit` ends the session and chromedriver, and
/// `OrphanGuard` kills both (chromedriver, and every process of that profile) if the test process
/// dies first.
final class Browser: @unchecked Sendable {
    // One test uses a browser at a time; nothing here is shared across tasks.
    private let driver: Process
    private let port: Int
    private let session: String
    private let profile: String

    struct Failure: Error, CustomStringConvertible { var description: String }

    static var isAvailable: Bool {
        FileManager.default.isExecutableFile(atPath: "/usr/bin/chromium") && FileManager.default.isExecutableFile(atPath: "/usr/bin/chromedriver")
    }

    static func start() async throws -> Browser {
        let port = try PostgresCluster.freePort()
        let profile = Paths.temporaryDirectory()
        let driver = Process()
        driver.executableURL = URL(fileURLWithPath: "/usr/bin/chromedriver")
        driver.arguments = ["--port=\(port)"]
        driver.standardOutput = FileHandle.nullDevice
        driver.standardError = FileHandle.nullDevice
        try driver.run()
        OrphanGuard.guardProcess(driver.processIdentifier)
        OrphanGuard.guardDirectory(profile, stop: ["/usr/bin/pkill", "-9", "-f", "--", "user-data-dir=" + profile])
        var ready = false
        for _ in 0..<500 {
            if let status = try? LoopbackHTTP.json(port: port, "GET", "/status"), (status["value"] as? [String: Any])?["ready"] as? Bool == true {
                ready = true
                break
            }
            try await Task.sleep(for: .milliseconds(20))
        }
        guard ready else {
            kill(driver.processIdentifier, SIGKILL)
            throw Failure(description: "chromedriver did not answer on port \(port)")
        }
        let options: [String: Any] = [
            "binary": "/usr/bin/chromium",
            "args": ["--headless=new", "--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage", "--user-data-dir=" + profile,
                     "--window-size=1280,1400", "--hide-scrollbars", "--lang=en-US"],
        ]
        let created = try LoopbackHTTP.json(port: port, "POST", "/session", [
            "capabilities": ["alwaysMatch": ["browserName": "chrome", "goog:chromeOptions": options, "unhandledPromptBehavior": "ignore"]],
        ])
        guard let value = created["value"] as? [String: Any], let session = value["sessionId"] as? String else {
            kill(driver.processIdentifier, SIGKILL)
            throw Failure(description: "no session: \(created)")
        }
        return Browser(driver: driver, port: port, session: session, profile: profile)
    }

    private init(driver: Process, port: Int, session: String, profile: String) {
        self.driver = driver
        self.port = port
        self.session = session
        self.profile = profile
    }

    /// Ends the session (chromium quits), then chromedriver, and removes the profile.
    func quit() {
        _ = try? LoopbackHTTP.request(port: port, "DELETE", "/session/\(session)")
        // chromedriver does not end on SIGTERM.
        kill(driver.processIdentifier, SIGKILL)
        driver.waitUntilExit()
        try? FileManager.default.removeItem(atPath: profile)
    }

    @discardableResult
    private func command(_ method: String, _ path: String, _ body: [String: Any]? = nil) throws -> Any? {
        let answer = try LoopbackHTTP.json(port: port, method, "/session/\(session)" + path, method == "GET" ? nil : (body ?? [:]))
        if let value = answer["value"] as? [String: Any], let error = value["error"] as? String {
            throw Failure(description: "\(method) \(path): \(error): \(value["message"] ?? "")")
        }
        return answer["value"]
    }

    func open(_ url: String) throws {
        try command("POST", "/url", ["url": url])
    }

    /// The element `css` selects (the first), or throws.
    func element(_ css: String) throws -> String {
        let found = try command("POST", "/element", ["using": "css selector", "value": css]) as? [String: Any]
        guard let id = found?.values.first as? String else { throw Failure(description: "no element \(css)") }
        return id
    }

    /// The rendered text of the element `css` selects.
    func text(_ css: String) throws -> String {
        try command("GET", "/element/\(element(css))/text") as? String ?? ""
    }

    func click(_ css: String) throws {
        try command("POST", "/element/\(element(css))/click")
    }

    /// Types `keys` into the element, as a user would (key events, `input` events).
    func type(_ css: String, _ keys: String) throws {
        try command("POST", "/element/\(element(css))/value", ["text": keys])
    }

    /// Runs `script` in the page (`arguments` as its `arguments`) and returns its value.
    @discardableResult
    func script(_ script: String, _ arguments: [Any] = []) throws -> Any? {
        try command("POST", "/execute/sync", ["script": script, "args": arguments])
    }

    /// The text of an open alert, confirm or prompt dialog; nil when none is open.
    func dialog() -> String? {
        guard let answer = try? LoopbackHTTP.json(port: port, "GET", "/session/\(session)/alert/text") else { return nil }
        if let value = answer["value"] as? [String: Any], value["error"] != nil { return nil }
        return answer["value"] as? String
    }

    /// Waits (at most `seconds`) until `condition` holds; false if it never did.
    func wait(seconds: Double = 20, until condition: () throws -> Bool) async -> Bool {
        for _ in 0..<Int(seconds * 20) {
            if (try? condition()) == true { return true }
            try? await Task.sleep(for: .milliseconds(50))
        }
        return false
    }

    /// The viewport as a PNG, written to docs/console/NAME.png (docs/console.md shows them).
    func screenshot(_ name: String) throws {
        guard let base64 = try command("GET", "/screenshot") as? String, let data = Data(base64Encoded: base64) else {
            throw Failure(description: "no screenshot")
        }
        let folder = Paths.repo("docs/console")
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        try data.write(to: URL(fileURLWithPath: folder + "/" + name + ".png"))
    }
}
