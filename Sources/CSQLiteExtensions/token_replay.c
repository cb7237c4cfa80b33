#include "token_replay.h"

#include "fts5_api_of.h"

#include <pthread.h>
#include <sqlite3.h>
#include <stdlib.h>
#include <string.h>

// ---- recording --------------------------------------------------------------------------

// A token is stored as three bytes (its length, the gap from the previous token's end to its
// start, its span in the text) and its bytes. A token with any of those over 254, going
// backwards or colocated is stored as 255 and the four values in full (uint32 each, native
// order): rare, and still exact.

typedef struct {
    notes_token_buffer *buffer;
    int previous_end;
} recording;

static int reserve(notes_token_buffer *b, size_t n) {
    if (b->count + n <= b->capacity) return SQLITE_OK;
    size_t capacity = b->capacity ? b->capacity * 2 : 256;
    while (capacity < b->count + n) capacity *= 2;
    uint8_t *grown = realloc(b->bytes, capacity);
    if (!grown) return SQLITE_NOMEM;
    b->bytes = grown;
    b->capacity = capacity;
    return SQLITE_OK;
}

static int record_token(void *context, int flags, const char *token, int length, int start, int end) {
    recording *r = context;
    notes_token_buffer *b = r->buffer;
    if (length < 0 || start < 0 || end < start) return SQLITE_ERROR;
    int rc = reserve(b, 17 + (size_t)length);  // room for the long form
    if (rc != SQLITE_OK) return rc;
    uint8_t *p = b->bytes + b->count;
    int gap = start - r->previous_end, span = end - start;
    if (length < 255 && gap >= 0 && gap < 255 && span < 255 && !(flags & FTS5_TOKEN_COLOCATED)) {
        p[0] = (uint8_t)length;
        p[1] = (uint8_t)gap;
        p[2] = (uint8_t)span;
        p += 3;
    } else {
        uint32_t fields[4] = {(uint32_t)length, (uint32_t)start, (uint32_t)span, (uint32_t)flags};
        *p++ = 255;
        memcpy(p, fields, sizeof fields);
        p += sizeof fields;
    }
    memcpy(p, token, (size_t)length);
    b->count = (size_t)(p + length - b->bytes);
    r->previous_end = end;
    return SQLITE_OK;
}

fts5_api *notes_fts5_api_of(sqlite3 *db) {
    fts5_api *api = NULL;
    sqlite3_stmt *statement = NULL;
    if (sqlite3_prepare_v2(db, "SELECT fts5(?1)", -1, &statement, NULL) != SQLITE_OK) return NULL;
    sqlite3_bind_pointer(statement, 1, (void *)&api, "fts5_api_ptr", NULL);
    sqlite3_step(statement);
    sqlite3_finalize(statement);
    return api;
}

// The recording threads' tokenizer comes from a private in-memory connection that is never
// closed (the porter tokenizer finds unicode61 through its connection's FTS5 API).
static pthread_once_t recorder_once = PTHREAD_ONCE_INIT;
static fts5_tokenizer recorder_module;
static void *recorder_context;
static int recorder_ready;
static pthread_key_t recorder_key;
// NOTES_TOKENS_RECORDED split into words: the first names the tokenizer, the rest are its
// arguments.
static char recorder_words[] = NOTES_TOKENS_RECORDED;
static const char *recorder_argv[8];
static int recorder_argc;

static void delete_thread_recorder(void *instance) {
    if (instance) recorder_module.xDelete(instance);
}

static void set_up_recorder(void) {
    sqlite3 *db = NULL;
    char *rest = NULL;
    for (char *word = strtok_r(recorder_words, " ", &rest); word && recorder_argc < 8; word = strtok_r(NULL, " ", &rest)) {
        recorder_argv[recorder_argc++] = word;
    }
    if (recorder_argc == 0) return;
    if (sqlite3_open_v2(":memory:", &db, SQLITE_OPEN_READWRITE | SQLITE_OPEN_MEMORY, NULL) != SQLITE_OK) return;
    fts5_api *api = notes_fts5_api_of(db);
    if (!api) return;
    if (api->xFindTokenizer(api, recorder_argv[0], &recorder_context, &recorder_module) != SQLITE_OK) return;
    if (pthread_key_create(&recorder_key, delete_thread_recorder) != 0) return;
    recorder_ready = 1;
}

/// The calling thread's instance of the recorded tokenizer.
static Fts5Tokenizer *thread_recorder(int *rc) {
    pthread_once(&recorder_once, set_up_recorder);
    if (!recorder_ready) { *rc = SQLITE_ERROR; return NULL; }
    Fts5Tokenizer *instance = pthread_getspecific(recorder_key);
    if (!instance) {
        *rc = recorder_module.xCreate(recorder_context, recorder_argv + 1, recorder_argc - 1, &instance);
        if (*rc != SQLITE_OK) return NULL;
        pthread_setspecific(recorder_key, instance);
    }
    *rc = SQLITE_OK;
    return instance;
}

int notes_tokens_tokenize(const char *text, int length, void *context, notes_token_callback emit) {
    int rc;
    Fts5Tokenizer *instance = thread_recorder(&rc);
    if (!instance) return rc;
    return recorder_module.xTokenize(instance, context, FTS5_TOKENIZE_DOCUMENT, text, length, emit);
}

int notes_tokens_record(const char *text, int length, notes_token_buffer *buffer) {
    size_t before = buffer->count;
    recording r = {buffer, 0};
    int rc = notes_tokens_tokenize(text, length, &r, record_token);
    if (rc != SQLITE_OK) buffer->count = before;
    return rc;
}

int notes_tokens_reserve(notes_token_buffer *buffer, size_t bytes) { return reserve(buffer, bytes); }

void notes_tokens_free(notes_token_buffer *buffer) {
    free(buffer->bytes);
    buffer->bytes = NULL;
    buffer->count = buffer->capacity = 0;
}

// ---- replaying --------------------------------------------------------------------------

enum { max_columns = 8 };
static _Thread_local notes_token_column armed[max_columns];
static _Thread_local int armed_count;
static _Thread_local long replayed_count;

void notes_tokens_arm(const notes_token_column *columns, int count) {
    if (count > max_columns) count = max_columns;
    if (count < 0) count = 0;
    memcpy(armed, columns, sizeof(notes_token_column) * (size_t)count);
    armed_count = count;
}

void notes_tokens_disarm(void) { armed_count = 0; }

long notes_tokens_replayed(void) {
    long n = replayed_count;
    replayed_count = 0;
    return n;
}

int notes_tokens_replay(const uint8_t *tokens, size_t tokens_length, void *context, notes_token_callback emit) {
    const uint8_t *p = tokens, *end = tokens + tokens_length;
    int previous_end = 0;
    while (p < end) {
        uint32_t length, start, span, flags = 0;
        if (*p != 255) {
            if (end - p < 3) return SQLITE_CORRUPT;
            length = p[0];
            start = (uint32_t)previous_end + p[1];
            span = p[2];
            p += 3;
        } else {
            uint32_t fields[4];
            if ((size_t)(end - p) < 1 + sizeof fields) return SQLITE_CORRUPT;
            memcpy(fields, p + 1, sizeof fields);
            length = fields[0]; start = fields[1]; span = fields[2]; flags = fields[3];
            p += 1 + sizeof fields;
        }
        if (length > (size_t)(end - p)) return SQLITE_CORRUPT;
        int rc = emit(context, (int)flags, (const char *)p, (int)length, (int)start, (int)(start + span));
        if (rc != SQLITE_OK) return rc;
        p += length;
        previous_end = (int)(start + span);
    }
    return SQLITE_OK;
}

// ---- the `replay` tokenizer -------------------------------------------------------------

typedef struct {
    fts5_tokenizer module;   // the wrapped tokenizer (from this connection's FTS5 API)
    Fts5Tokenizer *instance;
} replay_tokenizer;

static int replay_create(void *context, const char **arguments, int count, Fts5Tokenizer **out) {
    fts5_api *api = context;
    const char *wrapped = count > 0 ? arguments[0] : "unicode61";
    replay_tokenizer *t = sqlite3_malloc(sizeof *t);
    if (!t) return SQLITE_NOMEM;
    memset(t, 0, sizeof *t);
    void *wrapped_context = NULL;
    int rc = api->xFindTokenizer(api, wrapped, &wrapped_context, &t->module);
    if (rc == SQLITE_OK) rc = t->module.xCreate(wrapped_context, count > 0 ? arguments + 1 : NULL, count > 0 ? count - 1 : 0, &t->instance);
    if (rc != SQLITE_OK) { sqlite3_free(t); return rc; }
    *out = (Fts5Tokenizer *)t;
    return SQLITE_OK;
}

static void replay_delete(Fts5Tokenizer *tokenizer) {
    replay_tokenizer *t = (replay_tokenizer *)tokenizer;
    t->module.xDelete(t->instance);
    sqlite3_free(t);
}

static int replay_tokenize(Fts5Tokenizer *tokenizer, void *context, int flags, const char *text, int length,
                           notes_token_callback emit) {
    replay_tokenizer *t = (replay_tokenizer *)tokenizer;
    if (flags == FTS5_TOKENIZE_DOCUMENT) {
        for (int i = 0; i < armed_count; i++) {
            const notes_token_column *column = &armed[i];
            if (column->length == length && (length == 0 || memcmp(column->text, text, (size_t)length) == 0)) {
                replayed_count++;
                return notes_tokens_replay(column->tokens, column->tokens_length, context, emit);
            }
        }
    }
    return t->module.xTokenize(t->instance, context, flags, text, length, emit);
}

int notes_fts_functions_register(sqlite3 *db);

// ---- which query terms a row matches ----------------------------------------------------

// `notes_matched(fts)`: a bit mask of the phrases of the MATCH expression that occur in the
// current row (bit i for phrase i, the first 62 phrases), with bit 62 set when any of them
// occurs in the heading or body column (not only in the title or tags). A plain-words query
// is an OR of its words, one phrase each, so the mask says which of the words a section
// holds; bit 62 says whether the section can show a line with a match in it.
static void matched_phrases(const Fts5ExtensionApi *api, Fts5Context *fts, sqlite3_context *result,
                            int argc, sqlite3_value **argv) {
    (void)argc;
    (void)argv;
    int instances = 0;
    int rc = api->xInstCount(fts, &instances);
    if (rc != SQLITE_OK) {
        sqlite3_result_error_code(result, rc);
        return;
    }
    sqlite3_int64 mask = 0;
    for (int i = 0; i < instances; i++) {
        int phrase = 0, column = 0, offset = 0;
        rc = api->xInst(fts, i, &phrase, &column, &offset);
        if (rc != SQLITE_OK) {
            sqlite3_result_error_code(result, rc);
            return;
        }
        if (phrase < 62) mask |= (sqlite3_int64)1 << phrase;
        if (column == 1 || column == 3) mask |= (sqlite3_int64)1 << 62;
    }
    sqlite3_result_int64(result, mask);
}

int notes_tokens_register(sqlite3 *db) {
    fts5_api *api = notes_fts5_api_of(db);
    if (!api) return SQLITE_ERROR;
    fts5_tokenizer module = {replay_create, replay_delete, replay_tokenize};
    int rc = api->xCreateTokenizer(api, "notes_replay", api, &module, NULL);
    if (rc != SQLITE_OK) return rc;
    rc = api->xCreateFunction(api, "notes_matched", NULL, matched_phrases, NULL);
    if (rc != SQLITE_OK) return rc;
    return notes_fts_functions_register(db);
}

// ---- a snippet's line, in time linear in the text ---------------------------------------

// FTS5's highlight() marks every match of a column by re-printing its whole output for each
// one: quadratic in a long line with many matches. `notes_snippet(fts, column, before, after)`
// finds the first match of the column, tokenizes only as far as the window it shows, and
// returns "LINE\tCUT_START\tCUT_END\tTEXT": the number of line breaks before the match (LF,
// CRLF or a lone CR), whether the window starts after / ends before its line's ends, and the
// window of that line around the match (at most `before` bytes before it and `after` bytes
// after, cut at UTF-8 character starts) with every match in it marked \x01 … \x02.
// NULL when the column has no match.

typedef struct {
    int first, last;  // token positions of a match (a phrase spans several)
} token_span;

typedef struct {
    const token_span *matches;  // the column's matches, by first position
    int count;
    int next;                   // the next match to look for
    int position;               // the current token's position
    int window_end;             // stop once a token starts past this byte (-1: not known yet)
    int after;                  // the window's end is this many bytes after the first match
    int open_last;              // the last position of the match being read (-1: none)
    int open_start;
    int *starts, *ends;         // byte ranges of the matches found
    int found;
} snippet_scan;

static int snippet_token(void *context, int flags, const char *token, int length, int start, int end) {
    (void)token;
    (void)length;
    snippet_scan *s = context;
    if (flags & FTS5_TOKEN_COLOCATED) return SQLITE_OK;
    int position = s->position++;
    if (s->open_last < 0 && s->window_end >= 0 && start > s->window_end) return SQLITE_DONE;
    while (s->next < s->count && s->matches[s->next].first < position) {
        // A match starting inside the one being read extends it.
        if (s->open_last >= 0 && s->matches[s->next].last > s->open_last) s->open_last = s->matches[s->next].last;
        s->next++;
    }
    if (s->next < s->count && s->matches[s->next].first == position) {
        if (s->open_last < 0) {
            s->open_start = start;
            s->open_last = s->matches[s->next].last;
        } else if (s->matches[s->next].last > s->open_last) {
            s->open_last = s->matches[s->next].last;
        }
        s->next++;
        while (s->next < s->count && s->matches[s->next].first == position) {
            if (s->matches[s->next].last > s->open_last) s->open_last = s->matches[s->next].last;
            s->next++;
        }
    }
    if (s->open_last >= 0 && position >= s->open_last) {
        s->starts[s->found] = s->open_start;
        s->ends[s->found] = end;
        s->found++;
        s->open_last = -1;
        if (s->window_end < 0) s->window_end = s->open_start + s->after;
        if (s->next >= s->count) return SQLITE_DONE;
    }
    return SQLITE_OK;
}

static int compare_spans(const void *a, const void *b) {
    const token_span *x = a, *y = b;
    return (x->first > y->first) - (x->first < y->first);
}

static void snippet_line(const Fts5ExtensionApi *api, Fts5Context *fts, sqlite3_context *result,
                         int argc, sqlite3_value **argv) {
    if (argc != 3) {
        sqlite3_result_error(result, "notes_snippet(fts, column, before, after)", -1);
        return;
    }
    int column = sqlite3_value_int(argv[0]);
    int before = sqlite3_value_int(argv[1]), after = sqlite3_value_int(argv[2]);
    const char *text = NULL;
    int length = 0;
    int rc = api->xColumnText(fts, column, &text, &length);
    if (rc != SQLITE_OK) { sqlite3_result_error_code(result, rc); return; }
    int instances = 0;
    rc = api->xInstCount(fts, &instances);
    if (rc != SQLITE_OK) { sqlite3_result_error_code(result, rc); return; }
    if (instances == 0 || !text || length == 0) { sqlite3_result_null(result); return; }
    token_span *matches = sqlite3_malloc64(sizeof(token_span) * (sqlite3_uint64)instances + sizeof(int) * 2 * (sqlite3_uint64)instances);
    if (!matches) { sqlite3_result_error_nomem(result); return; }
    int *offsets = (int *)(matches + instances);  // room for the byte ranges found
    int count = 0;
    for (int i = 0; i < instances; i++) {
        int phrase = 0, in_column = 0, offset = 0;
        rc = api->xInst(fts, i, &phrase, &in_column, &offset);
        if (rc != SQLITE_OK) { sqlite3_free(matches); sqlite3_result_error_code(result, rc); return; }
        if (in_column != column) continue;
        int size = api->xPhraseSize(fts, phrase);
        matches[count].first = offset;
        matches[count].last = offset + (size > 0 ? size - 1 : 0);
        count++;
    }
    if (count == 0) { sqlite3_free(matches); sqlite3_result_null(result); return; }
    qsort(matches, (size_t)count, sizeof(token_span), compare_spans);
    snippet_scan scan = {matches, count, 0, 0, -1, after, -1, 0, offsets, offsets + instances, 0};
    rc = api->xTokenize(fts, text, length, &scan, snippet_token);
    if (rc != SQLITE_OK && rc != SQLITE_DONE) { sqlite3_free(matches); sqlite3_result_error_code(result, rc); return; }
    if (scan.found == 0) { sqlite3_free(matches); sqlite3_result_null(result); return; }
    int first = scan.starts[0];
    // The line around it.
    int line_start = first;
    while (line_start > 0 && text[line_start - 1] != '\n' && text[line_start - 1] != '\r') line_start--;
    int line_end = first;
    while (line_end < length && text[line_end] != '\n' && text[line_end] != '\r') line_end++;
    int window_start = first - before > line_start ? first - before : line_start;
    while (window_start > line_start && ((unsigned char)text[window_start] & 0xC0) == 0x80) window_start++;
    int window_end = first + after < line_end ? first + after : line_end;
    while (window_end < line_end && window_end > first && ((unsigned char)text[window_end] & 0xC0) == 0x80) window_end--;
    int lines = 0;
    for (int i = 0; i < line_start; i++) {
        if (text[i] == '\n') lines++;
        else if (text[i] == '\r' && (i + 1 >= length || text[i + 1] != '\n')) lines++;
    }
    sqlite3_str *out = sqlite3_str_new(NULL);
    sqlite3_str_appendf(out, "%d\t%d\t%d\t", lines, window_start > line_start, window_end < line_end);
    int at = window_start;
    for (int i = 0; i < scan.found; i++) {
        int s = scan.starts[i], e = scan.ends[i];
        if (e <= window_start || s < at) continue;
        if (s >= window_end) break;
        if (e > window_end) e = window_end;
        sqlite3_str_append(out, text + at, s - at);
        sqlite3_str_appendchar(out, 1, '\x01');
        sqlite3_str_append(out, text + s, e - s);
        sqlite3_str_appendchar(out, 1, '\x02');
        at = e;
    }
    if (window_end > at) sqlite3_str_append(out, text + at, window_end - at);
    sqlite3_free(matches);
    int out_length = sqlite3_str_length(out);
    char *bytes = sqlite3_str_finish(out);
    if (!bytes) { sqlite3_result_error_nomem(result); return; }
    sqlite3_result_text(result, bytes, out_length, sqlite3_free);
}

int notes_fts_functions_register(sqlite3 *db) {
    fts5_api *api = notes_fts5_api_of(db);
    if (!api) return SQLITE_ERROR;
    return api->xCreateFunction(api, "notes_snippet", NULL, snippet_line, NULL);
}
