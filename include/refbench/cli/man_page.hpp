#pragma once
// The man page docs/refbench.1, made from the same CLI11 definition as
// --help (refbench-man prints it; tests/integration/docs_man_page.sh checks
// the checked-in copy against it).

#include <CLI/CLI.hpp>
#include <string>
#include <string_view>

namespace refbench::cli {

// The roff of `app`'s man page, for `man -l`: NAME, SYNOPSIS, DESCRIPTION,
// COMMON OPTIONS, COMMANDS (a subsection per subcommand, nested ones too),
// EXIT STATUS (util/error.hpp's k_exit_code_meanings), SEE ALSO. Dated by the
// version only, so the same `app` gives the same bytes.
std::string man_page(const CLI::App& app);

// `text` as roff: backslashes as \e, double quotes as \(dq, non-ASCII UTF-8
// as \[uXXXX], a dot or apostrophe starting a line behind \&, and every
// hyphen of a word that starts with one (--fail-on, -1) as \-.
std::string roff_text(std::string_view text);

} // namespace refbench::cli
