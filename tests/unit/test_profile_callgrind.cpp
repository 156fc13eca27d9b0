#include <doctest/doctest.h>

#include <refbench/profile/callgrind.hpp>
#include <refbench/profile/diff.hpp>
#include <refbench/util/files.hpp>

#include <numeric>
#include <string>

using refbench::profile::Call;
using refbench::profile::FunctionKey;
using refbench::profile::Profile;
using refbench::profile::read_callgrind;

namespace {

// `text` read into a fresh profile; fails the test on an error.
Profile callgrind_test_read(std::string_view text) {
  Profile profile;
  const auto read = read_callgrind(profile, text);
  INFO((read ? std::string() : read.error()));
  REQUIRE(read.has_value());
  return profile;
}

// The error reading `text` gives ("" when it reads).
std::string callgrind_test_error(std::string_view text) {
  Profile profile;
  const auto read = read_callgrind(profile, text);
  return read ? std::string() : read.error();
}

double callgrind_test_self(const Profile& profile, const FunctionKey& key) {
  const auto found = profile.self.find(key);
  return found == profile.self.end() ? -1.0 : found->second;
}

Call callgrind_test_call(const Profile& profile, const FunctionKey& caller, const FunctionKey& callee) {
  const auto found = profile.calls.find({caller, callee});
  return found == profile.calls.end() ? Call{-1, -1} : found->second;
}

// The first frame called `name` under `frame`, depth first, or nullptr.
const refbench::profile::Frame* callgrind_test_frame(const refbench::profile::Frame& frame, std::string_view name) {
  if (frame.name == name) {
    return &frame;
  }
  for (const auto& child : frame.children) {
    if (const auto* found = callgrind_test_frame(child, name)) {
      return found;
    }
  }
  return nullptr;
}

constexpr std::string_view k_callgrind_test_header = "# callgrind format\nversion: 1\npositions: line\n"
                                                     "events: Ir\nsummary: 1000\n\n";

} // namespace

TEST_CASE("profile::read_callgrind on a recorded file") {
  // tests/fixtures/callgrind/prog.callgrind: valgrind-3.19.0's callgrind
  // over prog.c beside it (gcc -O2 -g). The expected numbers come from
  // callgrind_annotate 3.19.0 over the same file: --inclusive=no (self Ir),
  // --inclusive=yes and --tree=caller (calls and their inclusive Ir).
  constexpr double k_total = 973'258;        // "PROGRAM TOTALS"
  constexpr double k_spin_self = 700'004;    // prog.c:spin.constprop.0 [/tmp/x/prog]
  constexpr double k_allocate_self = 13'019; // prog.c:allocate.constprop.0
  constexpr double k_malloc_calls = 1'000;   // "< prog.c:allocate.constprop.0 (1,000x)" above malloc
  constexpr double k_malloc_inclusive = 43'242;
  constexpr double k_free_inclusive = 88'000;      // allocate → free, 1,000x
  constexpr double k_allocate_inclusive = 145'515; // main → allocate, 1x
  constexpr double k_main_inclusive = 847'447;     // --inclusive=yes: prog.c:main

  const auto text = refbench::util::read_file(std::string(REFBENCH_FIXTURES_DIR) + "/callgrind/prog.callgrind");
  REQUIRE(text.has_value());
  const Profile profile = callgrind_test_read(*text);
  const FunctionKey spin{"prog", "spin.constprop.0"};
  const FunctionKey allocate{"prog", "allocate.constprop.0"};
  const FunctionKey malloc{"libc.so.6", "malloc"};
  CHECK(profile.files == 1);
  CHECK(profile.total == k_total);
  CHECK(callgrind_test_self(profile, spin) == k_spin_self);
  CHECK(callgrind_test_self(profile, allocate) == k_allocate_self);
  const Call to_malloc = callgrind_test_call(profile, allocate, malloc);
  CHECK(to_malloc.count == k_malloc_calls);
  CHECK(to_malloc.inclusive == k_malloc_inclusive);
  CHECK(callgrind_test_call(profile, allocate, {"libc.so.6", "free"}).inclusive == k_free_inclusive);
  CHECK(callgrind_test_call(profile, {"prog", "main"}, allocate).inclusive == k_allocate_inclusive);
  CHECK(callgrind_test_call(profile, {"prog", "main"}, spin).count == 1);
  // every instruction is some function's own: the self costs sum to the summary
  const double self_sum = std::accumulate(profile.self.begin(), profile.self.end(), 0.0,
                                          [](double sum, const auto& entry) { return sum + entry.second; });
  CHECK(self_sum == k_total);
  CHECK(refbench::profile::allocation_sites(profile).at(allocate) == k_malloc_calls);
  // one path reaches main, so its frame in the call tree is all main ran
  const auto tree = refbench::profile::call_tree(profile, profile);
  const auto* main_frame = callgrind_test_frame(tree, "main (prog)");
  REQUIRE(main_frame != nullptr);
  CHECK(main_frame->baseline == k_main_inclusive);
  CHECK(tree.children.size() == 1); // ld.so's entry point calls everything else
}

TEST_CASE("profile::read_callgrind on hand-written files") {
  SUBCASE("name compression: (id) name once, (id) after, shared by fn= and cfn=") {
    const auto profile = callgrind_test_read(std::string(k_callgrind_test_header) +
                                             "ob=(1) /work/arm-a/bin/prog\n"
                                             "fl=(1) main.c\n"
                                             "fn=(1) main\n"
                                             "10 5\n"
                                             "cfl=(2) work.c\n"
                                             "cfn=(2) work(int, std::vector<int, std::allocator<int> >)\n"
                                             "calls=3 20\n"
                                             "+1 600\n"
                                             "fn=(2)\n"
                                             "fl=(2)\n"
                                             "20 300\n"
                                             "fl=(1)\n"
                                             "fn=(1)\n"
                                             "+2 95\n"
                                             "fn=(3) (below main)\n"
                                             "0 0\n"
                                             "totals: 1000\n");
    const FunctionKey main{"prog", "main"};
    const FunctionKey work{"prog", "work(int, std::vector<int, std::allocator<int> >)"};
    CHECK(profile.total == 1000);
    CHECK(profile.files == 1);
    CHECK(callgrind_test_self(profile, main) == 100);
    CHECK(callgrind_test_self(profile, work) == 300);
    CHECK(callgrind_test_self(profile, {"prog", "(below main)"}) == 0);
    CHECK(profile.self.size() == 3);
    CHECK(callgrind_test_call(profile, main, work).count == 3);
    CHECK(callgrind_test_call(profile, main, work).inclusive == 600);
    CHECK(profile.calls.size() == 1);
  }
  SUBCASE("uncompressed names, even one in parentheses") {
    const auto profile = callgrind_test_read(std::string(k_callgrind_test_header) +
                                             "ob=/lib/libc.so.6\nfn=(below main)\n0 7\nfn=  spaced name \n0 3\n");
    CHECK(callgrind_test_self(profile, {"libc.so.6", "(below main)"}) == 7);
    CHECK(callgrind_test_self(profile, {"libc.so.6", "spaced name "}) == 3);
  }
  SUBCASE("relative positions and the Ir among several events") {
    const auto profile = callgrind_test_read("positions: instr line\nevents: Dr Ir Dw\nsummary: 50 115 9\n"
                                             "fn=(1) f\n"
                                             "0x10 3 7 100 1\n"
                                             "+4 * 1 10\n"
                                             "-2 +1 0 5\n"
                                             "* -1 2\n");
    CHECK(callgrind_test_self(profile, {"???", "f"}) == 115);
    CHECK(profile.total == 115);
  }
  SUBCASE("fi= and fe= (inlined code) keep the cost in the function") {
    const auto profile = callgrind_test_read(std::string(k_callgrind_test_header) +
                                             "ob=(1) app\nfl=(1) a.c\nfn=(1) outer\n1 10\n"
                                             "fi=(2) inline.h\n5 20\nfe=(1)\n2 30\nfi=(2)\n6 1\n");
    CHECK(callgrind_test_self(profile, {"app", "outer"}) == 61);
    CHECK(profile.self.size() == 1);
  }
  SUBCASE("cob= names the callee's object for one call; without it the callee is in the current object") {
    const auto profile =
        callgrind_test_read(std::string(k_callgrind_test_header) +
                            "ob=(1) /a/app\nfn=(1) caller\n"
                            "cob=(2) /lib/x86_64-linux-gnu/libc.so.6\ncfn=(2) malloc\ncalls=2 0\n0 40\n"
                            "cfn=(3) helper\ncalls=1 0\n0 7\n"
                            "cob=(2)\ncfn=(2)\ncalls=5 0\n0 100\n"
                            "0 4\n");
    const FunctionKey caller{"app", "caller"};
    CHECK(callgrind_test_call(profile, caller, {"libc.so.6", "malloc"}).count == 7);
    CHECK(callgrind_test_call(profile, caller, {"libc.so.6", "malloc"}).inclusive == 140);
    CHECK(callgrind_test_call(profile, caller, {"app", "helper"}).inclusive == 7);
    CHECK(callgrind_test_self(profile, caller) == 4); // the call lines' costs are not its own
  }
  SUBCASE("files sum into one profile") {
    Profile profile;
    const std::string one = std::string(k_callgrind_test_header) + "fn=(1) f\n0 600\n";
    REQUIRE(read_callgrind(profile, one).has_value());
    REQUIRE(read_callgrind(profile, one).has_value());
    CHECK(profile.files == 2);
    CHECK(profile.total == 2000);
    CHECK(callgrind_test_self(profile, {"???", "f"}) == 1200);
  }
}

TEST_CASE("profile::read_callgrind refuses malformed files, naming the line") {
  const std::string header(k_callgrind_test_header); // 6 lines
  CHECK(callgrind_test_error(header + "fn=(1) f\nfn=(7)\n") == "line 8: fn=(7) refers to no name defined before");
  CHECK(callgrind_test_error(header + "fn=(1) f\ncfn=(2)\n") == "line 8: cfn=(2) refers to no name defined before");
  CHECK(callgrind_test_error(header + "fn=(1) f\n10 12x\n") == "line 8: '12x' is no count");
  CHECK(callgrind_test_error(header + "fn=(1) f\n10 -5\n") == "line 8: '-5' is no count");
  CHECK(callgrind_test_error(header + "fn=(1) f\n10 18446744073709551616\n") ==
        "line 8: '18446744073709551616' is no count");
  CHECK(callgrind_test_error(header + "fn=(1) f\n10 1 2\n") == "line 8: '10 1 2' has more counts than the 1 events");
  CHECK(callgrind_test_error(header + "fn=(1) f\n1x 1\n") == "line 8: '1x 1' does not start with 1 position(s)");
  CHECK(callgrind_test_error(header + "10 1\n") == "line 7: a cost line before any fn=");
  CHECK(callgrind_test_error(header + "fn=(1) f\ncfn=(2) g\ncalls=1 0\n") ==
        "at its end: the file ends after calls=, before its cost line");
  CHECK(callgrind_test_error(header + "fn=(1) f\ncfn=(2) g\ncalls=1 0\nfn=(1)\n0 5\n") ==
        "line 10: 'fn=(1)' after calls=, where its cost line belongs");
  CHECK(callgrind_test_error(header + "fn=(1) f\ncalls=1 0\n0 5\n") == "line 8: calls= with no cfn= before it");
  CHECK(callgrind_test_error(header + "fn=(1) f\ncfn=(2) g\ncalls=-1 0\n0 5\n") ==
        "line 9: calls=-1 0 is no count and position");
  CHECK(callgrind_test_error("positions: line\nsummary: 5\nfn=(1) f\n0 5\n") ==
        "line 4: a cost line before the \"events:\" header");
  CHECK(callgrind_test_error("version: 1\nsummary: 5\n") == "at its end: no \"events:\" header: no callgrind out file");
  CHECK(callgrind_test_error("events: Ir\nfn=(1) f\n0 5\n") ==
        "at its end: no \"summary:\" or \"totals:\" line: the file was cut short");
  CHECK(callgrind_test_error("events: Dr Dw\n") == "line 1: events: 'Dr Dw' has no Ir");
  CHECK(callgrind_test_error("summary: 1e9\n") == "line 1: summary: '1e9' is no count");
  CHECK(callgrind_test_error("events: Ir\nsome garbage\n") ==
        "line 2: 'some garbage' is no header, position or cost line");
  CHECK(callgrind_test_error(header + "fn=\n") == "line 7: fn= names nothing");
  CHECK(callgrind_test_error(header + "fn=(99999999999999999999) f\n") ==
        "line 7: fn= has an id past 2^64: '(99999999999999999999) f'");
  CHECK(callgrind_test_error(std::string("events: Ir\nfn=(1) \x1b[31m\n0 x\x1b\n")) == "line 3: 'x\\x1b' is no count");
}
