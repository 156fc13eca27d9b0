#include <doctest/doctest.h>

#include <refbench/profile/diff.hpp>

#include <cstddef>
#include <string>

using refbench::profile::Frame;
using refbench::profile::FunctionKey;
using refbench::profile::Profile;

namespace {

// A profile of `total` instructions made by hand.
Profile diff_test_profile(double total) {
  Profile profile;
  profile.total = total;
  profile.files = 1;
  return profile;
}

void diff_test_call(Profile& profile, const FunctionKey& caller, const FunctionKey& callee, double count,
                    double inclusive) {
  profile.calls[{caller, callee}] = {count, inclusive};
}

std::size_t diff_test_frames(const Frame& frame) {
  std::size_t frames = 1;
  for (const auto& child : frame.children) {
    frames += diff_test_frames(child);
  }
  return frames;
}

const Frame* diff_test_child(const Frame& frame, std::string_view name) {
  for (const auto& child : frame.children) {
    if (child.name == name) {
      return &child;
    }
  }
  return nullptr;
}

} // namespace

TEST_CASE("profile::is_allocator") {
  for (const char* name :
       {"malloc", "calloc", "realloc", "aligned_alloc", "posix_memalign", "memalign", "valloc",
        "operator new(unsigned long)", "operator new[](unsigned long)", "operator new(unsigned long, std::align_val_t)",
        "__rust_alloc", "__rdl_alloc_zeroed", "malloc@@GLIBC_2.2.5"}) {
    INFO(name);
    CHECK(refbench::profile::is_allocator(name));
  }
  for (const char* name :
       {"free", "operator delete(void*)", "mallocx_helper", "my_malloc", "operator newline()", "__rust_dealloc", ""}) {
    INFO(name);
    CHECK_FALSE(refbench::profile::is_allocator(name));
  }
}

TEST_CASE("profile::moved_functions") {
  Profile baseline = diff_test_profile(10'000);
  Profile candidate = diff_test_profile(13'000);
  baseline.self = {{{"app", "hot"}, 3000}, {{"app", "same"}, 5000}, {{"app", "tiny"}, 2000}};
  candidate.self = {{{"app", "hot"}, 6000}, {{"app", "same"}, 5000}, {{"app", "tiny"}, 2005}, {{"lib.so", "new"}, 20}};
  const auto moved = refbench::profile::moved_functions(baseline, candidate, 10);
  // |delta| ≥ 0.001 × 13 000 = 13: hot (+3000) then new (+20); tiny (+5) and same (0) are not
  REQUIRE(moved.size() == 2);
  CHECK(moved[0].key == FunctionKey{"app", "hot"});
  CHECK(moved[0].candidate == 2 * moved[0].baseline);
  CHECK(moved[0].delta() == 3000);
  CHECK(moved[1].key == FunctionKey{"lib.so", "new"});
  CHECK(moved[1].baseline == 0);
  CHECK(moved[1].candidate == 20);
  CHECK(refbench::profile::moved_functions(baseline, candidate, 1).size() == 1);
  CHECK(refbench::profile::moved_functions(baseline, baseline, 10).empty());
}

TEST_CASE("profile::allocation_sites and moved_allocation_sites") {
  const FunctionKey parse{"app", "parse"};
  const FunctionKey build{"app", "build"};
  const FunctionKey new_op{"libstdc++.so.6", "operator new(unsigned long)"};
  const FunctionKey malloc{"libc.so.6", "malloc"};
  const FunctionKey free{"libc.so.6", "free"};
  Profile baseline = diff_test_profile(1000);
  diff_test_call(baseline, parse, new_op, 10, 500);
  diff_test_call(baseline, new_op, malloc, 14, 400); // operator new's own calls: no site
  diff_test_call(baseline, build, malloc, 4, 100);
  diff_test_call(baseline, build, free, 4, 50);
  Profile candidate = baseline;
  diff_test_call(candidate, parse, new_op, 30, 1500);
  diff_test_call(candidate, new_op, malloc, 34, 1400);

  const auto sites = refbench::profile::allocation_sites(baseline);
  REQUIRE(sites.size() == 2);
  CHECK(sites.at(parse) == 10);
  CHECK(sites.at(build) == 4); // its frees are no allocations
  CHECK_FALSE(sites.contains(new_op));

  const auto moved = refbench::profile::moved_allocation_sites(baseline, candidate, 10);
  REQUIRE(moved.size() == 1);
  CHECK(moved[0].key == parse);
  CHECK(moved[0].baseline == 10);
  CHECK(moved[0].candidate == 30);
}

TEST_CASE("profile::call_tree") {
  const FunctionKey main{"app", "main"};
  const FunctionKey work{"app", "work"};
  const FunctionKey walk{"app", "walk"};
  const FunctionKey init{"ld.so", "init"};
  Profile baseline = diff_test_profile(1000);
  baseline.self = {{main, 100}, {work, 500}, {init, 100}, {walk, 300}};
  diff_test_call(baseline, main, work, 2, 800); // work runs 500 itself and 300 in walk
  diff_test_call(baseline, work, walk, 5, 300);
  diff_test_call(baseline, walk, walk, 50, 200); // recursion: stays in walk's frame
  Profile candidate = baseline;
  candidate.total = 1400;
  candidate.self[work] = 900;
  diff_test_call(candidate, main, work, 2, 1200);

  SUBCASE("roots, weights and the recursion cut") {
    const Frame tree = refbench::profile::call_tree(baseline, candidate);
    CHECK(tree.name == "all");
    CHECK(tree.baseline == 1000);
    CHECK(tree.candidate == 1400);
    REQUIRE(tree.children.size() == 2); // init and main: nobody calls them
    CHECK(tree.children[0].name == "init (ld.so)");
    CHECK(tree.children[1].name == "main (app)");
    CHECK(tree.children[0].baseline + tree.children[1].baseline == tree.baseline);
    CHECK(tree.children[0].candidate + tree.children[1].candidate == tree.candidate);
    const Frame* work_frame = diff_test_child(tree.children[1], "work (app)");
    REQUIRE(work_frame != nullptr);
    CHECK(work_frame->baseline == 800);
    CHECK(work_frame->candidate == 1200);
    REQUIRE(work_frame->children.size() == 1);
    CHECK(work_frame->children[0].name == "walk (app)");
    CHECK(work_frame->children[0].baseline == 300);
    CHECK(work_frame->children[0].children.empty()); // walk → walk is on the path
    CHECK(diff_test_frames(tree) == 5);
  }
  SUBCASE("a function reached by two paths splits its callees by what each path ran in it") {
    const FunctionKey other{"app", "other"};
    Profile split = diff_test_profile(1000);
    split.self = {{main, 0}, {other, 100}, {walk, 800}};
    diff_test_call(split, main, work, 3, 600);
    diff_test_call(split, main, other, 1, 400);
    diff_test_call(split, other, work, 1, 300);
    diff_test_call(split, work, walk, 4, 800); // work runs 900 in all, 600 of it reached from main
    split.self[work] = 100;
    const Frame tree = refbench::profile::call_tree(split, split);
    REQUIRE(tree.children.size() == 1);
    const Frame* direct = diff_test_child(tree.children[0], "work (app)");
    const Frame* through = diff_test_child(tree.children[0], "other (app)");
    REQUIRE(direct != nullptr);
    REQUIRE(through != nullptr);
    REQUIRE(direct->children.size() == 1);
    CHECK(direct->children[0].baseline == doctest::Approx(800.0 * 600 / 900));
    REQUIRE(through->children.size() == 1);
    REQUIRE(through->children[0].children.size() == 1);
    CHECK(through->children[0].children[0].baseline == doctest::Approx(800.0 * 300 / 900));
  }
  SUBCASE("limits: min_share, max_depth, max_frames") {
    refbench::profile::TreeLimits narrow;
    narrow.min_share = 0.25; // at least 350 of the candidate's 1400
    const Frame wide = refbench::profile::call_tree(baseline, candidate, narrow);
    REQUIRE(wide.children.size() == 1);
    CHECK(wide.children[0].name == "main (app)");
    CHECK(diff_test_child(wide.children[0].children[0], "walk (app)") == nullptr); // 300 of 1400

    refbench::profile::TreeLimits shallow;
    shallow.max_depth = 1;
    const Frame top = refbench::profile::call_tree(baseline, candidate, shallow);
    CHECK(diff_test_frames(top) == 3);

    refbench::profile::TreeLimits one;
    one.max_frames = 1;
    const Frame widest = refbench::profile::call_tree(baseline, candidate, one);
    REQUIRE(widest.children.size() == 1); // the widest root only
    CHECK(widest.children[0].name == "main (app)");
    CHECK(widest.children[0].children.empty());

    refbench::profile::TreeLimits three;
    three.max_frames = 3;
    const Frame small = refbench::profile::call_tree(baseline, candidate, three);
    CHECK(diff_test_frames(small) == 4); // the root, init, main and, the widest next, work
    REQUIRE(small.children.size() == 2);
    REQUIRE(small.children[1].children.size() == 1);
    CHECK(small.children[1].children[0].children.empty());
  }
  SUBCASE("deep, cyclic and wide graphs stay bounded") {
    Profile chain = diff_test_profile(100'000);
    diff_test_call(chain, main, {"app", "f0"}, 1, 100'000);
    for (int i = 0; i < 5000; ++i) {
      const FunctionKey from{"app", "f" + std::to_string(i)};
      const FunctionKey to{"app", "f" + std::to_string(i + 1)};
      diff_test_call(chain, from, to, 1, 100'000.0 - i);
      diff_test_call(chain, to, from, 1, 100'000.0 - i); // every pair a cycle
    }
    refbench::profile::TreeLimits all_widths;
    all_widths.min_share = 0;
    const Frame deep = refbench::profile::call_tree(chain, chain, all_widths);
    std::size_t depth = 0;
    for (const Frame* frame = &deep; !frame->children.empty(); frame = &frame->children[0]) {
      REQUIRE(frame->children.size() == 1); // the way back is on the path
      ++depth;
    }
    CHECK(depth == 48);

    Profile star = diff_test_profile(100'000);
    for (int i = 0; i < 10'000; ++i) {
      diff_test_call(star, main, {"app", "g" + std::to_string(i)}, 1, 10);
    }
    CHECK(diff_test_frames(refbench::profile::call_tree(star, star, all_widths)) == 1 + 4000);
  }
}

TEST_CASE("profile::call_tree: a thread's work is a root of its own, not lost under clone") {
  // callgrind sees the thread's start called by clone in the thread that made it, at the cost of the call
  // alone (18), while clone's call of start_thread in the new thread ran 1000
  const FunctionKey main{"app", "main"};
  const FunctionKey clone_internal{"libc.so.6", "__clone_internal"};
  const FunctionKey clone{"libc.so.6", "clone"};
  const FunctionKey start{"libc.so.6", "start_thread"};
  const FunctionKey job{"app", "job"};
  Profile profile = diff_test_profile(1100);
  profile.self = {{main, 82}, {clone, 18}, {job, 1000}};
  diff_test_call(profile, main, clone_internal, 1, 18);
  diff_test_call(profile, clone_internal, clone, 1, 18);
  diff_test_call(profile, clone, start, 1, 1000);
  diff_test_call(profile, start, job, 1, 1000);
  const Frame tree = refbench::profile::call_tree(profile, profile);
  const Frame* thread = diff_test_child(tree, "clone (libc.so.6)");
  REQUIRE(thread != nullptr);
  CHECK(thread->baseline == doctest::Approx(1000));
  const Frame* started = diff_test_child(*thread, "start_thread (libc.so.6)");
  REQUIRE(started != nullptr);
  REQUIRE(diff_test_child(*started, "job (app)") != nullptr);
  // clone's own 18 (the main thread's) thins the share it passes down, by 18 / 1018
  CHECK(diff_test_child(*started, "job (app)")->candidate == doctest::Approx(1000 * 1000 / 1018.0));
  REQUIRE(diff_test_child(tree, "main (app)") != nullptr);
}
