// Starting a file's writeback early, so that a later fsync has little left to wait for.
//
// A first build writes the whole index into a private file and fsyncs it before renaming it
// into place. Without a hint the kernel keeps those pages dirty until the fsync, which then
// waits for all of them on the build's critical path. glibc declares `sync_file_range` only
// under _GNU_SOURCE, which Swift's Glibc module does not see, hence this shim.
#ifndef NOTES_WRITEBACK_H
#define NOTES_WRITEBACK_H

/// Asks the kernel to start writing a file's dirty pages to the disk now, without waiting
/// (Linux `sync_file_range(SYNC_FILE_RANGE_WRITE)`). A hint, never a durability guarantee:
/// callers still fsync. Returns 0, or -1 with errno (ENOSYS where there is no such call).
int notes_start_writeback(int fd);

#endif
