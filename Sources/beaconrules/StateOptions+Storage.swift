import BeaconRulesPostgres
import BeaconRulesService
import BeaconRulesStore

extension StateOptions {
    /// Where a `RulesService` keeps the state `--state` names (it opens the store itself, on its
    /// own owner): `http` and `console`.
    func storage() throws(StoreError) -> StateStorage {
        switch try location() {
        case .sqlite(let path): .sqlite(path: path)
        case .postgres(let location): .postgres(location)
        case nil: .inMemory
        }
    }
}
