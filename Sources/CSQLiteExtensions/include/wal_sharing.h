// Keeping the search index's write-ahead log between processes.
//
// Every `notes` command is a short process. By default the last connection to close a WAL
// database checkpoints the log and deletes it; the next process (GRDB's DatabasePool) then
// finds no log and writes a throwaway transaction to create one. A read-only `notes search`
// thus wrote, took the write lock and fsynced three times. With the log kept (persistent
// WAL) and no checkpoint on close, a command that only reads writes nothing; the writer
// keeps the log short instead (NotesIndex/WALSharing.swift).
#ifndef NOTES_WAL_SHARING_H
#define NOTES_WAL_SHARING_H

typedef struct sqlite3 sqlite3;

/// Keeps the log file when this connection closes and skips the checkpoint on close
/// (SQLITE_FCNTL_PERSIST_WAL, SQLITE_DBCONFIG_NO_CKPT_ON_CLOSE; `sqlite3_db_config` is
/// variadic, so Swift cannot call it). Returns SQLITE_OK or SQLite's error code.
int notes_wal_keep_between_processes(sqlite3 *db);

#endif
