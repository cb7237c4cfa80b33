// Tokenizing FTS5 text away from the writer.
//
// FTS5 tokenizes every column it indexes inside the INSERT, on the one thread that holds
// the write lock. These functions let the parsing threads run the same tokenizer ahead of
// time and record its output, and let the writer's connection replay the recording instead
// of tokenizing again. The FTS table declares `tokenize = 'notes_replay porter unicode61
// remove_diacritics 2'`: the `notes_replay` tokenizer wraps the tokenizer named by its
// arguments, and replays a recording only for a text that is byte-for-byte the one it was
// recorded from (anything else, and every query, delete and highlight, goes to the wrapped
// tokenizer, so a replay can only ever save work, never change what is indexed).
#ifndef NOTES_TOKEN_REPLAY_H
#define NOTES_TOKEN_REPLAY_H

#include <stddef.h>
#include <stdint.h>

typedef struct sqlite3 sqlite3;

/// The tokenizer the recordings come from; the FTS table wraps exactly this one.
#define NOTES_TOKENS_RECORDED "porter unicode61 remove_diacritics 2"

/// Recorded tokens, appended one text after another (malloc'ed; free with
/// `notes_tokens_free`).
typedef struct {
    uint8_t *bytes;
    size_t count;
    size_t capacity;
} notes_token_buffer;

/// One column of the next insert: the text as bound, and its recording.
typedef struct {
    const char *text;
    int length;
    const uint8_t *tokens;
    size_t tokens_length;
} notes_token_column;

/// FTS5's token callback: context, flags, token, token length, start and end byte offsets.
typedef int (*notes_token_callback)(void *context, int flags, const char *token, int length, int start, int end);

/// Registers the `notes_replay` tokenizer on a connection (every connection that opens the
/// index), and the auxiliary function `notes_matched(fts)`: a bit mask of the phrases of the
/// MATCH expression that occur in the row (bit i for phrase i); and `notes_snippet(fts,
/// column, before, after)`: the line of a column's first match, windowed, its matches marked
/// (see token_replay.c), in time linear in the text where FTS5's highlight() is quadratic.
/// Returns an SQLite result code.
int notes_tokens_register(sqlite3 *db);

/// Appends the tokens of `text` as NOTES_TOKENS_RECORDED produces them.
/// Safe on any thread. Returns an SQLite result code; on failure the buffer's count is
/// restored.
int notes_tokens_record(const char *text, int length, notes_token_buffer *buffer);

/// Tokenizes `text` with NOTES_TOKENS_RECORDED, calling `emit` per token (what a recording
/// holds). Safe on any thread.
int notes_tokens_tokenize(const char *text, int length, void *context, notes_token_callback emit);

/// Calls `emit` for each token of one text's recording (a range of a buffer), exactly as
/// the tokenizer did. Returns an SQLite result code (SQLITE_CORRUPT for malformed bytes).
int notes_tokens_replay(const uint8_t *tokens, size_t tokens_length, void *context, notes_token_callback emit);

/// Frees a buffer's bytes.
void notes_tokens_free(notes_token_buffer *buffer);

/// Makes room for `bytes` more bytes of recording (SQLITE_NOMEM when there is none):
/// sized up front from the texts, a buffer is not copied as it grows.
int notes_tokens_reserve(notes_token_buffer *buffer, size_t bytes);

/// Arms the calling thread's replay for the next statement (the columns are not copied and
/// must stay valid until `notes_tokens_disarm`). At most 8 columns.
void notes_tokens_arm(const notes_token_column *columns, int count);

/// Disarms the calling thread's replay.
void notes_tokens_disarm(void);

/// How many texts the calling thread replayed since the last call (and resets the count):
/// tests check that the writer's inserts really skip tokenizing.
long notes_tokens_replayed(void);

#endif
