#include <doctest/doctest.h>

#include <refbench/github/url.hpp>

#include <string>
#include <utility>
#include <vector>

using namespace refbench::github;

namespace {

std::string resolved(const std::string& reference, const std::string& base = "http://a/b/c/d;p?q") {
  auto target = resolve_reference(base, reference);
  REQUIRE_MESSAGE(target.has_value(), reference);
  return *target;
}

Url url(const std::string& text) {
  auto parsed = parse_url(text);
  REQUIRE_MESSAGE(parsed.has_value(), text);
  return *parsed;
}

} // namespace

TEST_CASE("github::resolve_reference") {
  // RFC 3986 §5.4.1 (normal examples) and §5.4.2 (abnormal examples),
  // base http://a/b/c/d;p?q
  const std::vector<std::pair<std::string, std::string>> examples{
      {"g:h", "g:h"},
      {"g", "http://a/b/c/g"},
      {"./g", "http://a/b/c/g"},
      {"g/", "http://a/b/c/g/"},
      {"/g", "http://a/g"},
      {"//g", "http://g"},
      {"?y", "http://a/b/c/d;p?y"},
      {"g?y", "http://a/b/c/g?y"},
      {"#s", "http://a/b/c/d;p?q#s"},
      {"g#s", "http://a/b/c/g#s"},
      {"g?y#s", "http://a/b/c/g?y#s"},
      {";x", "http://a/b/c/;x"},
      {"g;x", "http://a/b/c/g;x"},
      {"g;x?y#s", "http://a/b/c/g;x?y#s"},
      {"", "http://a/b/c/d;p?q"},
      {".", "http://a/b/c/"},
      {"./", "http://a/b/c/"},
      {"..", "http://a/b/"},
      {"../", "http://a/b/"},
      {"../g", "http://a/b/g"},
      {"../..", "http://a/"},
      {"../../", "http://a/"},
      {"../../g", "http://a/g"},
      {"../../../g", "http://a/g"},
      {"../../../../g", "http://a/g"},
      {"/./g", "http://a/g"},
      {"/../g", "http://a/g"},
      {"g.", "http://a/b/c/g."},
      {".g", "http://a/b/c/.g"},
      {"g..", "http://a/b/c/g.."},
      {"..g", "http://a/b/c/..g"},
      {"./../g", "http://a/b/g"},
      {"./g/.", "http://a/b/c/g/"},
      {"g/./h", "http://a/b/c/g/h"},
      {"g/../h", "http://a/b/c/h"},
      {"g;x=1/./y", "http://a/b/c/g;x=1/y"},
      {"g;x=1/../y", "http://a/b/c/y"},
      {"g?y/./x", "http://a/b/c/g?y/./x"},
      {"g?y/../x", "http://a/b/c/g?y/../x"},
      {"g#s/./x", "http://a/b/c/g#s/./x"},
      {"g#s/../x", "http://a/b/c/g#s/../x"},
      {"http:g", "http:g"}, // strict parser
  };
  for (const auto& [reference, target] : examples) {
    CAPTURE(reference);
    CHECK(resolved(reference) == target);
  }
  SUBCASE("the Link targets a GitHub page may carry") {
    const std::string page = "https://api.github.com/repos/o/r/issues/7/comments?per_page=100";
    CHECK(resolved("@evil.example.com/x", page) == "https://api.github.com/repos/o/r/issues/7/@evil.example.com/x");
    CHECK(resolved("//evil.example.com/x", page) == "https://evil.example.com/x");
    CHECK(resolved("comments?page=2", page) == "https://api.github.com/repos/o/r/issues/7/comments?page=2");
    CHECK(resolved("/repositories/9/issues/7/comments?page=2", page) ==
          "https://api.github.com/repositories/9/issues/7/comments?page=2");
  }
  SUBCASE("a reference or base that is not a URL") {
    CHECK_FALSE(resolve_reference("http://a/b", "g h").has_value());
    CHECK_FALSE(resolve_reference("http://a/b", "g\x1b[31m").has_value());
    CHECK_FALSE(resolve_reference("http://a/b", "g%zz").has_value());
    CHECK_FALSE(resolve_reference("http://a/b", "g\\..\\h").has_value());
    CHECK_FALSE(resolve_reference("/b/c", "g").has_value());
  }
}

TEST_CASE("github::parse_url") {
  SUBCASE("parts, lower case, default ports") {
    const Url u = url("HTTPS://API.GitHub.com/repos/o/r?page=2#frag");
    CHECK(u.scheme == "https");
    CHECK(u.host == "api.github.com");
    CHECK(u.port == 443);
    CHECK_FALSE(u.has_userinfo);
    CHECK(u.path_and_query == "/repos/o/r?page=2");
    CHECK(url("http://localhost").port == 80);
    CHECK(url("http://localhost:").port == 80);
    CHECK(url("https://ghe.example.com:8443/api/v3").port == 8443);
    CHECK(url("http://[::1]:9000/x").host == "[::1]");
  }
  SUBCASE("userinfo is seen, wherever the @ is") {
    const Url u = url("https://api.github.com@evil.example.com/x");
    CHECK(u.has_userinfo);
    CHECK(u.userinfo == "api.github.com");
    CHECK(u.host == "evil.example.com");
    CHECK(url("https://@api.github.com/").has_userinfo);
  }
  SUBCASE("refused") {
    for (const std::string text :
         {"/repos/o/r", "//api.github.com/x", "@evil/x", "ftp://api.github.com/x", "https:api.github.com/x",
          "https:///x", "https://api.github.com:0/", "https://api.github.com:65536/", "https://api.github.com:44x/",
          "https://api.github.com%2eevil.com/", "https://a@b@c/", "https://[::1/", "https://api.github.com\\@evil.com/",
          "https://api.github.com/\x07"}) {
      CAPTURE(text);
      CHECK_FALSE(parse_url(text).has_value());
    }
  }
}

TEST_CASE("github::same_origin") {
  const Url api = url("https://api.github.com");
  CHECK(same_origin(api, url("https://API.GITHUB.COM:443/repositories/1?page=2")));
  CHECK_FALSE(same_origin(api, url("https://api.github.com:8443/x")));
  CHECK_FALSE(same_origin(api, url("http://api.github.com/x")));
  CHECK_FALSE(same_origin(api, url("https://api.github.com.evil.com/x")));
  CHECK_FALSE(same_origin(api, url("https://api.github.com@evil.com/x")));
  CHECK_FALSE(same_origin(api, url("https://user@api.github.com/x")));
  CHECK(same_origin(url("http://127.0.0.1:8080/api/v3"), url("http://127.0.0.1:8080/x")));
}

TEST_CASE("github::is_loopback") {
  for (const std::string host : {"localhost", "127.0.0.1", "127.255.0.9", "[::1]"}) {
    CAPTURE(host);
    CHECK(is_loopback(host));
  }
  for (const std::string host : {"128.0.0.1", "127.0.0.1.evil.com", "127.1", "127.0.0.256", "localhost.evil.com",
                                 "[::2]", "api.github.com", "0127.0.0.1", ""}) {
    CAPTURE(host);
    CHECK_FALSE(is_loopback(host));
  }
}

TEST_CASE("github::printable_url") {
  CHECK(printable_url("https://a/b?c=d") == "https://a/b?c=d");
  CHECK(printable_url("https://a/\x1b[31m\n x") == "https://a/%1B[31m%0A%20x");
  CHECK(printable_url(std::string(300, 'a')) == std::string(200, 'a') + "...");
}
