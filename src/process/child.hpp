#pragma once
// The child of a spawn between its clone and its exec (run_process in
// spawn.cpp starts it): what the parent prepares for it, and what it does.

#include <array>
#include <cstddef>

namespace refbench::process::child {

// What the child does between its clone and its exec, prepared by the
// parent: until its exec the child shares the parent's memory (CLONE_VM),
// so it allocates nothing and writes back only `error` and `resident_pages`.
struct ChildPlan {
  const char* program = nullptr;
  char* const* argv = nullptr;
  char* const* envp = nullptr;
  std::array<int, 3> fds{-1, -1, -1}; // what become its descriptors 0, 1 and 2
  const char* cwd = nullptr;          // nullptr: the parent's
  const int* reset_signals = nullptr;
  std::size_t reset_count = 0;
  int statm = -1;          // the parent's /proc/self/statm
  int error = 0;           // errno of the step that failed; 0 when it exec'd
  long resident_pages = 0; // the shared memory's resident set right before the exec; 0 when unread
};

// This process's /proc/self/statm, opened once per process (a copy made
// by fork or clone opens its own): ChildPlan::statm. -1 when it cannot be
// opened.
int own_statm();

// The child of a spawn, on its own stack with every signal blocked
// (`argument` is its ChildPlan): a process group of its own, default
// dispositions, its descriptors and directory, an empty mask, its resident
// set, then the exec. Returns 127 with `error` set when a step failed.
int child_main(void* argument);

} // namespace refbench::process::child
