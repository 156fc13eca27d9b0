#pragma once
// Generated, seeded payloads (docs/manual/commands.md#refbench-run): written in bounded chunks, hashed
// while written, cached under `<out>/payloads/` between runs.

#include <refbench/util/error.hpp>

#include <cstdint>
#include <string>

namespace refbench::runner {

// The largest piece of a payload held in memory while it is generated.
inline constexpr std::uint64_t k_payload_chunk_bytes = std::uint64_t{8} << 20;

// One payload file, ready for `{payload}` and `{size}`.
struct Payload {
  std::string label; // `{size}`: size_label(bytes), e.g. "32MiB"
  std::uint64_t bytes = 0;
  std::string path;    // `<dir>/payloads/<label>-<seed>.bin`
  std::string sha256;  // 64 lowercase hex digits
  bool reused = false; // true when a cached file was taken as is
};

// `bytes` with the largest binary unit that divides it exactly: "1KiB",
// "32MiB", "1GiB"; "512B" and "1536B" otherwise (parse_size reads it back).
std::string size_label(std::uint64_t bytes);

// Where make_payload puts the payload of `bytes` for `seed` under `dir`.
std::string payload_path(const std::string& dir, std::uint64_t bytes, std::uint64_t seed);

// Creates (or reuses) the payload of `bytes` for `seed` under `dir`, which
// must exist. Content: the words of util::Rng(seed ^ bytes * 0x9e3779b97f4a7c15)
// in little-endian order, the last one truncated. A file of the right size
// with a `<path>.sha256` sidecar is reused without being re-read (size only
// is checked: the cache trusts its own directory). Otherwise the payload is
// written in chunks of k_payload_chunk_bytes to a temporary name, hashed on
// the way, flushed to disk and renamed. Throws RefusedError when it cannot
// be written (see payload_write_error); no partial file is left.
Payload make_payload(const std::string& dir, std::uint64_t bytes, std::uint64_t seed);

// The error make_payload throws when writing `path` failed with
// `error_number`: "out of disk space" for ENOSPC, EDQUOT and EFBIG, with a hint.
RefusedError payload_write_error(const std::string& path, int error_number);

} // namespace refbench::runner
