// scripts/startup-floor.c (x86-64): what any process's start costs on this machine
// before automode does anything (docs/benchmarks.md, "Start-up: local
// connects go straight to the kernel"): one CPUID instruction, and
// spawning and reaping a static glibc program that returns at once
// against one that makes only the exit system call. Not part of
// automode: a measurement of the floor both sides of the ratio stand on.
//
//   scripts/bench.sh --floor [ROUNDS]
#define _GNU_SOURCE
#include <cpuid.h>
#include <spawn.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/wait.h>
#include <time.h>
extern char **environ;
static double now(void) {
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return t.tv_sec * 1e6 + t.tv_nsec / 1e3;
}
static double spawned(const char *path, int rounds) {
    char *argv[] = {(char *)path, NULL};
    double t0 = now();
    for (int i = 0; i < rounds; i++) {
        pid_t p;
        if (posix_spawn(&p, path, NULL, NULL, argv, environ) != 0) {
            perror(path);
            exit(1);
        }
        int st;
        waitpid(p, &st, 0);
    }
    return (now() - t0) / rounds;
}
int main(int argc, char **argv) {
    if (argc < 4) {
        fprintf(stderr, "usage: %s ROUNDS GLIBC_STATIC_NOP RAW_EXIT\n", argv[0]);
        return 2;
    }
    int rounds = atoi(argv[1]);
    unsigned a, b, c, d;
    double t0 = now();
    for (int i = 0; i < 1000; i++)
        __cpuid_count(0, 0, a, b, c, d);
    printf("one CPUID:                                  %6.2f us\n", (now() - t0) / 1000);
    // Interleaved halves, so that a drift of the machine hits both.
    double g = 0, r = 0;
    for (int k = 0; k < 4; k++) {
        g += spawned(argv[2], rounds / 4);
        r += spawned(argv[3], rounds / 4);
    }
    printf("spawn and reap, static glibc, returns 0:    %6.1f us\n", g / 4);
    printf("spawn and reap, only the exit system call:  %6.1f us\n", r / 4);
    return 0;
}
