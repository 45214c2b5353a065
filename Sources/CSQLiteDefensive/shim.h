#include <sqlite3.h>

/// sqlite3_db_config() is variadic, so Swift cannot call it: these wrap the calls that open
/// an untrusted database defensively. Each returns SQLITE_OK or an error code.
static inline int outpost_sqlite_enable_defensive(sqlite3 *db) {
    int rc = SQLITE_OK;
#ifdef SQLITE_DBCONFIG_DEFENSIVE
    rc = sqlite3_db_config(db, SQLITE_DBCONFIG_DEFENSIVE, 1, (int *)0);
    if (rc != SQLITE_OK) return rc;
#endif
#ifdef SQLITE_DBCONFIG_TRUSTED_SCHEMA
    rc = sqlite3_db_config(db, SQLITE_DBCONFIG_TRUSTED_SCHEMA, 0, (int *)0);
    if (rc != SQLITE_OK) return rc;
#endif
#ifdef SQLITE_DBCONFIG_ENABLE_TRIGGER
    rc = sqlite3_db_config(db, SQLITE_DBCONFIG_ENABLE_TRIGGER, 0, (int *)0);
    if (rc != SQLITE_OK) return rc;
#endif
#ifdef SQLITE_DBCONFIG_ENABLE_VIEW
    rc = sqlite3_db_config(db, SQLITE_DBCONFIG_ENABLE_VIEW, 0, (int *)0);
    if (rc != SQLITE_OK) return rc;
#endif
    return SQLITE_OK;
}
