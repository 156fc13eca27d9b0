// The unit test binary. It doubles as a launcher (like refbench itself), so
// the real Launcher can be tested from here.
#define DOCTEST_CONFIG_IMPLEMENT
#include <doctest/doctest.h>

#include <refbench/process/launcher.hpp>

#include <iostream>
#include <string_view>

int main(int argc, char** argv) {
  if (argc == 2 && argv[1] == refbench::process::k_launcher_argument) {
    return refbench::process::launcher_main(refbench::process::k_launcher_fd);
  }
  // doctest reports to a stream of its own on stdout, so a test that
  // captures std::cout (pipeline_test_support.hpp) does not swallow a failure
  static std::ostream report(std::cout.rdbuf());
  doctest::Context context(argc, argv);
  context.setCout(&report);
  return context.run();
}
