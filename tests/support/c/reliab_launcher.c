/*
 * A tiny launcher: reliab_launcher <program> [args...] execs the program. The elevated-privilege test
 * makes setuid/setgid or capability-raised copies of it, so the program it starts gets AT_SECURE.
 */
#include <stdio.h>
#include <unistd.h>

int main(int argc, char **argv) {
    if (argc < 2) {
        fprintf(stderr, "usage: reliab_launcher <program> [args...]\n");
        return 2;
    }
    execv(argv[1], argv + 1);
    perror("reliab_launcher: execv");
    return 2;
}
