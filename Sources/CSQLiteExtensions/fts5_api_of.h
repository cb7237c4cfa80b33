// The FTS5 API of a connection, shared by this target's C files (not part of its interface).
#ifndef NOTES_FTS5_API_OF_H
#define NOTES_FTS5_API_OF_H

#include <sqlite3.h>

/// The connection's `fts5_api` (FTS5's documented `SELECT fts5(?1)` handshake), or NULL.
fts5_api *notes_fts5_api_of(sqlite3 *db);

#endif
