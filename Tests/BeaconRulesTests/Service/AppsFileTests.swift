import BeaconRulesService
import Foundation
import Testing

/// `--apps FILE`: apps with their keys and paths from the file's folder, and every problem at its
/// line and column, none of them costing the others' report.
@Suite("Apps file")
struct AppsFileTests {
    func parse(_ text: String) throws(AppsFileError) -> [AppDefinition] {
        try AppsFile.parse(Array(text.utf8), file: "apps.json", folder: "/srv/apps")
    }

    @Test func appsComeInTheFilesOrderWithPathsFromItsFolder() throws {
        let apps = try parse("""
            {"apps": [
              {"id": "museum", "keys": ["k-museum"], "campaigns": ["museum/campaigns", "/abs/extra.json"], "locales": "../Locales"},
              {"id": "zoo", "keys": ["k-zoo-1", "k-zoo-2"], "campaigns": ["zoo.xml"]}
            ]}
            """)
        #expect(apps == [
            AppDefinition(id: "museum", keys: ["k-museum"], campaigns: ["/srv/apps/museum/campaigns", "/abs/extra.json"], locales: "/srv/Locales"),
            AppDefinition(id: "zoo", keys: ["k-zoo-1", "k-zoo-2"], campaigns: ["/srv/apps/zoo.xml"]),
        ])
    }

    @Test func everyProblemIsReportedAtItsLineAndColumn() {
        let text = """
            {"apps": [
              {"id": "bad id!", "keys": ["a"], "campaigns": ["c"]},
              {"id": "zoo", "keys": [], "campaigns": ["c"], "locale": "L"},
              {"id": "museum", "keys": ["a"], "campaigns": [3]},
              {"id": "twice", "keys": ["b"], "campaigns": ["c"]},
              {"id": "twice", "keys": ["c"], "campaigns": ["c"]},
              {"id": "shares", "keys": ["b"], "campaigns": ["c"]}
            ]}
            """
        #expect {
            try parse(text)
        } throws: { error in
            let lines = (error as! AppsFileError).description.split(separator: "\n").map(String.init)
            return lines == [
                #"apps.json:2:4: "id" must be 1 to 64 of A-Z a-z 0-9 _ -"#,
                #"apps.json:3:49: unknown member "locale" of an app; expected "id", "keys", "campaigns", "locales""#,
                #"apps.json:3:17: "keys" must be a non-empty array of strings"#,
                #"apps.json:4:49: "campaigns" holds strings only, found a number"#,
                #"apps.json:6:3: app id "twice" is already the id of the app at line 5"#,
                #"apps.json:7:3: app "shares": a key is already a key of app "twice" (a key names one app)"#,
            ]
        }
    }

    @Test func aDocumentThatIsNoAppsObjectSaysWhatWasExpected() {
        for (text, message) in [
            ("[1]", #"apps.json:1:1: expected an object {"apps": [...]}, found an array"#),
            (#"{"apps": []}"#, #"apps.json:1:2: "apps" must be a non-empty array of app objects"#),
            (#"{"apps": [1], "x": 2}"#, #"apps.json:1:15: unknown member "x"; expected only "apps""#),
            ("{", "apps.json:1:2: "),
        ] {
            #expect {
                try parse(text)
            } throws: { error in
                (error as! AppsFileError).description.hasPrefix(message)
            }
        }
    }

    @Test func aKeyWrittenTwiceInOneAppIsNoConflict() throws {
        let apps = try parse(#"{"apps": [{"id": "museum", "keys": ["k", "k"], "campaigns": ["c"]}]}"#)
        #expect(apps.map(\.id) == ["museum"])
    }

    @Test func aFileThatCannotBeReadSaysSo() {
        #expect(throws: AppsFileError.self) { try AppsFile.read(path: "/nonexistent/apps.json") }
    }

    @Test func appIDsAreShortAndPlain() {
        #expect(AppDefinition.isValidID("museum_2-b"))
        #expect(!AppDefinition.isValidID(""))
        #expect(!AppDefinition.isValidID("a/b"))
        #expect(!AppDefinition.isValidID(String(repeating: "a", count: 65)))
    }
}
