#pragma once
// Text that came from outside — cell, benchmark, measure, unit and counter
// names, commit subjects, API messages — in each kind of output refbench
// writes. Every renderer puts such text through the one function for its
// output, which keeps it text there: it cannot end a table cell or start a
// heading, an HTML comment or tag, a workflow command or a live @mention.
// (A terminal line is util::printable's, and stdout's lines are
// util::without_workflow_commands', both in strings.hpp.)

#include <string>
#include <string_view>

namespace refbench::util {

// `text` as Markdown prose or a GFM table cell, on one line, that renders as
// the same characters: line breaks become spaces, control characters
// visible (`\x1b`); '|', '`', '\\', '*', '[', ']', '~' and an '_' that is
// not inside a word are escaped, and '#' everywhere; '&', '<', '>' are
// entities; a leading "- ", "+ ", "--", '=', "::" or "1." cannot start a
// block or a workflow command line; '@' is followed by a zero-width space,
// so GitHub mentions no one.
std::string markdown_text(std::string_view text);

// `text` as a CommonMark code span that reads back verbatim (line breaks
// as spaces): delimited by a backtick run longer than any inside, padded
// with a space where needed. For prose: a GFM table splits a cell at a '|'
// even inside a code span, so cells take markdown_text.
std::string markdown_code(std::string_view text);

// `text` (a command's output, a script) as a fenced code block with info
// string `info`, fenced by more backticks than any run inside it, control
// characters but LF and TAB shown; ends in '\n'.
std::string markdown_code_block(std::string_view text, std::string_view info = "");

// `text` as HTML or SVG text or a quoted attribute value: & < > " '
// escaped, control characters (line breaks included) shown as `\n`, `\xNN`.
std::string html_text(std::string_view text);

// `text` as the message of a GitHub Actions workflow command (after the
// second "::"): % CR LF escaped, other control characters shown as `\xNN`.
std::string workflow_data(std::string_view text);

// `text` as a property value of a workflow command ("title=…"): also ':'
// and ','.
std::string workflow_property(std::string_view text);

} // namespace refbench::util
