#include "wal_sharing.h"
#include <sqlite3.h>

int notes_wal_keep_between_processes(sqlite3 *db) {
    int persist = 1;
    int rc = sqlite3_file_control(db, "main", SQLITE_FCNTL_PERSIST_WAL, &persist);
    if (rc != SQLITE_OK) return rc;
    return sqlite3_db_config(db, SQLITE_DBCONFIG_NO_CKPT_ON_CLOSE, 1, (int *)0);
}
