#include <refbench/github/url.hpp>
#include <refbench/util/strings.hpp>

#include <algorithm>
#include <cctype>
#include <charconv>
#include <fmt/format.h>
#include <string_view>

namespace refbench::github {
namespace {

// A URI reference split as RFC 3986 Appendix B does; a part can be defined
// and empty (`https://h/x?` has an empty query).
struct Reference {
  bool has_scheme = false;
  bool has_authority = false;
  bool has_query = false;
  bool has_fragment = false;
  std::string scheme;
  std::string authority;
  std::string path;
  std::string query;
  std::string fragment;
};

bool is_hex(char c) { return std::isxdigit(static_cast<unsigned char>(c)) != 0; }

bool is_unreserved(char c) {
  return std::isalnum(static_cast<unsigned char>(c)) != 0 || std::string_view("-._~").find(c) != std::string_view::npos;
}

bool is_sub_delim(char c) { return std::string_view("!$&'()*+,;=").find(c) != std::string_view::npos; }

// Only the characters RFC 3986 allows in a URI, and `%` before two hex digits.
std::expected<void, std::string> check_characters(std::string_view text) {
  for (std::size_t i = 0; i < text.size(); ++i) {
    const char c = text[i];
    if (c == '%') {
      if (i + 2 >= text.size() || !is_hex(text[i + 1]) || !is_hex(text[i + 2])) {
        return std::unexpected("a '%' that does not start a %XX escape");
      }
      i += 2;
    } else if (!is_unreserved(c) && !is_sub_delim(c) && std::string_view(":/?#[]@").find(c) == std::string_view::npos) {
      return std::unexpected(fmt::format("the character 0x{:02x}, which a URL may not hold",
                                         static_cast<unsigned>(static_cast<unsigned char>(c))));
    }
  }
  return {};
}

bool valid_scheme(std::string_view scheme) {
  return !scheme.empty() && std::isalpha(static_cast<unsigned char>(scheme.front())) != 0 &&
         std::ranges::all_of(scheme, [](char c) {
           return std::isalnum(static_cast<unsigned char>(c)) != 0 || c == '+' || c == '-' || c == '.';
         });
}

std::expected<Reference, std::string> parse_reference(std::string_view text) {
  if (auto ok = check_characters(text); !ok) {
    return std::unexpected(ok.error());
  }
  Reference ref;
  if (const auto colon = text.find_first_of(":/?#"); colon != std::string_view::npos && text[colon] == ':') {
    if (!valid_scheme(text.substr(0, colon))) {
      return std::unexpected(fmt::format("'{}' is not a scheme", text.substr(0, colon)));
    }
    ref.has_scheme = true;
    ref.scheme = std::string(text.substr(0, colon));
    text.remove_prefix(colon + 1);
  }
  if (text.starts_with("//")) {
    const auto end = text.find_first_of("/?#", 2);
    ref.has_authority = true;
    ref.authority = std::string(text.substr(2, end == std::string_view::npos ? end : end - 2));
    text.remove_prefix(end == std::string_view::npos ? text.size() : end);
  }
  const auto path_end = text.find_first_of("?#");
  ref.path = std::string(text.substr(0, path_end));
  text.remove_prefix(path_end == std::string_view::npos ? text.size() : path_end);
  if (text.starts_with('?')) {
    const auto end = text.find('#');
    ref.has_query = true;
    ref.query = std::string(text.substr(1, end == std::string_view::npos ? end : end - 1));
    text.remove_prefix(end == std::string_view::npos ? text.size() : end);
  }
  if (text.starts_with('#')) {
    ref.has_fragment = true;
    ref.fragment = std::string(text.substr(1));
  }
  return ref;
}

// Drops the last segment of `out` and the `/` before it (RFC 3986 §5.2.4 2C).
void drop_last_segment(std::string& out) {
  const auto slash = out.rfind('/');
  out.erase(slash == std::string::npos ? 0 : slash);
}

// RFC 3986 §5.2.4.
std::string remove_dot_segments(std::string in) {
  std::string out;
  while (!in.empty()) {
    if (in.starts_with("../")) {
      in.erase(0, 3);
    } else if (in.starts_with("./")) {
      in.erase(0, 2);
    } else if (in.starts_with("/./")) {
      in.replace(0, 3, "/");
    } else if (in == "/.") {
      in = "/";
    } else if (in.starts_with("/../")) {
      in.replace(0, 4, "/");
      drop_last_segment(out);
    } else if (in == "/..") {
      in = "/";
      drop_last_segment(out);
    } else if (in == "." || in == "..") {
      in.clear();
    } else {
      const auto next = in.find('/', in.front() == '/' ? 1 : 0);
      out += in.substr(0, next);
      in.erase(0, next == std::string::npos ? in.size() : next);
    }
  }
  return out;
}

// RFC 3986 §5.2.3.
std::string merge(const Reference& base, const std::string& path) {
  if (base.has_authority && base.path.empty()) {
    return "/" + path;
  }
  const auto slash = base.path.rfind('/');
  return (slash == std::string::npos ? std::string() : base.path.substr(0, slash + 1)) + path;
}

// RFC 3986 §5.2.2 (strict: a reference with a scheme is absolute).
Reference resolve(const Reference& base, const Reference& ref) {
  Reference target;
  if (ref.has_scheme) {
    target = ref;
    target.path = remove_dot_segments(ref.path);
    return target;
  }
  if (ref.has_authority) {
    target = ref;
    target.path = remove_dot_segments(ref.path);
  } else {
    if (ref.path.empty()) {
      target.path = base.path;
      target.has_query = ref.has_query || base.has_query;
      target.query = ref.has_query ? ref.query : base.query;
    } else {
      target.path = remove_dot_segments(ref.path.starts_with('/') ? ref.path : merge(base, ref.path));
      target.has_query = ref.has_query;
      target.query = ref.query;
    }
    target.has_authority = base.has_authority;
    target.authority = base.authority;
  }
  target.has_scheme = base.has_scheme;
  target.scheme = base.scheme;
  target.has_fragment = ref.has_fragment;
  target.fragment = ref.fragment;
  return target;
}

// RFC 3986 §5.3.
std::string recompose(const Reference& ref) {
  std::string text;
  if (ref.has_scheme) {
    text += ref.scheme + ":";
  }
  if (ref.has_authority) {
    text += "//" + ref.authority;
  }
  text += ref.path;
  if (ref.has_query) {
    text += "?" + ref.query;
  }
  if (ref.has_fragment) {
    text += "#" + ref.fragment;
  }
  return text;
}

// `host` and `port` of `url` from the authority's host[:port] part.
std::expected<void, std::string> parse_host_port(std::string_view hostport, Url& url) {
  std::string_view port;
  if (hostport.starts_with('[')) {
    const auto close = hostport.find(']');
    if (close == std::string_view::npos || close == 1) {
      return std::unexpected("a malformed IPv6 host");
    }
    const auto inside = hostport.substr(1, close - 1);
    if (!std::ranges::all_of(inside, [](char c) { return is_hex(c) || c == ':' || c == '.'; })) {
      return std::unexpected("a malformed IPv6 host");
    }
    url.host = util::ascii_lower(std::string(hostport.substr(0, close + 1)));
    hostport.remove_prefix(close + 1);
    if (!hostport.empty() && !hostport.starts_with(':')) {
      return std::unexpected("text after the IPv6 host");
    }
    port = hostport.empty() ? hostport : hostport.substr(1);
  } else {
    const auto colon = hostport.find(':');
    url.host = util::ascii_lower(std::string(hostport.substr(0, colon)));
    port = colon == std::string_view::npos ? std::string_view() : hostport.substr(colon + 1);
    if (url.host.empty()) {
      return std::unexpected("no host");
    }
    if (!std::ranges::all_of(url.host, [](char c) { return is_unreserved(c) || is_sub_delim(c); })) {
      return std::unexpected(fmt::format("the host '{}' holds a character a host name may not", url.host));
    }
  }
  url.port = url.scheme == "https" ? 443 : 80;
  if (!port.empty()) {
    int value = 0;
    auto [end, ec] = std::from_chars(port.data(), port.data() + port.size(), value);
    if (ec != std::errc() || end != port.data() + port.size() || value < 1 || value > 65535 || port.size() > 5) {
      return std::unexpected(fmt::format("the port '{}' is not a number from 1 to 65535", port));
    }
    url.port = value;
  }
  return {};
}

} // namespace

std::expected<Url, std::string> parse_url(const std::string& text) {
  auto ref = parse_reference(text);
  if (!ref) {
    return std::unexpected(ref.error());
  }
  if (!ref->has_scheme) {
    return std::unexpected("a relative reference, not an absolute URL");
  }
  Url url;
  url.scheme = util::ascii_lower(ref->scheme);
  if (url.scheme != "http" && url.scheme != "https") {
    return std::unexpected(fmt::format("the scheme '{}' is not http or https", ref->scheme));
  }
  if (!ref->has_authority) {
    return std::unexpected("no host");
  }
  std::string_view authority = ref->authority;
  if (const auto at = authority.find('@'); at != std::string_view::npos) {
    url.has_userinfo = true;
    url.userinfo = std::string(authority.substr(0, at));
    authority.remove_prefix(at + 1);
  }
  if (auto ok = parse_host_port(authority, url); !ok) {
    return std::unexpected(ok.error());
  }
  url.path_and_query = ref->path + (ref->has_query ? "?" + ref->query : std::string());
  return url;
}

std::expected<std::string, std::string> resolve_reference(const std::string& base, const std::string& reference) {
  auto parsed_base = parse_reference(base);
  if (!parsed_base || !parsed_base->has_scheme) {
    return std::unexpected(fmt::format("the base '{}' is not an absolute URL", printable_url(base)));
  }
  auto parsed = parse_reference(reference);
  if (!parsed) {
    return std::unexpected(parsed.error());
  }
  return recompose(resolve(*parsed_base, *parsed));
}

bool same_origin(const Url& a, const Url& b) {
  return !a.has_userinfo && !b.has_userinfo && a.scheme == b.scheme && a.host == b.host && a.port == b.port;
}

bool is_loopback(const std::string& host) {
  if (host == "localhost" || host == "[::1]") {
    return true;
  }
  int parts = 0;
  int first = -1;
  std::string_view rest = host;
  while (true) {
    const auto dot = rest.find('.');
    const auto part = rest.substr(0, dot);
    int value = 0;
    auto [end, ec] = std::from_chars(part.data(), part.data() + part.size(), value);
    if (part.empty() || part.size() > 3 || ec != std::errc() || end != part.data() + part.size() || value > 255) {
      return false;
    }
    first = parts == 0 ? value : first;
    ++parts;
    if (dot == std::string_view::npos) {
      break;
    }
    rest.remove_prefix(dot + 1);
  }
  return parts == 4 && first == 127;
}

std::string printable_url(const std::string& url) {
  constexpr std::size_t k_most = 200;
  std::string out;
  for (unsigned char c : url) {
    if (out.size() >= k_most) {
      return out + "...";
    }
    out += c > 0x20 && c < 0x7f ? std::string(1, static_cast<char>(c)) : fmt::format("%{:02X}", c);
  }
  return out;
}

} // namespace refbench::github
