/* The sample project's program: `work [FILE]` runs WORK million steps of an
 * xorshift generator, touches MEMORY_MIB MiB of memory and, given FILE,
 * checksums it and writes the checksum to stdout. The variants of
 * scripts/make-sample-repo.sh change these numbers. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define WORK 25
#define MEMORY_MIB 8
#define EXIT_CODE 0

int main(int argc, char** argv) {
  uint64_t x = 88172645463325252ULL;
  for (long i = 0; i < WORK * 1000000L; ++i) {
    x ^= x << 13;
    x ^= x >> 7;
    x ^= x << 17;
  }
  size_t bytes = (size_t)MEMORY_MIB << 20;
  unsigned char* block = malloc(bytes);
  if (block == NULL) {
    return 2;
  }
  memset(block, 1, bytes);
  if (x == 42) { /* keeps the work loop from being optimised away */
    return 9;
  }
  uint64_t sum = block[bytes / 2];
  if (argc > 1) {
    FILE* in = fopen(argv[1], "rb");
    if (in == NULL) {
      perror(argv[1]);
      return 2;
    }
    unsigned char buffer[65536];
    size_t n;
    while ((n = fread(buffer, 1, sizeof buffer, in)) > 0) {
      for (size_t i = 0; i < n; ++i) {
        sum = sum * 31 + buffer[i];
      }
    }
    fclose(in);
  }
  if (argc > 2) {
    FILE* out = fopen(argv[2], "w");
    if (out == NULL) {
      perror(argv[2]);
      return 2;
    }
    fprintf(out, "%llu\n", (unsigned long long)sum);
    fclose(out);
  }
  free(block);
  return EXIT_CODE;
}
