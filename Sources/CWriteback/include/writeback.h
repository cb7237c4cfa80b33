#ifndef NOTES_WRITEBACK_H
#define NOTES_WRITEBACK_H

/// Asks the kernel to start writing a file's dirty pages to the disk now, without waiting
/// (Linux `sync_file_range(SYNC_FILE_RANGE_WRITE)`; glibc declares it only under
/// _GNU_SOURCE, which Swift's Glibc module does not see). A hint for throughput, never a
/// durability guarantee: callers still fsync. Returns 0, or -1 with errno (ENOSYS elsewhere).
int notes_start_writeback(int fd);

#endif
