/* The bare peer of bench/overhead.sh: posix_spawn + wait4 of a command N
 * times, timing each with CLOCK_MONOTONIC exactly as refbench's runner does,
 * and printing each wall time in seconds, one per line.
 * Usage: spawn_loop N PROGRAM [ARG...] */
#include <spawn.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <time.h>

extern char** environ;

static double now(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

int main(int argc, char** argv) {
  if (argc < 3) {
    fprintf(stderr, "usage: spawn_loop N PROGRAM [ARG...]\n");
    return 2;
  }
  long n = strtol(argv[1], NULL, 10);
  for (long i = 0; i < n; ++i) {
    pid_t pid;
    int status;
    struct rusage usage;
    double start = now();
    if (posix_spawn(&pid, argv[2], NULL, NULL, argv + 2, environ) != 0) {
      perror("posix_spawn");
      return 1;
    }
    wait4(pid, &status, 0, &usage);
    printf("%.9f\n", now() - start);
  }
  return 0;
}
