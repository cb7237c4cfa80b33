// cmark with its allocations in a per-thread arena.
//
// cmark allocates every node, and every buffer it grows, with its own calloc/realloc/free
// calls, and frees them one by one with the tree: on notes of a few KB that was about as
// much work in malloc and free as in parsing (docs/performance-history.md, twelfth pass). These
// functions parse with a bump allocator instead: nodes and buffers are carved from chunks
// the thread keeps, frees do nothing, and releasing the document resets the chunks at once.
// A document over `NOTES_MARKDOWN_ARENA_LIMIT` bytes of input is parsed with cmark's own
// allocator (so an arena never grows with one huge file); release handles both.
#ifndef NOTES_MARKDOWN_ARENA_H
#define NOTES_MARKDOWN_ARENA_H

#include <stddef.h>
#include <cmark.h>

/// Inputs up to this many bytes are parsed in the arena.
#define NOTES_MARKDOWN_ARENA_LIMIT (512 * 1024)

/// Parses `length` bytes of CommonMark (like `cmark_parse_document`). Every node, string
/// and iterator made from the document (`cmark_iter_new`) lives until
/// `notes_markdown_release` on the same thread; so does what cmark renders from it
/// (`cmark_render_*`), which must therefore never be passed to `free`. A thread parses one
/// document at a time (a second parse before the release uses cmark's allocator). NULL
/// when cmark fails.
cmark_node *notes_markdown_parse(const char *text, size_t length, int options);

/// Frees `document` (from `notes_markdown_parse` on this thread) and everything made from
/// it. The thread keeps its first chunk for the next document; the rest is freed, and the
/// kept chunk when the thread exits.
void notes_markdown_release(cmark_node *document);

/// Bytes the calling thread's arena holds in chunks now (for tests).
size_t notes_markdown_arena_reserved(void);

#endif
