#include "sqlite_setup.h"

#include <pthread.h>
#include <sqlite3.h>

static pthread_once_t once = PTHREAD_ONCE_INIT;
static int outcome = SQLITE_OK;

static void set_up(void) { outcome = sqlite3_config(SQLITE_CONFIG_MEMSTATUS, 0); }

int notes_sqlite_setup(void) {
    pthread_once(&once, set_up);
    return outcome;
}
