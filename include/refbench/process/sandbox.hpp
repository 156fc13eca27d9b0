#pragma once
// The box the benchmarked commands run in (docs/manual/security.md): the
// launcher moves into a PID namespace of its own, where it is process 1
// and refbench is not there to signal, and a mount namespace where
// refbench's --out (all but the commands' own outputs), the {arm} links,
// the payloads and refbench's binary are read-only. Whatever the launcher
// started dies with it, and it dies with refbench.

#include <refbench/model/isolation.hpp>
#include <refbench/util/enum_names.hpp>

#include <functional>
#include <string>
#include <string_view>
#include <vector>

namespace refbench::process {

// What the box hides or freezes: `read_only` paths (bound read-only with
// everything mounted under them), then `writable` paths under those bound
// writable again. Absolute paths of existing files or directories.
struct BoxPaths {
  std::vector<std::string> read_only;
  std::vector<std::string> writable;
};

// What was in force, as results.json records it (environment.sandbox).
struct SandboxState {
  std::string mode = "none"; // "namespaces" (PID + mount; "user+namespaces" when unprivileged) or "none"
  std::string reason;        // why not, when mode is "none"
};

// BoxPaths in a frame body and back; nullopt-like empty paths on a
// malformed body are refused by the launcher.
std::string encode_box_paths(const BoxPaths& paths);
bool decode_box_paths(std::string_view body, BoxPaths& paths);

// In the launcher process: starts a copy of it as process 1 of a new PID
// namespace (a user namespace first when the kernel needs one) with a mount
// namespace in which `paths` are bound and a fresh /proc mounted. Returns
// in the copy (`in_box` true) once it is ready, after calling `ready`
// there, and in the caller (`in_box` false) with the copy's pid and what
// `ready` returned (`facts`), or with -1 and `reason` when the box cannot
// be made (nothing changed then). The caller must leave the socket to the
// copy and only wait for it.
struct BoxEntry {
  bool in_box = false;
  int child = -1;
  std::string mode;   // when made: SandboxState::mode
  std::string reason; // when not
  std::string facts;  // when made: what `ready` said in the copy
};
BoxEntry enter_box(const BoxPaths& paths, const std::function<std::string()>& ready);

// Why the box cannot be made here ("" when the kernel allows its
// namespaces): a quick look before the builds, for run.sandbox = "required".
std::string box_refusal();

} // namespace refbench::process
