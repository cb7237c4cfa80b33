// The cmark part of a first build's lower bound (docs/performance-history.md, fifteenth pass): parses
// every .md file under a folder with libcmark and walks each tree, on one thread, nothing
// else. The files are read into memory first; prints the best of 15 passes.
//
//   cc -O2 -o /tmp/cmark_parse bench/cmark_parse.c -lcmark && /tmp/cmark_parse ../shared/corpora/dendron-vault
#include <cmark.h>
#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>

static char **texts;
static size_t *lengths;
static size_t count, capacity;

static void collect(const char *folder) {
    DIR *dir = opendir(folder);
    if (!dir) return;
    struct dirent *entry;
    char path[4096];
    while ((entry = readdir(dir))) {
        if (entry->d_name[0] == '.') continue;
        snprintf(path, sizeof path, "%s/%s", folder, entry->d_name);
        struct stat info;
        if (lstat(path, &info) != 0) continue;
        size_t n = strlen(path);
        if (S_ISDIR(info.st_mode)) {
            collect(path);
        } else if (S_ISREG(info.st_mode) && n > 3 && strcmp(path + n - 3, ".md") == 0) {
            FILE *file = fopen(path, "rb");
            if (!file) continue;
            if (count == capacity) {
                capacity = capacity ? capacity * 2 : 1024;
                texts = realloc(texts, capacity * sizeof *texts);
                lengths = realloc(lengths, capacity * sizeof *lengths);
            }
            texts[count] = malloc((size_t)info.st_size + 1);
            lengths[count] = fread(texts[count], 1, (size_t)info.st_size, file);
            fclose(file);
            count++;
        }
    }
    closedir(dir);
}

static double now(void) {
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return t.tv_sec + t.tv_nsec / 1e9;
}

int main(int argc, char **argv) {
    if (argc != 2) {
        fprintf(stderr, "usage: %s FOLDER\n", argv[0]);
        return 2;
    }
    collect(argv[1]);
    size_t bytes = 0;
    for (size_t i = 0; i < count; i++) bytes += lengths[i];
    double best = 1e9;
    for (int pass = 0; pass < 15; pass++) {
        double start = now();
        for (size_t i = 0; i < count; i++) {
            cmark_node *document = cmark_parse_document(texts[i], lengths[i], CMARK_OPT_DEFAULT);
            cmark_iter *iterator = cmark_iter_new(document);
            while (cmark_iter_next(iterator) != CMARK_EVENT_DONE) {}
            cmark_iter_free(iterator);
            cmark_node_free(document);
        }
        double elapsed = now() - start;
        if (elapsed < best) best = elapsed;
    }
    printf("%zu files, %.2f MB: cmark parse + tree walk, one thread, best of 15: %.1f ms\n", count, bytes / 1e6, best * 1000);
    return 0;
}
