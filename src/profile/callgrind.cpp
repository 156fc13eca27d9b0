#include <refbench/profile/callgrind.hpp>

#include <refbench/util/strings.hpp>

#include <algorithm>
#include <cctype>
#include <charconv>
#include <cstdint>
#include <fmt/format.h>
#include <optional>
#include <vector>

namespace refbench::profile {
namespace {

// The most bytes of names the profile's keys take from one file: past it
// the file is no profile of one program but names repeated to fill memory.
constexpr std::size_t k_callgrind_max_key_bytes = std::size_t{256} << 20;

using CallgrindIds = std::map<std::uint64_t, std::string>;

// `text` shortened and made printable for an error message.
std::string callgrind_shown(std::string_view text) { return util::printable(util::utf8_prefix(text, 60)); }

std::unexpected<std::string> callgrind_error(std::string what) { return std::unexpected(std::move(what)); }

// A whole token as an unsigned 64-bit number, or nothing.
std::optional<std::uint64_t> callgrind_number(std::string_view token) {
  std::uint64_t value = 0;
  const auto [end, error] = std::from_chars(token.data(), token.data() + token.size(), value);
  if (token.empty() || error != std::errc{} || end != token.data() + token.size()) {
    return std::nullopt;
  }
  return value;
}

// Whether `token` is one or more digits of base 10 or, with `hex`, 16.
bool callgrind_digits(std::string_view token, bool hex) {
  return !token.empty() && std::ranges::all_of(token, [hex](char c) {
    const auto byte = static_cast<unsigned char>(c);
    return (hex ? std::isxdigit(byte) : std::isdigit(byte)) != 0;
  });
}

// Whether `token` is a position: a number (decimal or 0x hex), "+n"/"-n"
// relative to the one before, or "*" for the same.
bool callgrind_position(std::string_view token) {
  if (token == "*") {
    return true;
  }
  if (token.starts_with('+') || token.starts_with('-')) {
    token.remove_prefix(1);
  }
  if (token.starts_with("0x")) {
    return callgrind_digits(token.substr(2), true);
  }
  return callgrind_digits(token, false);
}

// The blank-separated tokens of `text`.
std::vector<std::string_view> callgrind_tokens(std::string_view text) {
  std::vector<std::string_view> tokens;
  std::size_t begin = 0;
  while ((begin = text.find_first_not_of(" \t", begin)) != std::string_view::npos) {
    const auto end = std::min(text.find_first_of(" \t", begin), text.size());
    tokens.push_back(text.substr(begin, end - begin));
    begin = end;
  }
  return tokens;
}

// Numbers after a header's key ("summary: 120 4"), each checked.
std::expected<std::vector<std::uint64_t>, std::string> callgrind_counts(std::string_view key, std::string_view value) {
  std::vector<std::uint64_t> counts;
  for (const auto token : callgrind_tokens(value)) {
    const auto count = callgrind_number(token);
    if (!count) {
      return callgrind_error(fmt::format("{}: '{}' is no count", key, callgrind_shown(token)));
    }
    counts.push_back(*count);
  }
  return counts;
}

// The file name of an object's path: the arms' trees differ in directories.
std::string callgrind_object_file(std::string_view path) {
  const auto slash = path.rfind('/');
  if (slash == std::string_view::npos || slash + 1 == path.size()) {
    return std::string(path);
  }
  return std::string(path.substr(slash + 1));
}

} // namespace

struct CallgrindReader::State {
  CallgrindIds objects, files, functions;   // the compressed names, per kind
  std::string object = "???";               // the current ob='s file name
  std::optional<std::string> function;      // the current fn=
  std::optional<std::string> call_object;   // cob= of the next call
  std::optional<std::string> call_function; // cfn= of the next call
  std::optional<std::uint64_t> call_count;  // calls= waiting for its cost line
  std::size_t positions = 1;                // "positions: line" unless told
  std::optional<std::size_t> events;        // how many, once "events:" named them
  std::size_t ir = 0;                       // where Ir is among them
  std::optional<std::vector<std::uint64_t>> summary, totals;
  std::size_t key_bytes = 0;

  std::expected<std::string, std::string> name(CallgrindIds& ids, std::string_view key, std::string_view value);
  std::expected<void, std::string> header(std::string_view key, std::string_view value);
  std::expected<void, std::string> specification(std::string_view key, std::string_view value);
  std::expected<std::uint64_t, std::string> cost(std::string_view text) const;
  std::expected<void, std::string> add(Profile& profile, std::uint64_t ir);
  std::expected<void, std::string> room(const Profile& profile, std::size_t bytes);
};

// A name given as "(id) name" (defining the id), "(id)" (one defined
// before) or plain "name" (which may start with a parenthesis too).
std::expected<std::string, std::string> CallgrindReader::State::name(CallgrindIds& ids, std::string_view key,
                                                                     std::string_view value) {
  value = util::trim_left(value, " \t");
  if (!value.starts_with('(')) {
    if (value.empty()) {
      return callgrind_error(fmt::format("{}= names nothing", key));
    }
    return std::string(value);
  }
  const auto close = value.find(')');
  if (close == std::string_view::npos || !callgrind_digits(value.substr(1, close - 1), false)) {
    return std::string(value); // uncompressed, as "(below main)"
  }
  const auto id = callgrind_number(value.substr(1, close - 1));
  if (!id) {
    return callgrind_error(fmt::format("{}= has an id past 2^64: '{}'", key, callgrind_shown(value)));
  }
  const auto given = util::trim_left(value.substr(close + 1), " \t");
  if (given.empty()) {
    const auto found = ids.find(*id);
    if (found == ids.end()) {
      return callgrind_error(fmt::format("{}=({}) refers to no name defined before", key, *id));
    }
    return found->second;
  }
  if (ids.size() >= k_max_profile_entries && !ids.contains(*id)) {
    return callgrind_error(fmt::format("more than {} names", k_max_profile_entries));
  }
  ids[*id] = std::string(given);
  return std::string(given);
}

// A "key: value" line: positions, events, summary and totals matter; the
// rest (version, creator, cmd, desc, …) does not.
std::expected<void, std::string> CallgrindReader::State::header(std::string_view key, std::string_view value) {
  value = util::trim(value, " \t");
  if (key == "positions") {
    const auto names = callgrind_tokens(value);
    if (names.empty() || names.size() > 2 ||
        !std::ranges::all_of(names, [](std::string_view n) { return n == "instr" || n == "line"; })) {
      return callgrind_error(fmt::format("positions: '{}' is not \"line\", \"instr\" or both", callgrind_shown(value)));
    }
    positions = names.size();
  } else if (key == "events") {
    const auto names = callgrind_tokens(value);
    const auto found = std::ranges::find(names, "Ir");
    if (found == names.end()) {
      return callgrind_error(fmt::format("events: '{}' has no Ir", callgrind_shown(value)));
    }
    events = names.size();
    ir = static_cast<std::size_t>(found - names.begin());
  } else if (key == "summary" || key == "totals") {
    auto counts = callgrind_counts(key, value);
    if (!counts) {
      return std::unexpected(counts.error());
    }
    auto& kept = key == "summary" ? summary : totals;
    if (!kept) {
      kept = std::move(*counts);
    }
  }
  return {};
}

// A "key=value" line: the current object, file and function, the target
// of the next call, or the call itself; jumps and lines of keys callgrind
// 3.19 does not write are left alone.
std::expected<void, std::string> CallgrindReader::State::specification(std::string_view key, std::string_view value) {
  std::expected<std::string, std::string> named;
  if (key == "ob" || key == "cob") {
    named = name(objects, key, value);
    if (named) {
      (key == "ob" ? object : call_object.emplace()) = callgrind_object_file(*named);
    }
  } else if (key == "fl" || key == "fi" || key == "fe" || key == "cfi" || key == "cfl") {
    named = name(files, key, value); // inlined code's cost stays the function's
  } else if (key == "fn" || key == "cfn") {
    named = name(functions, key, value);
    if (named) {
      (key == "fn" ? function : call_function) = std::move(*named);
    }
  } else if (key == "calls") {
    const auto tokens = callgrind_tokens(value);
    const auto count = tokens.empty() ? std::nullopt : callgrind_number(tokens[0]);
    if (!count || !std::all_of(tokens.begin() + 1, tokens.end(), callgrind_position)) {
      return callgrind_error(fmt::format("calls={} is no count and position", callgrind_shown(value)));
    }
    if (!call_function) {
      return callgrind_error("calls= with no cfn= before it");
    }
    call_count = count;
  }
  if (!named) {
    return std::unexpected(named.error());
  }
  return {};
}

// The Ir of a cost line: its positions, then its counts in the order of
// "events:" (those left off are 0).
std::expected<std::uint64_t, std::string> CallgrindReader::State::cost(std::string_view text) const {
  if (!events) {
    return callgrind_error("a cost line before the \"events:\" header");
  }
  const auto tokens = callgrind_tokens(text);
  if (tokens.size() < positions || !std::all_of(tokens.begin(), tokens.begin() + positions, callgrind_position)) {
    return callgrind_error(fmt::format("'{}' does not start with {} position(s)", callgrind_shown(text), positions));
  }
  if (tokens.size() - positions > *events) {
    return callgrind_error(fmt::format("'{}' has more counts than the {} events", callgrind_shown(text), *events));
  }
  std::uint64_t ir_count = 0;
  for (std::size_t i = positions; i < tokens.size(); ++i) {
    const auto count = callgrind_number(tokens[i]);
    if (!count) {
      return callgrind_error(fmt::format("'{}' is no count", callgrind_shown(tokens[i])));
    }
    if (i - positions == ir) {
      ir_count = *count;
    }
  }
  return ir_count;
}

// Whether one more entry of `bytes` of names fits the profile.
std::expected<void, std::string> CallgrindReader::State::room(const Profile& profile, std::size_t bytes) {
  key_bytes += bytes;
  if (profile.self.size() + profile.calls.size() >= k_max_profile_entries || key_bytes > k_callgrind_max_key_bytes) {
    return callgrind_error(
        fmt::format("more than {} functions and calls, or {} MiB of their names: no profile of one program",
                    k_max_profile_entries, k_callgrind_max_key_bytes >> 20));
  }
  return {};
}

// A cost line's Ir: the current function's own, or the inclusive cost of
// the call waiting for it.
std::expected<void, std::string> CallgrindReader::State::add(Profile& profile, std::uint64_t ir_count) {
  if (!function) {
    return callgrind_error("a cost line before any fn=");
  }
  FunctionKey caller{object, *function};
  if (!call_count) {
    auto found = profile.self.find(caller);
    if (found == profile.self.end()) {
      if (auto fits = room(profile, caller.object.size() + caller.function.size()); !fits) {
        return fits;
      }
      found = profile.self.emplace(std::move(caller), 0.0).first;
    }
    found->second += static_cast<double>(ir_count);
    return {};
  }
  std::pair edge{std::move(caller), FunctionKey{call_object.value_or(object), *call_function}};
  auto found = profile.calls.find(edge);
  if (found == profile.calls.end()) {
    const auto bytes =
        edge.first.object.size() + edge.first.function.size() + edge.second.object.size() + edge.second.function.size();
    if (auto fits = room(profile, bytes); !fits) {
      return fits;
    }
    found = profile.calls.emplace(std::move(edge), Call{}).first;
  }
  found->second.count += static_cast<double>(*call_count);
  found->second.inclusive += static_cast<double>(ir_count);
  call_count.reset();
  call_object.reset();
  call_function.reset();
  return {};
}

CallgrindReader::CallgrindReader(Profile& profile) : m_profile(profile), m_state(std::make_shared<State>()) {}

std::expected<void, std::string> CallgrindReader::line(std::string_view text) {
  if (text.ends_with('\r')) {
    text.remove_suffix(1);
  }
  State& state = *m_state;
  const bool cost_line = !text.empty() && (std::isdigit(static_cast<unsigned char>(text[0])) != 0 || text[0] == '+' ||
                                           text[0] == '-' || text[0] == '*');
  if (state.call_count && !cost_line) {
    return callgrind_error(fmt::format("'{}' after calls=, where its cost line belongs", callgrind_shown(text)));
  }
  if (cost_line) {
    const auto ir_count = state.cost(text);
    if (!ir_count) {
      return std::unexpected(ir_count.error());
    }
    return state.add(m_profile, *ir_count);
  }
  if (util::trim(text, " \t").empty() || text.starts_with('#')) {
    return {};
  }
  const auto key_end =
      std::min(text.find_first_not_of("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ_"), text.size());
  const auto key = text.substr(0, key_end);
  if (key.empty() || key_end == text.size() || (text[key_end] != '=' && text[key_end] != ':')) {
    return callgrind_error(fmt::format("'{}' is no header, position or cost line", callgrind_shown(text)));
  }
  const auto value = text.substr(key_end + 1);
  return text[key_end] == ':' ? state.header(key, value) : state.specification(key, value);
}

std::expected<void, std::string> CallgrindReader::finish() {
  const State& state = *m_state;
  if (!state.events) {
    return callgrind_error("no \"events:\" header: no callgrind out file");
  }
  if (state.call_count) {
    return callgrind_error("the file ends after calls=, before its cost line");
  }
  const auto& summary = state.summary ? state.summary : state.totals;
  if (!summary) {
    return callgrind_error("no \"summary:\" or \"totals:\" line: the file was cut short");
  }
  m_profile.total += state.ir < summary->size() ? static_cast<double>((*summary)[state.ir]) : 0.0;
  ++m_profile.files;
  return {};
}

std::expected<void, std::string> read_callgrind(Profile& profile, std::string_view text) {
  text = util::without_bom(text);
  CallgrindReader reader(profile);
  std::size_t number = 0;
  std::size_t begin = 0;
  while (begin < text.size()) {
    const auto end = std::min(text.find('\n', begin), text.size());
    ++number;
    if (auto read = reader.line(text.substr(begin, end - begin)); !read) {
      return std::unexpected(fmt::format("line {}: {}", number, read.error()));
    }
    begin = end + 1;
  }
  if (auto finished = reader.finish(); !finished) {
    return std::unexpected(fmt::format("at its end: {}", finished.error()));
  }
  return {};
}

} // namespace refbench::profile
