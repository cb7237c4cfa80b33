// Ranking sections by BM25 without a lookup per row for their length.
//
// FTS5's bm25() finds each matching row's length in tokens with a query of its own on the
// `%_docsize` table: for a common word, thousands of B-tree lookups, most of what ranking
// costs. `notes_rank(fts, w_title, w_heading, w_tags, w_body)` computes the same score with
// the same formula, operations and order (equal to bm25()'s to the last bit), and takes the
// lengths from a `notes_section_sizes` when the connection has one: every row's length,
// read once from `fts_docsize` and used by every search until the full-text table changes.
// A long-lived process (the MCP server) gives its connections one; a short command, which
// would read every length to rank a few thousand, gives none and ranks as bm25() does.
#ifndef NOTES_SECTION_RANK_H
#define NOTES_SECTION_RANK_H

typedef struct sqlite3 sqlite3;

/// The lengths of every row of one database's full-text table `fts`, shared by the
/// connections that open it. Reference-counted; safe on any thread.
typedef struct notes_section_sizes notes_section_sizes;

/// A new, empty set of lengths (read at the first ranking that needs them). NULL when out
/// of memory.
notes_section_sizes *notes_section_sizes_new(void);

/// Drops the caller's reference.
void notes_section_sizes_release(notes_section_sizes *sizes);

/// Registers `notes_rank` on a connection, taking the lengths from `sizes` (which it keeps a
/// reference to while the connection is open), or from FTS5 row by row when `sizes` is NULL.
/// The lengths are checked against the table at the start of every ranking statement (FTS5's
/// structure and totals records, which every write to the table changes, and
/// `meta.database_token`, new in every database the index creates) and read again, in the
/// statement's own snapshot, when they differ. Returns an SQLite result code.
int notes_rank_register(sqlite3 *db, notes_section_sizes *sizes);

/// How many times `sizes` read every length (for tests).
long notes_section_sizes_loads(notes_section_sizes *sizes);

#endif
