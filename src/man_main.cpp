#include <refbench/cli/app.hpp>
#include <refbench/cli/man_page.hpp>

#include <iostream>

// refbench-man: prints refbench's man page, made from the command line's
// definition (cmake --build build --target man-page writes docs/refbench.1).
int main() {
  const refbench::cli::CommandLine command_line;
  std::cout << refbench::cli::man_page(command_line.app);
  return std::cout.flush() ? 0 : 1;
}
