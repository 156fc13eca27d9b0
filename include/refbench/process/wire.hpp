#pragma once
// The framing between refbench and its launcher process: length-prefixed
// frames over a stream socket carrying the launcher's start-up facts, then
// invocations and outcomes.

#include <refbench/model/invocation.hpp>
#include <refbench/util/fd.hpp>

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

namespace refbench::process::wire {

inline constexpr char k_run = 'R';    // a frame with an Invocation follows; with
                                      // capture_stdout, the byte carries the stdout pipe
inline constexpr char k_cancel = 'C'; // kill the invocation in flight
inline constexpr char k_box = 'B';    // a frame with BoxPaths follows (docs/manual/security.md); the
                                      // reply frame is "ok\t<mode>\t<pid>" or "no\t<reason>"

// What the launcher measured of itself at start-up, its first frame.
struct Startup {
  std::int64_t peak_rss_bytes = 0;     // its VmHWM once ready to serve: the RSS floor
  double spawn_resolution_seconds = 0; // RssProbe::spawn_resolution_seconds
};

// Serialises `startup` / `invocation` / `outcome` into a frame body and
// back; decoding returns nullopt on a malformed body.
std::string encode(const Startup& startup);
std::string encode(const model::Invocation& invocation);
std::string encode(const model::Outcome& outcome);
std::optional<Startup> decode_startup(std::string_view body);
std::optional<model::Invocation> decode_invocation(std::string_view body);
std::optional<model::Outcome> decode_outcome(std::string_view body);

// Writes / reads one frame (u32 length + body) on `fd`; false on EOF or error.
bool write_frame(int fd, std::string_view body);
bool read_frame(int fd, std::string& body);

// Writes the one-byte message `type` on the socket `fd`, with the descriptor
// `passed` attached (SCM_RIGHTS) when ≥ 0; false on error.
bool write_type(int fd, char type, int passed = -1);
// Reads a one-byte message from the socket `fd` into `type`; a descriptor
// attached to it lands in `passed` (close-on-exec). False on EOF or error.
bool read_type(int fd, char& type, util::Fd& passed);

} // namespace refbench::process::wire
