#pragma once
// Small file helpers.

#include <refbench/util/fd.hpp>

#include <expected>
#include <filesystem>
#include <string>

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

// The whole content of `path`, or why it cannot be read.
std::expected<std::string, std::string> read_file(const std::filesystem::path& path);

} // namespace refbench::util
