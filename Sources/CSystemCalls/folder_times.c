#include "folder_times.h"

#ifdef __linux__
#include <sys/vfs.h>

int notes_keeps_folder_times(const char *path) {
    struct statfs info;
    if (statfs(path, &info) != 0) return 0;
    switch ((unsigned long)info.f_type & 0xFFFFFFFFul) {
    case 0xEF53ul:       // ext2, ext3, ext4
    case 0x58465342ul:   // xfs
    case 0x9123683Eul:   // btrfs
    case 0x01021994ul:   // tmpfs
    case 0xF2F52010ul:   // f2fs
    case 0x2FC12FC1ul:   // zfs
    case 0x794C7630ul:   // overlayfs (containers): every change lands in an upper folder
        return 1;
    default:
        return 0;
    }
}
#else
int notes_keeps_folder_times(const char *path) {
    (void)path;
    return 0;
}
#endif
