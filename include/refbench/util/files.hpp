#pragma once
// Small file helpers.

#include <refbench/util/fd.hpp>

#include <expected>
#include <filesystem>
#include <functional>
#include <string>
#include <string_view>

namespace refbench::util {

// Writes `text` to `path` through a fresh temporary file of a unique name
// beside it and a rename, so readers never see half a file and nothing is
// written through a symlink planted at `path` or at a guessed temporary
// name; returns false (errno set) when it cannot.
bool write_file_atomically(const std::filesystem::path& path, const std::string& text);

// True when `error_number` means the disk (or the quota, or the file-size
// limit) is full: ENOSPC, EDQUOT or EFBIG.
bool out_of_space(int error_number);

// True when `path` is a directory itself, not a symlink to one.
bool is_real_directory(const std::filesystem::path& path);

// Makes `link` a symlink to `target` in one rename (a symlink made beside it
// under a temporary name replaces whatever link was there, so a reader sees
// the old target or the new one, never none); false (errno set) if it cannot.
bool point_symlink(const std::filesystem::path& link, const std::filesystem::path& target);

// Removes whatever is at `path` (a planted symlink is removed, never
// followed) and creates a new empty file there for writing, opened with
// O_EXCL | O_NOFOLLOW plus `extra_flags`; an invalid Fd (errno set) if it cannot.
Fd create_fresh_file(const std::filesystem::path& path, int extra_flags = 0);

// The most bytes read_file reads by default (a results.json of 10^6 pairs
// is a few hundred MiB).
inline constexpr std::size_t k_max_read_bytes = std::size_t{1} << 30;

// Which files a read accepts: `regular_or_pipe` a regular file (links
// followed) or a pipe (`<(command)`); `regular_here` only a regular file
// that is not a symlink itself (a path a command under test could plant).
enum class Readable { regular_or_pipe, regular_here };

// The whole content of `path`, at most `max_bytes` of it, or why it cannot be
// read: a device, socket or directory (e.g. /dev/zero), a pipe or a link
// where `kinds` says regular_here, a file longer than `max_bytes`.
std::expected<std::string, std::string> read_file(const std::filesystem::path& path,
                                                  std::size_t max_bytes = k_max_read_bytes,
                                                  Readable kinds = Readable::regular_or_pipe);

// `path` read as read_file reads it, a line at a time: `line` gets each
// line without its '\n' and its number (1-based), the last one also when
// no '\n' ends it; a file need never be in memory whole.
std::expected<void, std::string> read_lines(const std::filesystem::path& path,
                                            const std::function<void(std::string_view, std::size_t)>& line,
                                            std::size_t max_bytes = k_max_read_bytes,
                                            Readable kinds = Readable::regular_or_pipe);

} // namespace refbench::util
