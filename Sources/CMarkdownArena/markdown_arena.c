#include "markdown_arena.h"

#include <pthread.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

// A chunk of arena memory; blocks are carved from `data` in order.
typedef struct chunk {
    struct chunk *next;  // the chunk filled before this one
    size_t size;         // bytes in data
    size_t used;
    _Alignas(16) unsigned char data[];
} chunk;

// Each block starts with its size, so realloc knows how much to copy; 16 bytes keep the
// block itself 16-byte aligned, as malloc's are.
#define HEADER 16
#define FIRST_CHUNK (64 * 1024)
#define LARGEST_GROWTH (4 * 1024 * 1024)

typedef struct {
    chunk *current;               // the chunk blocks come from (its `next`: older chunks)
    unsigned char *last;          // the newest block (realloc grows it in place, free takes it back)
    cmark_node *document;         // the document parsed in the arena, until released
    int registered;               // the thread-exit destructor knows this arena
} arena;

static _Thread_local arena local;
static pthread_key_t exit_key;
static pthread_once_t exit_key_once = PTHREAD_ONCE_INIT;

static void free_chunks(chunk *c) {
    while (c) {
        chunk *next = c->next;
        free(c);
        c = next;
    }
}

static void thread_exit(void *value) {
    arena *a = value;
    free_chunks(a->current);
    a->current = NULL;
}

static void make_exit_key(void) { (void)pthread_key_create(&exit_key, thread_exit); }

// cmark does not check for NULL: like its default allocator, fail loudly.
static void *checked(void *p) {
    if (!p) abort();
    return p;
}

static unsigned char *carve(size_t size) {
    if (size > SIZE_MAX - HEADER - 15) abort();
    size_t need = (HEADER + size + 15) & ~(size_t)15;
    chunk *c = local.current;
    if (!c || c->size - c->used < need) {
        size_t grow = c ? c->size * 2 : FIRST_CHUNK;
        if (grow > LARGEST_GROWTH) grow = LARGEST_GROWTH;
        if (grow < need) grow = need;
        chunk *fresh = checked(malloc(sizeof(chunk) + grow));
        fresh->next = c;
        fresh->size = grow;
        fresh->used = 0;
        local.current = c = fresh;
    }
    unsigned char *header = c->data + c->used;
    c->used += need;
    memcpy(header, &size, sizeof size);
    local.last = header + HEADER;
    return header + HEADER;
}

static size_t block_size(const unsigned char *block) {
    size_t size;
    memcpy(&size, block - HEADER, sizeof size);
    return size;
}

static void *arena_calloc(size_t count, size_t size) {
    if (size && count > SIZE_MAX / size) abort();
    unsigned char *block = carve(count * size);
    memset(block, 0, count * size);
    return block;
}

static void *arena_realloc(void *pointer, size_t size) {
    unsigned char *block = pointer;
    if (!block) return carve(size);
    size_t old = block_size(block);
    chunk *c = local.current;
    if (block == local.last) {
        // The newest block: grow or shrink it where it is when the chunk has room.
        size_t start = (size_t)(block - HEADER - c->data);
        size_t need = (HEADER + size + 15) & ~(size_t)15;
        if (size <= SIZE_MAX - HEADER - 15 && c->size - start >= need) {
            c->used = start + need;
            memcpy(block - HEADER, &size, sizeof size);
            return block;
        }
    }
    unsigned char *moved = carve(size);
    memcpy(moved, block, old < size ? old : size);
    return moved;
}

static void arena_free(void *pointer) {
    unsigned char *block = pointer;
    // Only the newest block can be given back; the rest goes with the whole arena.
    if (block && block == local.last) {
        local.current->used = (size_t)(block - HEADER - local.current->data);
        local.last = NULL;
    }
}

static cmark_mem arena_mem = {arena_calloc, arena_realloc, arena_free};

cmark_node *notes_markdown_parse(const char *text, size_t length, int options) {
    if (length > NOTES_MARKDOWN_ARENA_LIMIT || local.document) {
        return cmark_parse_document(text, length, options);
    }
    if (!local.registered) {
        (void)pthread_once(&exit_key_once, make_exit_key);
        if (pthread_setspecific(exit_key, &local) != 0) return cmark_parse_document(text, length, options);
        local.registered = 1;
    }
    cmark_parser *parser = cmark_parser_new_with_mem(options, &arena_mem);
    cmark_parser_feed(parser, text, length);
    cmark_node *document = cmark_parser_finish(parser);
    cmark_parser_free(parser);
    if (!document) {
        notes_markdown_release(NULL);
        return NULL;
    }
    local.document = document;
    return document;
}

void notes_markdown_release(cmark_node *document) {
    if (document && document != local.document) {
        cmark_node_free(document);
        return;
    }
    local.document = NULL;
    local.last = NULL;
    chunk *c = local.current;
    if (!c) return;
    // Keep the oldest chunk (the first, FIRST_CHUNK bytes), free the grown ones.
    chunk *oldest = c;
    while (oldest->next) oldest = oldest->next;
    if (oldest != c) {
        chunk *newer = c;
        while (newer->next != oldest) newer = newer->next;
        newer->next = NULL;
        free_chunks(c);
    }
    oldest->used = 0;
    local.current = oldest;
}

size_t notes_markdown_arena_reserved(void) {
    size_t total = 0;
    for (chunk *c = local.current; c; c = c->next) total += c->size;
    return total;
}
