#include "no_follow_open.h"

#include <errno.h>
#include <fcntl.h>

#if defined(__linux__)
#include <linux/openat2.h>
#include <sys/syscall.h>
#include <unistd.h>
#endif

int notes_open_no_symlinks(const char *path, int flags) {
#if defined(__linux__) && defined(SYS_openat2)
    struct open_how how = {0};
    how.flags = (unsigned long long)(flags | O_CLOEXEC);
    how.resolve = RESOLVE_NO_SYMLINKS | RESOLVE_NO_MAGICLINKS;
    long fd;
    do {
        fd = syscall(SYS_openat2, AT_FDCWD, path, &how, sizeof how);
    } while (fd < 0 && errno == EINTR);
    return (int)fd;
#else
    (void)path;
    (void)flags;
    errno = ENOSYS;
    return -1;
#endif
}
