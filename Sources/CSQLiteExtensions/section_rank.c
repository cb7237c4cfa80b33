#include "section_rank.h"

#include "fts5_api_of.h"

#include <math.h>

// The score's arithmetic exactly as written, as FTS5's bm25() does it (no fused multiply-adds).
#pragma STDC FP_CONTRACT OFF
#include <pthread.h>
#include <sqlite3.h>
#include <stdlib.h>
#include <string.h>

// ---- the lengths, as read at one state of the table ---------------------------------------

// Every row's length in tokens (all columns), by rowid ascending, with what identified the
// table's state when they were read: FTS5's structure and totals records and the database's
// token (`meta.database_token`, new in every database the index creates). While all three
// are byte-for-byte the same, no row was added, removed or changed: every transaction that
// changes the table makes FTS5 add or merge a segment, which rewrites the structure record,
// and the token tells a database put in place of another (a rebuild) from the one before.
typedef struct {
    int references;
    sqlite3_int64 count;
    sqlite3_int64 *rowids;
    int *lengths;
    void *structure;
    int structure_length;
    void *totals;
    int totals_length;
    void *token;
    int token_length;
} size_table;

struct notes_section_sizes {
    int references;
    long loads;
    pthread_mutex_t lock;
    size_table *current;
};

static void table_release(size_table *t) {
    if (!t || __atomic_sub_fetch(&t->references, 1, __ATOMIC_ACQ_REL) != 0) return;
    free(t->rowids);
    free(t->lengths);
    free(t->structure);
    free(t->totals);
    free(t->token);
    free(t);
}

notes_section_sizes *notes_section_sizes_new(void) {
    notes_section_sizes *s = calloc(1, sizeof *s);
    if (!s) return NULL;
    s->references = 1;
    pthread_mutex_init(&s->lock, NULL);
    return s;
}

static void sizes_retain(notes_section_sizes *s) { __atomic_add_fetch(&s->references, 1, __ATOMIC_RELAXED); }

void notes_section_sizes_release(notes_section_sizes *s) {
    if (!s || __atomic_sub_fetch(&s->references, 1, __ATOMIC_ACQ_REL) != 0) return;
    table_release(s->current);
    pthread_mutex_destroy(&s->lock);
    free(s);
}

long notes_section_sizes_loads(notes_section_sizes *s) {
    pthread_mutex_lock(&s->lock);
    long loads = s->loads;
    pthread_mutex_unlock(&s->lock);
    return loads;
}

static void sizes_destroy(void *p) { notes_section_sizes_release(p); }

/// Runs `sql` (`id` bound to its parameter, if it has one) and copies the first column of its row into *bytes
/// (malloc'ed). SQLITE_OK also when there is no row (*bytes NULL, *length 0).
static int read_value(sqlite3 *db, const char *sql, int id, void **bytes, int *length) {
    sqlite3_stmt *statement = NULL;
    *bytes = NULL;
    *length = 0;
    int rc = sqlite3_prepare_v2(db, sql, -1, &statement, NULL);
    if (rc != SQLITE_OK) return rc;
    if (sqlite3_bind_parameter_count(statement) > 0) sqlite3_bind_int(statement, 1, id);
    rc = sqlite3_step(statement);
    if (rc == SQLITE_ROW) {
        int n = sqlite3_column_bytes(statement, 0);
        const void *value = sqlite3_column_blob(statement, 0);
        *bytes = malloc(n > 0 ? (size_t)n : 1);
        if (!*bytes) {
            rc = SQLITE_NOMEM;
        } else {
            if (n > 0) memcpy(*bytes, value, (size_t)n);
            *length = n;
            rc = SQLITE_OK;
        }
    } else if (rc == SQLITE_DONE) {
        rc = SQLITE_OK;
    }
    sqlite3_finalize(statement);
    return rc;
}

static int same_bytes(const void *a, int a_length, const void *b, int b_length) {
    return a_length == b_length && (a_length == 0 || memcmp(a, b, (size_t)a_length) == 0);
}

/// The sum of the varints of a docsize record (SQLite's varint format, one per column).
static int record_total(const unsigned char *p, int n) {
    int total = 0;
    int i = 0;
    while (i < n) {
        unsigned int value = 0;
        int j = 0;
        for (; j < 8 && i < n; j++) {
            unsigned char byte = p[i++];
            value = (value << 7) | (byte & 0x7f);
            if (!(byte & 0x80)) break;
        }
        if (j == 8 && i < n) value = (value << 8) | p[i++];
        total += (int)value;
    }
    return total;
}

/// Reads every row's length, in the connection's current snapshot, into a table that takes
/// over `stamp`'s records (freed on failure too).
static int table_load(sqlite3 *db, size_table *stamp, size_table **out) {
    size_table *t = calloc(1, sizeof *t);
    if (!t) {
        free(stamp->structure);
        free(stamp->totals);
        free(stamp->token);
        return SQLITE_NOMEM;
    }
    *t = *stamp;
    t->references = 1;
    sqlite3_int64 capacity = 0;
    sqlite3_stmt *statement = NULL;
    int rc = sqlite3_prepare_v2(db, "SELECT id, sz FROM main.fts_docsize ORDER BY id", -1, &statement, NULL);
    while (rc == SQLITE_OK && (rc = sqlite3_step(statement)) == SQLITE_ROW) {
        if (t->count == capacity) {
            capacity = capacity ? capacity * 2 : 4096;
            sqlite3_int64 *rowids = realloc(t->rowids, (size_t)capacity * sizeof *rowids);
            if (rowids) t->rowids = rowids;
            int *lengths = realloc(t->lengths, (size_t)capacity * sizeof *lengths);
            if (lengths) t->lengths = lengths;
            if (!rowids || !lengths) { rc = SQLITE_NOMEM; break; }
        }
        t->rowids[t->count] = sqlite3_column_int64(statement, 0);
        t->lengths[t->count] = record_total(sqlite3_column_blob(statement, 1), sqlite3_column_bytes(statement, 1));
        t->count++;
        rc = SQLITE_OK;
    }
    if (rc == SQLITE_DONE) rc = SQLITE_OK;
    sqlite3_finalize(statement);
    if (rc != SQLITE_OK) {
        table_release(t);
        return rc;
    }
    *out = t;
    return SQLITE_OK;
}

static int same_stamp(const size_table *a, const size_table *b) {
    return same_bytes(a->structure, a->structure_length, b->structure, b->structure_length) &&
           same_bytes(a->totals, a->totals_length, b->totals, b->totals_length) &&
           same_bytes(a->token, a->token_length, b->token, b->token_length);
}

/// The lengths for the table as the connection sees it now: the shared ones when they
/// match its stamp, else read again (and shared). A new reference.
static int table_for(sqlite3 *db, notes_section_sizes *s, size_table **out) {
    size_table stamp = {0};
    const char *record = "SELECT block FROM main.fts_data WHERE id = ?";
    int rc = read_value(db, record, 10, &stamp.structure, &stamp.structure_length);  // FTS5's structure
    if (rc == SQLITE_OK) rc = read_value(db, record, 1, &stamp.totals, &stamp.totals_length);  // its totals
    if (rc == SQLITE_OK)
        rc = read_value(db, "SELECT value FROM main.meta WHERE key = 'database_token'", 0,
                        &stamp.token, &stamp.token_length);
    if (rc != SQLITE_OK) {
        free(stamp.structure);
        free(stamp.totals);
        free(stamp.token);
        return rc;
    }
    pthread_mutex_lock(&s->lock);
    size_table *current = s->current;
    if (current && same_stamp(current, &stamp)) {
        __atomic_add_fetch(&current->references, 1, __ATOMIC_RELAXED);
        pthread_mutex_unlock(&s->lock);
        free(stamp.structure);
        free(stamp.totals);
        free(stamp.token);
        *out = current;
        return SQLITE_OK;
    }
    pthread_mutex_unlock(&s->lock);
    size_table *loaded = NULL;
    rc = table_load(db, &stamp, &loaded);
    if (rc != SQLITE_OK) return rc;
    pthread_mutex_lock(&s->lock);
    size_table *old = s->current;
    __atomic_add_fetch(&loaded->references, 1, __ATOMIC_RELAXED);  // the shared one
    s->current = loaded;
    s->loads++;
    pthread_mutex_unlock(&s->lock);
    table_release(old);
    *out = loaded;
    return SQLITE_OK;
}

// ---- one ranking statement ----------------------------------------------------------------

typedef struct {
    int phrases;
    double average_length;
    double *idf;
    double *frequency;
    size_table *lengths;  // NULL: FTS5's own lookup per row
    sqlite3_int64 next;   // where the next row's length is looked for (rows come in rowid order)
} ranking;

static void ranking_free(void *p) {
    ranking *r = p;
    table_release(r->lengths);
    sqlite3_free(r);
}

static int count_row(const Fts5ExtensionApi *api, Fts5Context *fts, void *context) {
    (void)api;
    (void)fts;
    (*(sqlite3_int64 *)context)++;
    return SQLITE_OK;
}

/// The statement's IDFs and average length, exactly as FTS5's bm25() computes them.
static int ranking_start(const Fts5ExtensionApi *api, Fts5Context *fts, sqlite3 *db, notes_section_sizes *s,
                         ranking **out) {
    int phrases = api->xPhraseCount(fts);
    ranking *r = sqlite3_malloc64(sizeof *r + (size_t)phrases * 2 * sizeof(double));
    if (!r) return SQLITE_NOMEM;
    memset(r, 0, sizeof *r + (size_t)phrases * 2 * sizeof(double));
    r->phrases = phrases;
    r->idf = (double *)&r[1];
    r->frequency = &r->idf[phrases];
    sqlite3_int64 rows = 0, tokens = 0;
    int rc = api->xRowCount(fts, &rows);
    if (rc == SQLITE_OK) rc = api->xColumnTotalSize(fts, -1, &tokens);
    if (rc == SQLITE_OK) r->average_length = (double)tokens / (double)rows;
    for (int i = 0; rc == SQLITE_OK && i < phrases; i++) {
        sqlite3_int64 hits = 0;
        rc = api->xQueryPhrase(fts, i, (void *)&hits, count_row);
        if (rc == SQLITE_OK) {
            double idf = log((rows - hits + 0.5) / (hits + 0.5));
            if (idf <= 0.0) idf = 1e-6;
            r->idf[i] = idf;
        }
    }
    // Inside a write transaction the table may hold rows FTS5 has not counted in its records
    // yet: such a statement (none today) looks lengths up as bm25() does.
    if (rc == SQLITE_OK && s && sqlite3_txn_state(db, "main") != SQLITE_TXN_WRITE)
        rc = table_for(db, s, &r->lengths);
    if (rc != SQLITE_OK) {
        ranking_free(r);
        return rc;
    }
    *out = r;
    return SQLITE_OK;
}

/// The row's length from the shared lengths (-1 when it is not there).
static int shared_length(ranking *r, sqlite3_int64 rowid) {
    size_table *t = r->lengths;
    sqlite3_int64 low = r->next, high = t->count;
    if (low >= high || t->rowids[low] > rowid) low = 0;
    // Rows usually come in order: look a little ahead before halving.
    sqlite3_int64 step = 1;
    while (low + step < high && t->rowids[low + step] <= rowid) {
        low += step;
        step *= 2;
    }
    if (low + step < high) high = low + step + 1;
    while (low < high) {
        sqlite3_int64 middle = low + (high - low) / 2;
        if (t->rowids[middle] < rowid) low = middle + 1;
        else high = middle;
    }
    if (low < t->count && t->rowids[low] == rowid) {
        r->next = low;
        return t->lengths[low];
    }
    return -1;
}

static void rank_function(const Fts5ExtensionApi *api, Fts5Context *fts, sqlite3_context *result, int argc,
                          sqlite3_value **argv) {
    const double k1 = 1.2, b = 0.75;
    ranking *r = api->xGetAuxdata(fts, 0);
    int rc = SQLITE_OK;
    if (!r) {
        rc = ranking_start(api, fts, sqlite3_context_db_handle(result), api->xUserData(fts), &r);
        if (rc == SQLITE_OK) rc = api->xSetAuxdata(fts, r, ranking_free);
        if (rc != SQLITE_OK) {
            sqlite3_result_error_code(result, rc);
            return;
        }
    }
    memset(r->frequency, 0, sizeof(double) * (size_t)r->phrases);
    int instances = 0;
    rc = api->xInstCount(fts, &instances);
    for (int i = 0; rc == SQLITE_OK && i < instances; i++) {
        int phrase, column, offset;
        rc = api->xInst(fts, i, &phrase, &column, &offset);
        if (rc == SQLITE_OK) {
            double weight = argc > column ? sqlite3_value_double(argv[column]) : 1.0;
            r->frequency[phrase] += weight;
        }
    }
    int tokens = -1;
    if (rc == SQLITE_OK && r->lengths) tokens = shared_length(r, api->xRowid(fts));
    if (rc == SQLITE_OK && tokens < 0) rc = api->xColumnSize(fts, -1, &tokens);
    if (rc != SQLITE_OK) {
        sqlite3_result_error_code(result, rc);
        return;
    }
    double length = (double)tokens, score = 0.0;
    for (int i = 0; i < r->phrases; i++) {
        score += r->idf[i] * ((r->frequency[i] * (k1 + 1.0)) /
                              (r->frequency[i] + k1 * (1 - b + b * length / r->average_length)));
    }
    sqlite3_result_double(result, -1.0 * score);
}

int notes_rank_register(sqlite3 *db, notes_section_sizes *sizes) {
    fts5_api *api = notes_fts5_api_of(db);
    if (!api) return SQLITE_ERROR;
    if (sizes) sizes_retain(sizes);
    int rc = api->xCreateFunction(api, "notes_rank", sizes, rank_function, sizes ? sizes_destroy : NULL);
    // FTS5 calls the destructor only for a function it registered.
    if (rc != SQLITE_OK && sizes) notes_section_sizes_release(sizes);
    return rc;
}
