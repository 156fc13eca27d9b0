// The unit test binary. It doubles as a launcher (like refbench itself), so
// the real Launcher can be tested from here.
#define DOCTEST_CONFIG_IMPLEMENT
#include <doctest/doctest.h>

#include <refbench/process/launcher.hpp>

#include <string_view>

int main(int argc, char** argv) {
  if (argc == 2 && argv[1] == refbench::process::k_launcher_argument) {
    return refbench::process::launcher_main(refbench::process::k_launcher_fd);
  }
  doctest::Context context(argc, argv);
  return context.run();
}
