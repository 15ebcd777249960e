/* Anchors for scripts/bench-latency-overhead, compiled by it in each run:
 *   latency_anchor clock N          median ns of one clock_gettime pair (the floor of any timing)
 *   latency_anchor spawn N cmd...   median ms of posix_spawn + waitpid of the command (the floor
 *                                   of any process-level timing), stdout/stderr to /dev/null */
#define _GNU_SOURCE
#include <spawn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <fcntl.h>

extern char** environ;

static double now(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return ts.tv_sec + ts.tv_nsec * 1e-9;
}
static int cmp(const void* a, const void* b) {
  double x = *(const double*)a, y = *(const double*)b;
  return x < y ? -1 : x > y;
}

int main(int argc, char** argv) {
  if (argc < 3) return 2;
  int n = atoi(argv[2]);
  double* v = malloc(sizeof(double) * n);
  if (strcmp(argv[1], "clock") == 0) {
    for (int i = 0; i < n; ++i) {
      double t0 = now();
      double t1 = now();
      v[i] = t1 - t0;
    }
    qsort(v, n, sizeof(double), cmp);
    printf("%.1f\n", v[n / 2] * 1e9);
    return 0;
  }
  posix_spawn_file_actions_t fa;
  posix_spawn_file_actions_init(&fa);
  posix_spawn_file_actions_addopen(&fa, 1, "/dev/null", O_WRONLY, 0);
  posix_spawn_file_actions_addopen(&fa, 2, "/dev/null", O_WRONLY, 0);
  for (int i = 0; i < n; ++i) {
    pid_t pid;
    int status;
    double t0 = now();
    if (posix_spawnp(&pid, argv[3], &fa, NULL, argv + 3, environ) != 0) return 3;
    waitpid(pid, &status, 0);
    v[i] = now() - t0;
  }
  qsort(v, n, sizeof(double), cmp);
  printf("%.6f\n", v[n / 2] * 1e3);
  return 0;
}
