#include <refbench/cli/man_page.hpp>
#include <refbench/util/error.hpp>
#include <refbench/version.hpp>

#include <algorithm>
#include <cstdint>
#include <fmt/format.h>
#include <vector>

namespace refbench::cli {
namespace {

bool ascii_alnum(char c) { return (c >= '0' && c <= '9') || (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z'); }

// The code point of the UTF-8 sequence at `text[at]` and its length in
// bytes; U+FFFD and 1 for a byte that starts no whole sequence.
std::pair<std::uint32_t, std::size_t> decode_utf8(std::string_view text, std::size_t at) {
  const auto lead = static_cast<unsigned char>(text[at]);
  const std::size_t length = lead >= 0xF0 && lead < 0xF8 ? 4 : lead >= 0xE0 ? 3 : lead >= 0xC0 ? 2 : 0;
  if (length == 0 || at + length > text.size()) {
    return {0xFFFD, 1};
  }
  std::uint32_t code = lead & (0x7Fu >> length);
  for (std::size_t i = 1; i < length; ++i) {
    const auto next = static_cast<unsigned char>(text[at + i]);
    if ((next & 0xC0) != 0x80) {
      return {0xFFFD, 1};
    }
    code = (code << 6) | (next & 0x3Fu);
  }
  return {code, length};
}

std::string bold(std::string_view text) { return "\\fB" + roff_text(text) + "\\fR"; }
std::string italic(std::string_view text) { return "\\fI" + roff_text(text) + "\\fR"; }

// Whether `command` is listed: named, enabled and in a group (CLI11 hides the rest).
bool listed(const CLI::App* command) {
  return !command->get_name().empty() && !command->get_disabled() && !command->get_group().empty();
}

std::vector<const CLI::App*> listed_subcommands(const CLI::App& app) { return app.get_subcommands(listed); }

// `app`'s options in the order --help lists them (positionals first), without
// hidden ones and, with `without_help`, without its -h/--help.
std::vector<const CLI::Option*> listed_options(const CLI::App& app, bool without_help) {
  auto shown = [&app, without_help](const CLI::Option* option) {
    return !option->get_group().empty() && !(without_help && option == app.get_help_ptr());
  };
  std::vector<const CLI::Option*> options =
      app.get_options([&](const CLI::Option* o) { return shown(o) && o->get_positional(); });
  for (const CLI::Option* option :
       app.get_options([&](const CLI::Option* o) { return shown(o) && o->nonpositional(); })) {
    options.push_back(option);
  }
  return options;
}

bool repeatable(const CLI::Option& option) {
  return option.get_expected_max() >= CLI::detail::expected_max_vector_size;
}

// A positional as the synopsis shows it: `files...`, `[dir]` when optional.
std::string positional_usage(const CLI::Option& option) {
  std::string usage = italic(option.get_name(true, false)) + (repeatable(option) ? "..." : "");
  return option.get_required() ? usage : "[" + usage + "]";
}

// The .TP tag of `option`: its names in bold and the value it takes in
// italics (`\fB\-c\fR, \fB\-\-config\fR \fITEXT\fR`), or a positional's name.
std::string option_tag(const CLI::Option& option) {
  if (option.get_positional()) {
    return italic(option.get_name(true, false)) + (repeatable(option) ? "..." : "");
  }
  std::string tag;
  for (const std::string& name : option.get_snames()) {
    tag += (tag.empty() ? "" : ", ") + bold("-" + name);
  }
  for (const std::string& name : option.get_lnames()) {
    tag += (tag.empty() ? "" : ", ") + bold("--" + name);
  }
  if (option.get_type_size() != 0 && !option.get_type_name().empty()) {
    tag += " " + italic(option.get_type_name()) + (repeatable(option) ? " ..." : "");
  }
  return tag;
}

// What --help says of `option` after its description: its default, whether
// it is required, which options it excludes (sorted: CLI11 keeps them by address).
std::string option_notes(const CLI::Option& option) {
  std::string notes;
  if (option.get_type_size() != 0 && !option.get_default_str().empty()) {
    notes += " [default: " + option.get_default_str() + "]";
  }
  if (option.get_required()) {
    notes += " [required]";
  }
  std::vector<std::string> excluded;
  for (const CLI::Option* other : option.get_excludes()) {
    excluded.push_back(other->get_name());
  }
  std::ranges::sort(excluded);
  if (!excluded.empty()) {
    notes += " [excludes: " + fmt::format("{}", fmt::join(excluded, ", ")) + "]";
  }
  return notes;
}

std::string options_list(const std::vector<const CLI::Option*>& options) {
  std::string out;
  for (const CLI::Option* option : options) {
    out += ".TP\n" + option_tag(*option) + "\n" + roff_text(option->get_description() + option_notes(*option)) + "\n";
  }
  return out;
}

// The synopsis line of `command`, called `path`, and of its subcommands.
std::string synopsis_lines(const CLI::App& command, const std::string& path) {
  std::string line = bold(path);
  if (!listed_options(command, false).empty()) {
    line += " [" + italic("options") + "]";
  }
  for (const CLI::Option* positional : command.get_options([](const CLI::Option* o) { return o->get_positional(); })) {
    line += " " + positional_usage(*positional);
  }
  std::string out = line + (listed_subcommands(command).empty() ? "" : " " + italic("command") + " ...") + "\n";
  for (const CLI::App* subcommand : listed_subcommands(command)) {
    out += synopsis_lines(*subcommand, path + " " + subcommand->get_name());
  }
  return out;
}

// The subsection of `command`, called `path`, then one per subcommand of it.
std::string command_section(const CLI::App& command, const std::string& path) {
  std::string out = ".SS \"" + roff_text(path) + "\"\n" + roff_text(command.get_description()) + "\n" +
                    options_list(listed_options(command, true));
  for (const CLI::App* subcommand : listed_subcommands(command)) {
    out += command_section(*subcommand, path + " " + subcommand->get_name());
  }
  return out;
}

std::string header(const CLI::App& app) {
  const std::string name = app.get_name();
  std::string summary = app.get_description();
  if (summary.starts_with(name + ": ")) {
    summary.erase(0, name.size() + 2);
  }
  std::string upper = name;
  std::ranges::transform(upper, upper.begin(), [](char c) { return c >= 'a' && c <= 'z' ? char(c - 'a' + 'A') : c; });
  return ".\\\" Made by refbench-man from the command line's definition (src/cli/); do not edit.\n"
         ".\\\" Regenerate it with: cmake --build build --target man-page\n" +
         fmt::format(".TH {} 1 \"\" \"{} {}\" \"User Commands\"\n", roff_text(upper), roff_text(name),
                     roff_text(k_version)) +
         ".SH NAME\n" + roff_text(name) + " \\- " + roff_text(summary) + "\n";
}

std::string synopsis_and_description(const CLI::App& app) {
  std::string out = ".SH SYNOPSIS\n.nf\n";
  for (const CLI::Option* flag : {app.get_help_ptr(), app.get_version_ptr()}) {
    if (flag != nullptr) {
      out += bold(app.get_name()) + " " + bold(flag->get_name()) + "\n";
    }
  }
  out += synopsis_lines(app, app.get_name()) + ".fi\n";
  out += ".SH DESCRIPTION\n" + roff_text(app.get_description()) + "\n.PP\nThe commands:\n";
  for (const CLI::App* command : listed_subcommands(app)) {
    out += ".TP\n" + bold(command->get_name()) + "\n" + roff_text(command->get_description()) + "\n";
  }
  return out;
}

std::string exit_status() {
  std::string out = ".SH EXIT STATUS\n";
  for (const auto& [code, meaning] : k_exit_code_meanings) {
    out += fmt::format(".TP\n.B {}\n{}\n", static_cast<int>(code), roff_text(meaning));
  }
  return out;
}

} // namespace

std::string roff_text(std::string_view text) {
  std::string out;
  bool line_start = true;
  bool option_word = false; // in a word that started with '-'
  for (std::size_t i = 0; i < text.size(); ++i) {
    const char c = text[i];
    if (line_start && (c == '.' || c == '\'')) {
      out += "\\&";
    }
    line_start = c == '\n';
    option_word = c == '-' ? option_word || i == 0 || (!ascii_alnum(text[i - 1]) && text[i - 1] != '-')
                           : option_word && c != ' ' && c != '\t' && c != '\n';
    if (c == '\\') {
      out += "\\e";
    } else if (c == '"') {
      out += "\\(dq";
    } else if (c == '-' && option_word) {
      out += "\\-";
    } else if (static_cast<unsigned char>(c) >= 0x80) {
      const auto [code, length] = decode_utf8(text, i);
      out += fmt::format("\\[u{:04X}]", code);
      i += length - 1;
    } else {
      out += c;
    }
  }
  return out;
}

std::string man_page(const CLI::App& app) {
  std::string out = header(app) + synopsis_and_description(app);
  out += ".SH COMMON OPTIONS\n";
  out += app.get_fallthrough() ? "These options apply to every command, before or after its name.\n"
                               : "These options come before the command's name.\n";
  out += options_list(listed_options(app, false));
  out += ".SH COMMANDS\n";
  for (const CLI::App* command : listed_subcommands(app)) {
    out += command_section(*command, app.get_name() + " " + command->get_name());
  }
  out += exit_status();
  out += std::string(".SH SEE ALSO\n") +
         "The manual, one page per topic (the commands and their flags in prose, refbench.toml, " +
         "suites, counters, statistics, GitHub Actions, the security model): " + italic("docs/manual/index.md") +
         " in refbench's source; " + italic("README.md") + " for a first run.\n";
  return out;
}

} // namespace refbench::cli
