/* A small CPU-bound program for refbench's bundled example:
 * `work N` runs N million rounds of an xorshift generator and prints the
 * result, so `work 30` does 1.5x the work of `work 20`. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

int main(int argc, char** argv) {
  if (argc != 2) {
    fprintf(stderr, "usage: work MILLIONS\n");
    return 2;
  }
  long millions = strtol(argv[1], NULL, 10);
  uint64_t x = 88172645463325252ULL;
  for (long i = 0; i < millions * 1000000L; ++i) {
    x ^= x << 13;
    x ^= x >> 7;
    x ^= x << 17;
  }
  printf("%llu\n", (unsigned long long)x);
  return 0;
}
