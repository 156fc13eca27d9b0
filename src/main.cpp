#include <refbench/cli/app.hpp>
#include <refbench/process/launcher.hpp>

#include <string_view>

// refbench re-executes itself as its own launcher (process/launcher.hpp):
// that one command line is the launcher's, every other one the CLI's.
int main(int argc, char** argv) {
  if (argc == 2 && std::string_view(argv[1]) == refbench::process::k_launcher_argument) {
    return refbench::process::launcher_main(refbench::process::k_launcher_fd);
  }
  return refbench::cli::main(argc, argv);
}
