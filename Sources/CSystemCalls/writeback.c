#define _GNU_SOURCE
#include "writeback.h"

#include <errno.h>
#include <fcntl.h>

int notes_start_writeback(int fd) {
#if defined(__linux__)
    return sync_file_range(fd, 0, 0, SYNC_FILE_RANGE_WRITE);
#else
    (void)fd;
    errno = ENOSYS;
    return -1;
#endif
}
