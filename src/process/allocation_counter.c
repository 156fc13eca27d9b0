/* The allocation counter (docs/manual/counters.md): a shared library refbench
 * preloads (LD_PRELOAD) into a counted invocation's process tree. It counts
 * the calls of the malloc family — malloc, calloc, realloc, aligned_alloc,
 * posix_memalign, memalign, valloc, pvalloc — and the bytes they asked for,
 * and forwards each to glibc's own allocator (__libc_*), so the program's
 * memory is glibc's as ever; free is glibc's, untouched.
 *
 * Each process image counts into a 16-byte file of its own,
 * $REFBENCH_ALLOC_DIR/alloc.<pid>.<n> (two little-endian uint64: calls,
 * bytes), mapped shared: the counts are on the file however the process
 * ends (exit, _exit, exec, a signal), and a forked child, which inherits
 * the mapping, adds to its parent's. refbench sums the files. Allocations
 * before the file is mapped (the loader's, early constructors') are held
 * in the image and added when it is. A process that cannot make its file
 * counts nothing: refbench then finds fewer files, never a wrong one.
 *
 * Built as a shared object and carried inside the refbench binary
 * (allocation_counter_image.cpp); nothing here may allocate. */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <stdatomic.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <sys/mman.h>
#include <unistd.h>

extern void* __libc_malloc(size_t size);
extern void* __libc_calloc(size_t count, size_t size);
extern void* __libc_realloc(void* pointer, size_t size);
extern void* __libc_memalign(size_t alignment, size_t size);
extern void* __libc_valloc(size_t size);
extern void* __libc_pvalloc(size_t size);

struct counts {
  _Atomic uint64_t calls;
  _Atomic uint64_t bytes;
};

enum { unmapped, mapping, mapped, failed };

static struct counts pending;         /* before the file is mapped */
static struct counts* _Atomic shared; /* the file, once mapped */
static _Atomic int state = unmapped;
static _Atomic int constructed; /* after it, a missing directory is final */

/* Appends the decimal digits of `value` at `at`; returns the end. */
static char* put_number(char* at, unsigned long value) {
  char digits[24];
  int n = 0;
  do {
    digits[n++] = (char)('0' + value % 10);
    value /= 10;
  } while (value != 0);
  while (n > 0) {
    *at++ = digits[--n];
  }
  return at;
}

/* Creates this image's file under `dir` (a fresh name, never through a link). */
static int open_counts(const char* dir) {
  char path[4096];
  size_t length = 0;
  while (dir[length] != '\0') {
    ++length;
  }
  if (length + 48 > sizeof(path)) {
    return -1;
  }
  for (unsigned long n = 0; n < 1000; ++n) {
    char* at = path;
    for (size_t i = 0; i < length; ++i) {
      *at++ = dir[i];
    }
    const char name[] = "/alloc.";
    for (size_t i = 0; i + 1 < sizeof(name); ++i) {
      *at++ = name[i];
    }
    at = put_number(at, (unsigned long)getpid());
    *at++ = '.';
    at = put_number(at, n);
    *at = '\0';
    const int fd = open(path, O_RDWR | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0600);
    if (fd >= 0 || errno != EEXIST) {
      return fd;
    }
  }
  return -1;
}

static void map_counts(void) {
  int expected = unmapped;
  if (!atomic_compare_exchange_strong(&state, &expected, mapping)) {
    return;
  }
  const char* dir = getenv("REFBENCH_ALLOC_DIR");
  if (dir == NULL || dir[0] == '\0') {
    atomic_store(&state, atomic_load(&constructed) ? failed : unmapped);
    return;
  }
  const int fd = open_counts(dir);
  struct counts* file = MAP_FAILED;
  if (fd >= 0) {
    if (ftruncate(fd, sizeof(struct counts)) == 0) {
      file = mmap(NULL, sizeof(struct counts), PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
    }
    close(fd);
  }
  if (file == MAP_FAILED) {
    atomic_store(&state, failed);
    return;
  }
  atomic_fetch_add(&file->calls, atomic_exchange(&pending.calls, 0));
  atomic_fetch_add(&file->bytes, atomic_exchange(&pending.bytes, 0));
  atomic_store(&shared, file);
  atomic_store(&state, mapped);
}

static void count(size_t bytes) {
  struct counts* file = atomic_load_explicit(&shared, memory_order_acquire);
  if (file == NULL && atomic_load_explicit(&state, memory_order_relaxed) == unmapped) {
    map_counts();
    file = atomic_load_explicit(&shared, memory_order_acquire);
  }
  struct counts* into = file != NULL ? file : &pending;
  atomic_fetch_add_explicit(&into->calls, 1, memory_order_relaxed);
  atomic_fetch_add_explicit(&into->bytes, (uint64_t)bytes, memory_order_relaxed);
}

__attribute__((constructor)) static void counter_start(void) {
  atomic_store(&constructed, 1);
  map_counts();
}

/* What a thread counted into `pending` while another mapped the file. */
__attribute__((destructor)) static void counter_end(void) {
  struct counts* file = atomic_load(&shared);
  if (file != NULL) {
    atomic_fetch_add(&file->calls, atomic_exchange(&pending.calls, 0));
    atomic_fetch_add(&file->bytes, atomic_exchange(&pending.bytes, 0));
  }
}

void* malloc(size_t size) {
  count(size);
  return __libc_malloc(size);
}

void* calloc(size_t count_of, size_t size) {
  size_t bytes = 0;
  count(__builtin_mul_overflow(count_of, size, &bytes) ? SIZE_MAX : bytes);
  return __libc_calloc(count_of, size);
}

void* realloc(void* pointer, size_t size) {
  count(size);
  return __libc_realloc(pointer, size);
}

void* memalign(size_t alignment, size_t size) {
  count(size);
  return __libc_memalign(alignment, size);
}

void* aligned_alloc(size_t alignment, size_t size) {
  count(size);
  return __libc_memalign(alignment, size);
}

int posix_memalign(void** result, size_t alignment, size_t size) {
  count(size);
  if (alignment == 0 || alignment % sizeof(void*) != 0 || (alignment & (alignment - 1)) != 0) {
    return EINVAL;
  }
  const int saved = errno; /* posix_memalign leaves errno as it was */
  void* memory = __libc_memalign(alignment, size);
  errno = saved;
  if (memory == NULL) {
    return ENOMEM;
  }
  *result = memory;
  return 0;
}

void* valloc(size_t size) {
  count(size);
  return __libc_valloc(size);
}

void* pvalloc(size_t size) {
  count(size);
  return __libc_pvalloc(size);
}
