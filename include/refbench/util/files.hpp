#pragma once
// Small file helpers.

#include <filesystem>
#include <string>

namespace refbench::util {

// Writes `text` to `path` through `path`.tmp and a rename, so readers never
// see half a file; returns false (errno set) when it cannot.
bool write_file_atomically(const std::filesystem::path& path, const std::string& text);

} // namespace refbench::util
