#pragma once
// Small file helpers.

#include <expected>
#include <filesystem>
#include <string>

namespace refbench::util {

// Writes `text` to `path` through `path`.tmp and a rename, so readers never
// see half a file; returns false (errno set) when it cannot.
bool write_file_atomically(const std::filesystem::path& path, const std::string& text);

// The whole content of `path`, or why it cannot be read.
std::expected<std::string, std::string> read_file(const std::filesystem::path& path);

} // namespace refbench::util
