// SQLite's process-wide settings, made before the first connection opens.
//
// By default SQLite keeps memory statistics: every sqlite3_malloc and sqlite3_free takes a
// process-wide mutex to update them (FTS5 allocates per token it hashes, so a first index
// takes that mutex very often). notes never reads the statistics.
// `sqlite3_config` is variadic, so Swift cannot call it.
#ifndef NOTES_SQLITE_SETUP_H
#define NOTES_SQLITE_SETUP_H

/// Turns SQLite's memory statistics off, once per process. Effective only before SQLite
/// is first initialized (the first connection); later calls change nothing. Returns
/// SQLITE_OK, or SQLite's error code when it was too late.
int notes_sqlite_setup(void);

#endif
