#pragma once
// What moved between two arms' profiles (docs/design.md, Explanations):
// the functions whose own instructions moved most, the allocation sites
// whose calls of the malloc family moved most, and the call tree of both
// arms for the picture. Pure.

#include <refbench/profile/callgrind.hpp>

#include <cstddef>
#include <map>
#include <string>
#include <string_view>
#include <vector>

namespace refbench::profile {

// A function (or allocation site) in both arms: its count in each.
struct Moved {
  FunctionKey key;
  double baseline = 0;
  double candidate = 0;
  double delta() const { return candidate - baseline; }
};

// Whether `function` is one of the malloc family or a wrapper that
// allocates through it without being the code that asked (operator new
// and new[], Rust's __rust_alloc / __rdl_alloc and their zeroed and realloc
// forms, …): its callers are the allocation sites.
bool is_allocator(std::string_view function);

// Per allocation site (a function that is no allocator calling one), the
// calls it made to allocators.
std::map<FunctionKey, double> allocation_sites(const Profile& profile);

// A function counts as moved when its |delta| is above 0 and at least this
// share of the larger arm's total instructions.
inline constexpr double k_moved_share = 0.001;

// The functions whose self instructions moved, by |delta| largest first
// (ties by name), at most `limit`.
std::vector<Moved> moved_functions(const Profile& baseline, const Profile& candidate, std::size_t limit);

// The allocation sites whose calls moved (any |delta| above 0), by |delta|
// largest first (ties by name), at most `limit`.
std::vector<Moved> moved_allocation_sites(const Profile& baseline, const Profile& candidate, std::size_t limit);

// A frame of the merged call tree: a function reached by one call path,
// with the instructions it ran in all (itself and below) in each arm.
struct Frame {
  std::string name; // "function (object)"; the root's is "all"
  double baseline = 0;
  double candidate = 0;
  std::vector<Frame> children; // by name
};

// How much of a call tree the picture keeps: frames narrower than
// `min_share` of the wider arm's total are dropped, none deeper than
// `max_depth` (the root's children are at depth 1), at most `max_frames`
// below the root: when they run out, the widest frames are the ones made.
struct TreeLimits {
  double min_share = 0.002;
  int max_depth = 48;
  std::size_t max_frames = 4000;
};

// Both arms' call trees merged by call path, from the functions no other
// function calls (the roots) down. Callgrind records calls, not stacks: a
// function's callees are split among the paths that reach it in proportion
// to the instructions each path's calls ran in it, and a call back into a
// function already on the path stays in the caller's frame.
Frame call_tree(const Profile& baseline, const Profile& candidate, const TreeLimits& limits = {});

} // namespace refbench::profile
