#include <refbench/cli/app.hpp>

int main(int argc, char** argv) { return refbench::cli::main(argc, argv); }
