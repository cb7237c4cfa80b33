// Whether a filesystem's folder change times can be trusted to skip listing a folder.
//
// The walk skips listing a folder whose ctime and inode are what the last walk stamped
// (Sources/NotesCore/FileScanner+Stamps.swift). That holds on Linux's local filesystems,
// whose folder ctime moves, at a fine granularity, on every entry added, removed or renamed.
// Network and FUSE filesystems may cache or fake it, so only known types qualify. `statfs`'s
// `f_type` is not visible through Swift's Glibc module, hence this shim.
#ifndef NOTES_FOLDER_TIMES_H
#define NOTES_FOLDER_TIMES_H

/// 1 when the filesystem holding `path` is one whose folder ctimes are trusted, 0 when it is
/// not or cannot be told.
int notes_keeps_folder_times(const char *path);

#endif
