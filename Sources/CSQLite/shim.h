// The system SQLite (Debian: libsqlite3-dev). Only BeaconRulesStore imports this module.
#include <sqlite3.h>
