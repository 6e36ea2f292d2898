/*
 * Runs a program as an unprivileged user: reliab_drop <uid> <gid> <program> [args...]
 * (setgroups, setgid, setuid, then execv). The elevated-privilege test starts it as root.
 */
#define _GNU_SOURCE
#include <grp.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

int main(int argc, char **argv) {
    if (argc < 4) {
        fprintf(stderr, "usage: reliab_drop <uid> <gid> <program> [args...]\n");
        return 2;
    }
    uid_t uid = (uid_t)strtoul(argv[1], 0, 10);
    gid_t gid = (gid_t)strtoul(argv[2], 0, 10);
    if (setgroups(0, NULL) != 0 || setgid(gid) != 0 || setuid(uid) != 0) {
        perror("reliab_drop: cannot drop privileges");
        return 2;
    }
    execv(argv[3], argv + 3);
    perror("reliab_drop: execv");
    return 2;
}
