#pragma once
// Small string helpers.

#include <string>
#include <string_view>

namespace refbench::util {

// `text` with every occurrence of `from` replaced by `to` (`from` non-empty).
std::string replace_all(std::string text, std::string_view from, std::string_view to);

} // namespace refbench::util
