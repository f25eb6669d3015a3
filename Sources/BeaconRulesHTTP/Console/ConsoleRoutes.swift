import Foundation
import HTTPTypes
package import BeaconRulesService
package import Hummingbird

/// The campaign console's routes (`RouteTable.Group.console`): the pages people read, try and
/// edit campaigns with. Without an apps file they are at the top (`/campaigns/EID`); with one,
/// `/` lists the apps and each app's pages are under `/apps/ID/`. Every route is behind
/// `ConsoleGuard` (token, security headers); every POST carries the CSRF token.
package struct ConsoleRoutes: Sendable {
    package let apps: [ConsoleApp]
    package let byPath: Bool
    package let settings: ConsoleSettings

    /// The console of `apps`: each app's own campaign paths, or `settings.campaigns` for the one
    /// app of a process without an apps file.
    package init(apps: RulesApps, settings: ConsoleSettings) {
        byPath = apps.requiresKey
        self.apps = apps.apps.map { app in
            let folders = apps.requiresKey
                ? CampaignFolders(paths: app.definition.campaigns, locales: app.definition.locales)
                : CampaignFolders(paths: settings.campaigns, locales: settings.locales)
            return ConsoleApp(id: app.definition.id, rules: app.rules, folders: folders)
        }
        self.settings = settings
    }

    package func add(to router: Router<BasicRequestContext>) {
        let group = router.group().add(middleware: ConsoleGuard<BasicRequestContext>(token: settings.token, loginPath: "/login"))
        group.get("assets/:name") { _, context in
            guard let response = ConsoleAssets.response(context.parameters.get("name") ?? "") else { throw HTTPError(.notFound) }
            return response
        }
        let login = LoginPage(settings: settings)
        group.get("login") { _, _ in login.form(failed: false) }
        group.post("login") { request, _ in try await login.submit(request) }
        if byPath {
            let apps = self.apps
            let csrf = settings.csrf
            group.get("/") { _, _ in await AppListPage.response(apps: apps, csrf: csrf) }
            let each = group.group("apps/:app")
            addPages(to: each) { context in
                let id = context.parameters.get("app") ?? ""
                guard let app = apps.first(where: { $0.id == id }) else { throw HTTPError(.notFound, message: "no app \"\(id)\"") }
                return app
            }
        } else {
            let app = apps[0]
            addPages(to: group) { _ in app }
        }
    }

    /// One app's pages, on `group`; `app` finds the app a request names.
    private func addPages(to group: RouterGroup<BasicRequestContext>, app: @escaping @Sendable (BasicRequestContext) throws -> ConsoleApp) {
        let settings = self.settings
        let byPath = self.byPath
        @Sendable func page(_ app: ConsoleApp) -> ConsolePage {
            ConsolePage(base: byPath ? "/apps/" + app.id : "", csrf: settings.csrf, app: byPath ? app.id : nil)
        }
        group.get("/") { request, context in
            let start = ContinuousClock.now
            let app = try app(context)
            var response = CampaignListPage(page: page(app)).response(await app.snapshot(), request: request)
            // The server's own time for the page (scripts/console-benchmark.sh reads it).
            let elapsed = ContinuousClock.now - start
            let milliseconds = Double(elapsed.components.seconds) * 1000 + Double(elapsed.components.attoseconds) / 1e15
            response.headers[.serverTiming] = "render;dur=" + String(format: "%.2f", milliseconds)
            return response
        }
        group.get("campaigns/:eid") { request, context in
            let app = try app(context)
            return try CampaignPreviewPage(page: page(app)).response(await app.snapshot(), eid: Self.eid(context), request: request)
        }
        group.get("campaigns/:eid/edit") { _, context in
            let app = try app(context)
            return try EditPage(page: page(app)).form(await app.snapshot(), eid: Self.eid(context))
        }
        group.post("campaigns/:eid/edit") { request, context in
            let app = try app(context)
            return try await EditPage(page: page(app)).save(app, eid: Self.eid(context), request: request, limit: settings.maximumBody)
        }
        group.post("campaigns/:eid/lint") { request, context in
            let app = try app(context)
            return try await EditPage(page: page(app)).lint(app, eid: Self.eid(context), request: request, limit: settings.maximumBody)
        }
        group.get("translations") { _, context in
            let app = try app(context)
            return TranslationMatrix(await app.snapshot()).page(page(app))
        }
        group.get("translations.csv") { _, context in
            let app = try app(context)
            return TranslationMatrix(await app.snapshot()).csvResponse()
        }
        group.get("try") { request, context in
            let app = try app(context)
            return await TryPage(page: page(app), hasState: settings.hasState).response(app, request: request)
        }
        group.get("results") { _, context in
            let app = try app(context)
            return await ResultsPage(page: page(app), hasState: settings.hasState).response(app, timeline: nil)
        }
        group.post("results") { request, context in
            let app = try app(context)
            return try await ResultsPage(page: page(app), hasState: settings.hasState).upload(app, request: request, limit: settings.maximumBody)
        }
    }

    private static func eid(_ context: BasicRequestContext) -> String {
        (context.parameters.get("eid") ?? "").removingPercentEncoding ?? ""
    }
}

extension HTTPField.Name {
    static let serverTiming = Self("Server-Timing")!
}
