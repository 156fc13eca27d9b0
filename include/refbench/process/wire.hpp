#pragma once
// The framing between refbench and its launcher process: length-prefixed
// frames over a stream socket carrying invocations and outcomes.

#include <refbench/process/invocation.hpp>

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

namespace refbench::process::wire {

inline constexpr char k_run = 'R';    // a frame with an Invocation follows
inline constexpr char k_cancel = 'C'; // kill the invocation in flight

// Serialises `invocation` / `outcome` into a frame body and back; decoding
// returns nullopt on a malformed body.
std::string encode(const Invocation& invocation);
std::string encode(const Outcome& outcome);
std::optional<Invocation> decode_invocation(std::string_view body);
std::optional<Outcome> decode_outcome(std::string_view body);

// Writes / reads one frame (u32 length + body) on `fd`; false on EOF or error.
bool write_frame(int fd, std::string_view body);
bool read_frame(int fd, std::string& body);

} // namespace refbench::process::wire
