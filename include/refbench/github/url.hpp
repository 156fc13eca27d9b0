#pragma once
// URLs as RFC 3986 reads them: parsing, resolving a reference (a Link
// header's target, relative or absolute) against the URL it came from, and
// the origin (scheme, host, port) the API token is pinned to.

#include <expected>
#include <string>

namespace refbench::github {

// An absolute http or https URL split into its parts. `scheme` and `host`
// are lower case (an IPv6 host keeps its brackets); `port` is the explicit
// port or the scheme's default (80, 443); `userinfo` is what precedes `@`.
struct Url {
  std::string scheme;
  std::string userinfo;
  bool has_userinfo = false;
  std::string host;
  int port = 0;
  std::string path_and_query; // path, `?` and query; never the fragment
};

// Parses `text` as an absolute http(s) URL with a host; an error names what
// is wrong (a relative reference, another scheme, a character RFC 3986 does
// not allow, a malformed host or port).
std::expected<Url, std::string> parse_url(const std::string& text);

// The target of `reference` (absolute, or relative as `<?page=2>`,
// `<//host/x>`, `</x>`, `<x>`) resolved against the absolute `base` by
// RFC 3986 §5.2 (dot segments removed); an error when either does not parse.
std::expected<std::string, std::string> resolve_reference(const std::string& base, const std::string& reference);

// True when `a` and `b` have the same scheme, host and port and neither
// carries userinfo: the test for where the token may go.
bool same_origin(const Url& a, const Url& b);

// True for `localhost`, an IPv4 address in 127.0.0.0/8 and `[::1]` (a host
// as parse_url returns it).
bool is_loopback(const std::string& host);

// `url` as it may appear in a one-line message: bytes outside printable
// ASCII as %XX, at most 200 characters.
std::string printable_url(const std::string& url);

} // namespace refbench::github
