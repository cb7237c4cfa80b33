// Opening a file by a path none of whose components may be a symlink, in one system call.
//
// The walk and the indexer read files by canonical paths (a workspace root that is already
// a real path, plus a walked relative path). A folder swapped for a symlink between the walk
// and the read must not make the read land outside the workspace. Linux 5.6's `openat2`
// with RESOLVE_NO_SYMLINKS refuses any symlink on the way in the kernel; before it (and
// where a seccomp filter hides it) notes opens with O_NOFOLLOW and checks the descriptor's
// real path in /proc afterwards. `openat2` has no glibc wrapper, hence this shim.
#ifndef NOTES_NO_FOLLOW_OPEN_H
#define NOTES_NO_FOLLOW_OPEN_H

/// Opens `path` with `flags` (plus O_CLOEXEC) refusing symlinks and procfs magic links in
/// every component. Returns a descriptor, or -1 with errno: ELOOP when a component is a
/// symlink, ENOSYS (or EPERM from a seccomp filter) when the kernel lacks `openat2`.
int notes_open_no_symlinks(const char *path, int flags);

#endif
