#pragma once
// The command line: subcommands, flags and the one catch that turns typed
// errors into the exit codes of README: Exit codes.

namespace refbench::cli {

// refbench's command line: argument parsing, dispatch, errors (main.cpp
// hands the launcher's own command line to process::launcher_main first).
int main(int argc, char** argv);

} // namespace refbench::cli
