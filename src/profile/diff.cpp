#include <refbench/profile/diff.hpp>

#include <algorithm>
#include <cmath>
#include <queue>
#include <set>
#include <utility>

namespace refbench::profile {
namespace {

// The malloc family and the wrappers that allocate through it, as valgrind
// names them; a name may carry a symbol version ("malloc@@GLIBC_2.2.5").
// glibc's internal _int_malloc is only called by the family itself, so it
// never makes a site; it is here in case it is reached some other way.
constexpr std::string_view k_diff_allocators[] = {
    "malloc",
    "calloc",
    "realloc",
    "reallocarray",
    "memalign",
    "aligned_alloc",
    "posix_memalign",
    "valloc",
    "pvalloc",
    "__libc_malloc",
    "__libc_calloc",
    "__libc_realloc",
    "__libc_memalign",
    "_int_malloc",
    "__rust_alloc",
    "__rust_alloc_zeroed",
    "__rust_realloc",
    "__rdl_alloc",
    "__rdl_alloc_zeroed",
    "__rdl_realloc",
    "__rg_alloc",
    "__rg_alloc_zeroed",
    "__rg_realloc",
};

// Every overload of operator new and new[], as demangled:
// "operator new(unsigned long)", "operator new[](unsigned long, std::align_val_t)".
constexpr std::string_view k_diff_operator_new = "operator new";

// The keys of both maps with each one's value in either (0 where absent),
// kept when `keep` says so, by |delta| largest first, ties by key.
template <typename Keep>
std::vector<Moved> diff_moved(const std::map<FunctionKey, double>& baseline,
                              const std::map<FunctionKey, double>& candidate, std::size_t limit, Keep keep) {
  std::map<FunctionKey, Moved> both;
  for (const auto& [key, value] : baseline) {
    both[key] = Moved{key, value, 0};
  }
  for (const auto& [key, value] : candidate) {
    auto& moved = both.try_emplace(key, Moved{key, 0, 0}).first->second;
    moved.candidate = value;
  }
  std::vector<Moved> kept;
  for (auto& [key, moved] : both) {
    if (std::abs(moved.delta()) > 0 && keep(std::abs(moved.delta()))) {
      kept.push_back(std::move(moved));
    }
  }
  std::ranges::sort(kept, [](const Moved& a, const Moved& b) {
    const double wa = std::abs(a.delta());
    const double wb = std::abs(b.delta());
    return wa != wb ? wa > wb : a.key < b.key;
  });
  if (kept.size() > limit) {
    kept.resize(limit);
  }
  return kept;
}

// A function whose calls ran this share of the total more than its callers'
// calls of it brought in starts a thread: a root of its own (below).
constexpr double k_diff_entry_share = 0.01;

// One arm's profile as the call tree walks it: what each function ran in
// all (itself and its callees), and the roots with their weights: the
// functions no function calls, and those whose calls ran far more than
// their callers' calls of them brought in — a thread's start, which
// callgrind sees called by `clone` in the thread that made it at the
// cost of the call alone.
struct DiffArm {
  const Profile* profile = nullptr;
  std::map<FunctionKey, double> inclusive;
  std::map<FunctionKey, double> roots;
};

DiffArm diff_arm(const Profile& profile) {
  DiffArm arm{&profile, profile.self, {}};
  std::map<FunctionKey, double> incoming;
  for (const auto& [edge, call] : profile.calls) {
    arm.inclusive[edge.first] += call.inclusive;
    incoming[edge.second] += call.inclusive;
  }
  for (const auto& [key, value] : arm.inclusive) {
    const auto brought = incoming.find(key);
    if (brought == incoming.end()) {
      arm.roots[key] = value;
    } else if (value - brought->second > k_diff_entry_share * profile.total) {
      arm.roots[key] = value - brought->second;
    }
  }
  return arm;
}

double diff_inclusive(const DiffArm& arm, const FunctionKey& key) {
  const auto found = arm.inclusive.find(key);
  return found == arm.inclusive.end() ? 0.0 : found->second;
}

// A frame waiting to get its children: the function it is, its weight in
// each arm, its depth (the root's is 0) and its parent's place in the list.
struct DiffPending {
  Frame* frame = nullptr;
  FunctionKey key;
  std::size_t depth = 0;
  std::size_t parent = 0;
};

using DiffWeights = std::map<FunctionKey, std::pair<double, double>>;

// `key`'s callees in `arm` with their share of the `weight` it was reached
// with, added to `weights` (.first for the baseline, .second the candidate).
void diff_callees(const DiffArm& arm, const FunctionKey& key, double weight, bool baseline, DiffWeights& weights) {
  const double inclusive = diff_inclusive(arm, key);
  const double share = inclusive > 0 ? std::min(1.0, weight / inclusive) : 0.0;
  const auto& calls = arm.profile->calls;
  for (auto it = calls.lower_bound({key, FunctionKey{}}); it != calls.end() && it->first.first == key; ++it) {
    auto& pair = weights[it->first.second];
    (baseline ? pair.first : pair.second) += it->second.inclusive * share;
  }
}

// The call tree's state: the arms, the limits, the frames made so far and
// the frames waiting for children, widest first.
class DiffTree {
public:
  DiffTree(const Profile& baseline, const Profile& candidate, const TreeLimits& limits)
      : m_baseline(diff_arm(baseline)), m_candidate(diff_arm(candidate)), m_limits(limits),
        m_min_width(limits.min_share * std::max(baseline.total, candidate.total)) {}

  Frame build() {
    Frame root{"all", m_baseline.profile->total, m_candidate.profile->total, {}};
    DiffWeights roots;
    for (const auto* arm : {&m_baseline, &m_candidate}) {
      for (const auto& [key, weight] : arm->roots) {
        auto& pair = roots[key];
        (arm == &m_baseline ? pair.first : pair.second) = weight;
      }
    }
    m_pending.push_back({&root, {}, 0, 0});
    if (m_limits.max_depth >= 1) {
      adopt(0, roots);
    }
    while (!m_queue.empty() && m_made < m_limits.max_frames) {
      const std::size_t index = m_queue.top().second;
      m_queue.pop();
      const DiffPending& pending = m_pending[index];
      if (static_cast<int>(pending.depth) >= m_limits.max_depth) {
        continue;
      }
      DiffWeights children;
      diff_callees(m_baseline, pending.key, pending.frame->baseline, true, children);
      diff_callees(m_candidate, pending.key, pending.frame->candidate, false, children);
      adopt(index, children);
    }
    return root;
  }

private:
  bool on_path(std::size_t index, const FunctionKey& key) const {
    for (; index != 0; index = m_pending[index].parent) {
      if (m_pending[index].key == key) {
        return true;
      }
    }
    return false;
  }

  // Makes the children of pending frame `index` from `weights`: those that
  // pass the limits (the widest when the frames run out), in name order,
  // each then waiting for its own children.
  void adopt(std::size_t index, const DiffWeights& weights) {
    struct Chosen {
      double width;
      FunctionKey key;
      Frame frame;
    };
    std::vector<Chosen> chosen;
    for (const auto& [key, pair] : weights) {
      const double width = std::max(pair.first, pair.second);
      if (width > 0 && width >= m_min_width && !on_path(index, key)) {
        chosen.push_back({width, key, Frame{key.function + " (" + key.object + ")", pair.first, pair.second, {}}});
      }
    }
    std::ranges::stable_sort(chosen, [](const Chosen& a, const Chosen& b) { return a.width > b.width; });
    chosen.resize(std::min(chosen.size(), m_limits.max_frames - m_made));
    m_made += chosen.size();
    std::ranges::sort(chosen, [](const Chosen& a, const Chosen& b) {
      return a.frame.name != b.frame.name ? a.frame.name < b.frame.name : a.key < b.key;
    });
    Frame& parent = *m_pending[index].frame;
    const std::size_t depth = m_pending[index].depth + 1;
    parent.children.reserve(chosen.size());
    for (auto& [width, key, frame] : chosen) {
      parent.children.push_back(std::move(frame));
      m_pending.push_back({&parent.children.back(), std::move(key), depth, index});
      m_queue.push({width, m_pending.size() - 1});
    }
  }

  DiffArm m_baseline;
  DiffArm m_candidate;
  TreeLimits m_limits;
  double m_min_width;
  std::vector<DiffPending> m_pending;
  std::priority_queue<std::pair<double, std::size_t>> m_queue;
  std::size_t m_made = 0;
};

} // namespace

bool is_allocator(std::string_view function) {
  if (function.starts_with(k_diff_operator_new)) {
    const auto rest = function.substr(k_diff_operator_new.size());
    return rest.empty() || rest.starts_with('(') || rest.starts_with("[]");
  }
  const auto base = function.substr(0, function.find('@'));
  return std::ranges::find(k_diff_allocators, base) != std::end(k_diff_allocators);
}

std::map<FunctionKey, double> allocation_sites(const Profile& profile) {
  std::map<FunctionKey, double> sites;
  for (const auto& [edge, call] : profile.calls) {
    if (is_allocator(edge.second.function) && !is_allocator(edge.first.function)) {
      sites[edge.first] += call.count;
    }
  }
  return sites;
}

std::vector<Moved> moved_functions(const Profile& baseline, const Profile& candidate, std::size_t limit) {
  const double least = k_moved_share * std::max(baseline.total, candidate.total);
  return diff_moved(baseline.self, candidate.self, limit, [least](double delta) { return delta >= least; });
}

std::vector<Moved> moved_allocation_sites(const Profile& baseline, const Profile& candidate, std::size_t limit) {
  return diff_moved(allocation_sites(baseline), allocation_sites(candidate), limit, [](double) { return true; });
}

Frame call_tree(const Profile& baseline, const Profile& candidate, const TreeLimits& limits) {
  return DiffTree(baseline, candidate, limits).build();
}

} // namespace refbench::profile
