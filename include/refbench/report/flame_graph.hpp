#pragma once
// The picture of an explanation (docs/design.md, Explanations): a
// differential flame graph of a profile::Frame tree as one self-contained
// SVG file (no script, no link, nothing fetched).

#include <refbench/profile/diff.hpp>

#include <string>
#include <string_view>

namespace refbench::report {

// `root` as an SVG flame graph titled `title`: the root at the bottom, each
// frame as wide as the larger of its two arms' instructions, red where the
// candidate runs more in it than the baseline, blue where fewer, grey where
// the same (the deeper the colour, the larger the change relative to the
// frame); each frame's label clipped to its width and its <title> (shown on
// hover) naming it with both arms' counts and the change. Every name goes
// through util::html_text. Bounded whatever the tree: at most 64 levels
// and 5000 frames drawn, none narrower than half a pixel (the header counts
// those left out), names in tooltips elided to 300 code points.
std::string render_flame_graph(const profile::Frame& root, std::string_view title);

} // namespace refbench::report
