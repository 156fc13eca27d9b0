#pragma once
// The command line: subcommands, flags and the one catch that turns typed
// errors into the exit codes of README: Exit codes.

namespace refbench::cli {

// refbench's whole main: launcher mode, argument parsing, dispatch, errors.
int main(int argc, char** argv);

} // namespace refbench::cli
