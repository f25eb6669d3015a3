// The system SQLite (Debian: libsqlite3-dev). Only BeaconRulesStore imports this module.
#include <sqlite3.h>

/// Turns SQLite's memory statistics off (`SQLITE_CONFIG_MEMSTATUS`): with them on, every allocation
/// and free inside SQLite takes a process-wide mutex. `sqlite3_config` is variadic, which Swift
/// cannot call; it only works before SQLite is initialized (SQLITE_MISUSE after, and ignored).
static inline int beaconrules_sqlite3_memory_statistics_off(void) {
    return sqlite3_config(SQLITE_CONFIG_MEMSTATUS, 0);
}
