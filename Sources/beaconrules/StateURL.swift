import BeaconRulesPostgres
import BeaconRulesStore

/// `--state postgres://...` with its password: from `--state-password-file`, else `PGPASSWORD`.
enum StateURL {
    static func location(_ url: String, passwordFile: String?) throws(StoreError) -> PostgresLocation {
        var location = try PostgresLocation(url: url)
        try location.readPassword(file: passwordFile)
        return location
    }
}
