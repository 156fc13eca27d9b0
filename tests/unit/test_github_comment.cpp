#include "github_fake_transport.hpp"
#include "utf8_check.hpp"

#include <doctest/doctest.h>

#include <refbench/github/comment.hpp>

#include <fmt/format.h>
#include <map>
#include <string>
#include <vector>

using namespace refbench;
using namespace refbench::github;
using refbench::test::FakeClock;
using refbench::test::FakeTransport;

using refbench::test::valid_utf8;

namespace {

constexpr const char* k_comment_token = "ghp_Xy9TokenThatMustNeverBeShown000000";
constexpr const char* k_comments = "https://api.github.com/repos/o/r/issues/7/comments";
constexpr const char* k_page_2 = "https://api.github.com/repositories/99/issues/7/comments?per_page=100&page=2";

ApiSettings comment_settings() {
  ApiSettings s;
  s.token = k_comment_token;
  return s;
}

// A comment as GET /repos/o/r/issues/7/comments lists it (trimmed).
nlohmann::json comment(std::uint64_t id, const std::string& body) {
  return {{"id", id},
          {"node_id", fmt::format("IC_kwDOJd3oVc{}", id)},
          {"html_url", fmt::format("https://github.com/o/r/pull/7#issuecomment-{}", id)},
          {"issue_url", "https://api.github.com/repos/o/r/issues/7"},
          {"user", {{"login", "reviewer"}, {"id", 31337}, {"type", "User"}}},
          {"created_at", "2024-03-05T14:22:09Z"},
          {"author_association", "MEMBER"},
          {"body", body}};
}

// 150 ordinary comments, ids 1001..1150, on two pages of 100 and 50 with
// GitHub's Link headers.
struct Pages {
  std::vector<nlohmann::json> comments;

  Pages() {
    for (std::uint64_t id = 1001; id <= 1150; ++id) {
      comments.push_back(comment(id, fmt::format("LGTM, nit number {}\n\nThanks!", id)));
    }
  }

  void set_body(std::uint64_t id, const std::string& body) { comments.at(id - 1001)["body"] = body; }

  void queue(FakeTransport& transport) const {
    nlohmann::json first = nlohmann::json::array();
    nlohmann::json second = nlohmann::json::array();
    for (std::size_t i = 0; i < comments.size(); ++i) {
      (i < 100 ? first : second).push_back(comments[i]);
    }
    transport.respond(200, first.dump(),
                      {{"link", fmt::format(R"(<{}>; rel="next", <{}>; rel="last")", k_page_2, k_page_2)}});
    const std::string page_1 = "https://api.github.com/repositories/99/issues/7/comments?per_page=100&page=1";
    transport.respond(200, second.dump(),
                      {{"link", fmt::format(R"(<{}>; rel="prev", <{}>; rel="first")", page_1, page_1)}});
  }
};

// Counts UTF-8 code points (bytes that are not continuation bytes).
std::size_t code_points(const std::string& text) {
  std::size_t count = 0;
  for (unsigned char c : text) {
    count += (c & 0xC0) == 0x80 ? 0 : 1;
  }
  return count;
}

const std::string k_trim_note_end = "the whole report is in the job summary and the results artifact._\n";

} // namespace

TEST_CASE("github::marker_line") {
  CHECK(marker_line("") == "<!-- refbench -->");
  CHECK(marker_line("nightly") == "<!-- refbench:nightly -->");
  CHECK(marker_line("pr-linux_x86.64") == "<!-- refbench:pr-linux_x86.64 -->");
  for (const std::string bad : {"a b", "x-->", "<!--", "night/ly", "é", "a\nb", "a:b", "tab\t"}) {
    CAPTURE(bad);
    CHECK_THROWS_WITH_AS(marker_line(bad), doctest::Contains("[A-Za-z0-9._-]"), UsageError);
  }
}

TEST_CASE("github::with_marker") {
  SUBCASE("prepended to a report") {
    CHECK(with_marker("### refbench: ✅ no change\n", "<!-- refbench -->") ==
          "<!-- refbench -->\n### refbench: ✅ no change\n");
    CHECK(with_marker("", "<!-- refbench -->") == "<!-- refbench -->\n");
  }
  SUBCASE("an existing refbench marker line is replaced") {
    CHECK(with_marker("<!-- refbench -->\n### report\n", "<!-- refbench:nightly -->") ==
          "<!-- refbench:nightly -->\n### report\n");
    CHECK(with_marker("<!-- refbench:old -->\r\n### report", "<!-- refbench -->") == "<!-- refbench -->\n### report");
    CHECK(with_marker("<!-- refbench:old -->", "<!-- refbench -->") == "<!-- refbench -->");
  }
  SUBCASE("a line that only begins like a marker is not one") {
    CHECK(with_marker("<!-- refbenchmark -->\nhello", "<!-- refbench -->") ==
          "<!-- refbench -->\n<!-- refbenchmark -->\nhello");
    CHECK(with_marker("<!-- refbench:a b -->\nhello", "<!-- refbench -->") ==
          "<!-- refbench -->\n<!-- refbench:a b -->\nhello");
    CHECK(with_marker("<!-- refbench:nightly -->\nhello", "<!-- refbench -->") == "<!-- refbench -->\nhello");
  }
  SUBCASE("other HTML comments are kept") {
    CHECK(with_marker("<!-- other-bot -->\nhello", "<!-- refbench -->") ==
          "<!-- refbench -->\n<!-- other-bot -->\nhello");
    CHECK(with_marker("text\n<!-- refbench -->\n", "<!-- refbench -->") ==
          "<!-- refbench -->\ntext\n<!-- refbench -->\n");
  }
}

TEST_CASE("github::trim_body") {
  SUBCASE("a body that fits is unchanged") {
    CHECK(trim_body("### refbench\n\nshort\n", 300) == "### refbench\n\nshort\n");
    const std::string exactly(300, 'x');
    CHECK(trim_body(exactly, 300) == exactly);
    CHECK(trim_body("", 300) == "");
  }
  SUBCASE("the limit counts code points, not bytes") {
    std::string accents;
    for (int i = 0; i < 250; ++i) {
      accents += "é"; // 2 bytes
    }
    REQUIRE(accents.size() == 500);
    CHECK(trim_body(accents, 300) == accents);
    std::string checks;
    for (int i = 0; i < 300; ++i) {
      checks += "✅"; // 3 bytes
    }
    CHECK(trim_body(checks, 300) == checks);
  }
  SUBCASE("a long report is cut at a line end, with the note") {
    std::string body = "<!-- refbench -->\n";
    for (int row = 0; row < 40; ++row) {
      body += fmt::format("| cell-{:02} | é ✅ | 1.0{}x |\n", row, row % 10);
    }
    const std::size_t total = code_points(body);
    REQUIRE(total > 300);
    const std::string trimmed = trim_body(body, 300);
    CHECK(code_points(trimmed) <= 300);
    CHECK(valid_utf8(trimmed));
    CHECK(trimmed.ends_with(k_trim_note_end));
    CHECK(trimmed.find(fmt::format("of {} characters", total)) != std::string::npos);
    const auto note = trimmed.find("\n\n_refbench: the report was trimmed");
    REQUIRE(note != std::string::npos);
    CHECK(note > 0);
    CHECK(body.starts_with(trimmed.substr(0, note)));
    CHECK(body[note] == '\n'); // cut at the end of a line
    CHECK(trimmed.starts_with("<!-- refbench -->\n| cell-00 |"));
  }
  SUBCASE("multi-byte characters are never cut") {
    for (const std::string glyph : {"é", "✅", "𝄞"}) {
      CAPTURE(glyph);
      std::string line; // one long line: the cut falls inside it
      for (int i = 0; i < 1000; ++i) {
        line += glyph;
      }
      for (std::size_t limit : {300u, 301u, 302u, 333u}) {
        CAPTURE(limit);
        const std::string trimmed = trim_body(line, limit);
        CHECK(valid_utf8(trimmed));
        CHECK(code_points(trimmed) <= limit);
        CHECK(trimmed.ends_with(k_trim_note_end));
        const std::string kept = trimmed.substr(0, trimmed.find("\n\n_refbench"));
        CHECK(line.starts_with(kept));
        CHECK(kept.size() % glyph.size() == 0);
      }
    }
  }
  SUBCASE("the note tells how much is shown") {
    std::string body;
    for (int row = 0; row < 40; ++row) {
      body += fmt::format("line {:02} of the report\n", row);
    }
    const std::string trimmed = trim_body(body, 300);
    const std::string kept = trimmed.substr(0, trimmed.find("\n\n_refbench"));
    CHECK(trimmed.find(fmt::format("({} of {} characters shown)", code_points(kept), code_points(body))) !=
          std::string::npos);
  }
  SUBCASE("a limit shorter than the note keeps the start of the body, without a note") {
    const std::string trimmed = trim_body(std::string(1000, 'x'), 50);
    CHECK(trimmed == std::string(50, 'x'));
  }
  SUBCASE("the default limit is GitHub's 65536") {
    CHECK(k_comment_limit == 65536);
    std::string body;
    while (body.size() < 70'000) {
      body += "| a-benchmark-cell | 1.000x | [0.990, 1.010] | no change |\n";
    }
    const std::string trimmed = trim_body(body);
    CHECK(code_points(trimmed) <= 65536);
    CHECK(code_points(trimmed) > 65536 - 300);
    CHECK(trimmed.ends_with(k_trim_note_end));
    std::string fits(65536, 'a');
    CHECK(trim_body(fits) == fits);
  }
}

TEST_CASE("github::upsert_comment") {
  FakeTransport transport;
  FakeClock clock;
  Api api(comment_settings(), transport, clock.sleep(), clock.now());
  Pages pages;
  const std::string marker = "<!-- refbench -->";
  const std::string body = marker + "\n### refbench: ❌ 1 regression\n";

  auto methods_and_urls = [&] {
    std::vector<std::string> lines;
    for (const auto& request : transport.requests) {
      lines.push_back(request.method + " " + request.url);
    }
    return lines;
  };
  const std::vector<std::string> read_both_pages{
      "GET " + std::string(k_comments) + "?per_page=100",
      "GET " + std::string(k_page_2),
  };
  auto posted = [&] {
    auto expected = read_both_pages;
    expected.push_back("POST " + std::string(k_comments));
    return expected;
  };

  SUBCASE("no earlier comment: POST after reading every page") {
    pages.queue(transport);
    transport.respond(201, comment(5555, body).dump());
    auto result = upsert_comment(api, "o/r", 7, marker, body);
    CHECK(result.created);
    CHECK(result.id == 5555);
    CHECK(result.url == "https://github.com/o/r/pull/7#issuecomment-5555");
    CHECK(methods_and_urls() == posted());
    CHECK(nlohmann::json::parse(transport.requests.back().body) == nlohmann::json{{"body", body}});
    CHECK(transport.pending() == 0);
  }
  SUBCASE("a POST that failed with a 502 but created the comment is not sent twice") {
    pages.queue(transport);
    transport.respond(502, R"({"message":"Server Error"})");
    Pages after = pages; // the failed POST did create comment 5555
    after.comments.push_back(comment(5555, body));
    // 151 comments: page 2 now has 51, the marked one last
    after.queue(transport);
    transport.respond(200, comment(5555, body).dump());
    auto result = upsert_comment(api, "o/r", 7, marker, body);
    CHECK_FALSE(result.created);
    CHECK(result.id == 5555);
    auto expected = posted();
    expected.insert(expected.end(), read_both_pages.begin(), read_both_pages.end());
    expected.push_back("PATCH https://api.github.com/repos/o/r/issues/comments/5555");
    CHECK(methods_and_urls() == expected);
    CHECK(clock.sleeps == std::vector<double>{1});
  }
  SUBCASE("a POST that failed with a 502 and created nothing is sent again") {
    pages.queue(transport);
    transport.respond(502);
    pages.queue(transport);
    transport.respond(201, comment(5556, body).dump());
    auto result = upsert_comment(api, "o/r", 7, marker, body);
    CHECK(result.created);
    CHECK(result.id == 5556);
    auto expected = posted();
    expected.insert(expected.end(), read_both_pages.begin(), read_both_pages.end());
    expected.push_back("POST " + std::string(k_comments));
    CHECK(methods_and_urls() == expected);
  }
  SUBCASE("a POST refused with 403 rate limit is resent without listing again") {
    pages.queue(transport);
    transport.respond(403, R"({"message":"You have exceeded a secondary rate limit"})", {{"retry-after", "2"}});
    transport.respond(201, comment(5557, body).dump());
    auto result = upsert_comment(api, "o/r", 7, marker, body);
    CHECK(result.created);
    auto expected = posted();
    expected.push_back("POST " + std::string(k_comments));
    CHECK(methods_and_urls() == expected);
    CHECK(clock.sleeps == std::vector<double>{2});
  }
  SUBCASE("the marked comment on page 2 is PATCHed") {
    pages.set_body(1123, marker + "\n### refbench: ✅ no change\n");
    pages.queue(transport);
    transport.respond(200, comment(1123, body).dump());
    auto result = upsert_comment(api, "o/r", 7, marker, body);
    CHECK_FALSE(result.created);
    CHECK(result.id == 1123);
    CHECK(result.url == "https://github.com/o/r/pull/7#issuecomment-1123");
    auto expected = read_both_pages;
    expected.push_back("PATCH https://api.github.com/repos/o/r/issues/comments/1123");
    CHECK(methods_and_urls() == expected);
    CHECK(nlohmann::json::parse(transport.requests.back().body) == nlohmann::json{{"body", body}});
  }
  SUBCASE("the first marked comment on page 1 is PATCHed without reading on") {
    pages.set_body(1040, marker + "\nold");
    pages.set_body(1041, marker + "\nolder duplicate");
    pages.queue(transport);
    transport.respond(200, comment(1040, body).dump());
    auto result = upsert_comment(api, "o/r", 7, marker, body);
    CHECK_FALSE(result.created);
    CHECK(result.id == 1040);
    CHECK(methods_and_urls() ==
          std::vector<std::string>{"GET " + std::string(k_comments) + "?per_page=100",
                                   "PATCH https://api.github.com/repos/o/r/issues/comments/1040"});
  }
  SUBCASE("the marker only counts as the first line") {
    pages.set_body(1130, "Quoting the bot:\n" + marker + "\n### refbench: ✅ no change\n");
    pages.set_body(1131, "> " + marker);
    pages.set_body(1132, " " + marker + "\nindented");
    pages.queue(transport);
    transport.respond(201, comment(5556, body).dump());
    auto result = upsert_comment(api, "o/r", 7, marker, body);
    CHECK(result.created);
    CHECK(methods_and_urls() == posted());
  }
  SUBCASE("a CRLF first line counts") {
    pages.set_body(1149, marker + "\r\n### refbench: ✅ no change\r\n");
    pages.queue(transport);
    transport.respond(200, comment(1149, body).dump());
    auto result = upsert_comment(api, "o/r", 7, marker, body);
    CHECK_FALSE(result.created);
    CHECK(transport.requests.back().url == "https://api.github.com/repos/o/r/issues/comments/1149");
  }
  SUBCASE("a comment that is only the marker counts") {
    pages.set_body(1150, marker);
    pages.queue(transport);
    transport.respond(200, comment(1150, body).dump());
    CHECK(upsert_comment(api, "o/r", 7, marker, body).id == 1150);
    CHECK(transport.requests.back().method == "PATCH");
  }
  SUBCASE("a named marker does not match the default one, nor the reverse") {
    pages.set_body(1010, "<!-- refbench:nightly -->\n### nightly report\n");
    pages.queue(transport);
    transport.respond(201, comment(5557, body).dump());
    CHECK(upsert_comment(api, "o/r", 7, marker, body).created);
    CHECK(methods_and_urls() == posted());
  }
  SUBCASE("a default marker does not match a named one") {
    pages.set_body(1010, marker + "\n### report\n");
    pages.queue(transport);
    transport.respond(201, comment(5558, body).dump());
    const std::string nightly = "<!-- refbench:nightly -->";
    CHECK(upsert_comment(api, "o/r", 7, nightly, nightly + "\nx").created);
    CHECK(methods_and_urls() == posted());
  }
  SUBCASE("the named marker finds its own comment") {
    pages.set_body(1010, marker + "\n### report\n");
    pages.set_body(1100, "<!-- refbench:nightly -->\n### nightly report\n");
    pages.queue(transport);
    transport.respond(200, comment(1100, body).dump());
    CHECK(upsert_comment(api, "o/r", 7, "<!-- refbench:nightly -->", "<!-- refbench:nightly -->\nx").id == 1100);
    CHECK(transport.requests.back().url == "https://api.github.com/repos/o/r/issues/comments/1100");
  }
  SUBCASE("a next link to another host is refused and never requested") {
    transport.respond(200, "[]", {{"link", R"(<https://evil.example.com/steal?page=2>; rel="next")"}});
    try {
      upsert_comment(api, "o/r", 7, marker, body);
      FAIL("no ApiError");
    } catch (const ApiError& error) {
      CHECK(std::string(error.what()).find("https://evil.example.com/steal?page=2") != std::string::npos);
      CHECK(std::string(error.what()).find(k_comment_token) == std::string::npos);
      CHECK(error.hint().find(k_comment_token) == std::string::npos);
    }
    REQUIRE(transport.requests.size() == 1);
    CHECK(transport.requests[0].url == std::string(k_comments) + "?per_page=100");
  }
  SUBCASE("an answer that is not a list") {
    transport.respond(200, R"({"message":"this is not the REST API"})");
    CHECK_THROWS_WITH_AS(upsert_comment(api, "o/r", 7, marker, body), doctest::Contains("not a list of comments"),
                         ApiError);
    CHECK(transport.requests.size() == 1);
  }
  SUBCASE("a page nested deeper than the JSON reader takes is refused, not a crash") {
    transport.respond(200, "[{\"id\": 1, \"body\": " + std::string(100000, '[') + std::string(100000, ']') + "}]");
    CHECK_THROWS_WITH_AS(upsert_comment(api, "o/r", 7, marker, body), doctest::Contains("nested deeper than 128"),
                         ApiError);
  }
  SUBCASE("a next link back to a page already read ends it") {
    const std::string page_2_back_to_2 = fmt::format(R"(<{}>; rel="next")", k_page_2);
    transport.respond(200, "[]", {{"link", page_2_back_to_2}}).respond(200, "[]", {{"link", page_2_back_to_2}});
    CHECK_THROWS_WITH_AS(upsert_comment(api, "o/r", 7, marker, body), doctest::Contains("lead back to"), ApiError);
    CHECK(transport.requests.size() == 2);
  }
  SUBCASE("pages that never end stop at k_max_comment_pages") {
    for (std::size_t page = 2; page <= k_max_comment_pages + 2; ++page) {
      transport.respond(200, "[]", {{"link", fmt::format(R"(<{}?page={}>; rel="next")", k_comments, page)}});
    }
    CHECK_THROWS_WITH_AS(upsert_comment(api, "o/r", 7, marker, body), doctest::Contains("more than 100 pages"),
                         ApiError);
    CHECK(transport.requests.size() == k_max_comment_pages);
  }
  SUBCASE("the comment's html_url is printed as printable text") {
    transport.respond(200, "[]").respond(201, R"({"id": 5, "html_url": "https://x/\u001b[31m\n::add-mask::y"})");
    const auto result = upsert_comment(api, "o/r", 7, marker, body);
    CHECK(result.url.find('\x1b') == std::string::npos);
    CHECK(result.url.find('\n') == std::string::npos);
    CHECK(result.url.find("%1B") != std::string::npos);
  }
}

TEST_CASE("github::upsert_comment follows Link targets only to the API's origin") {
  FakeTransport transport;
  FakeClock clock;
  Api api(comment_settings(), transport, clock.sleep(), clock.now());
  const std::string marker = "<!-- refbench -->";
  const std::string body = marker + "\nreport\n";
  const std::string first = std::string(k_comments) + "?per_page=100";
  auto link = [](const std::string& target) {
    return std::map<std::string, std::string>{{"link", "<" + target + ">; rel=\"next\""}};
  };

  // Lists page 1 with a next link to `target`, then page 2 (empty) and the POST.
  auto follows = [&](const std::string& target, const std::string& expected_url) {
    CAPTURE(target);
    transport.respond(200, "[]", link(target)).respond(200, "[]").respond(201, comment(5, body).dump());
    upsert_comment(api, "o/r", 7, marker, body);
    REQUIRE(transport.requests.size() == 3);
    CHECK(transport.requests[0].url == first);
    CHECK(transport.requests[1].url == expected_url);
    CHECK(transport.requests[1].method == "GET");
  };
  // Lists page 1 with a next link to `target`, which must be refused.
  auto refuses = [&](const std::string& target) {
    CAPTURE(target);
    transport.respond(200, "[]", link(target));
    try {
      upsert_comment(api, "o/r", 7, marker, body);
      FAIL("no ApiError");
    } catch (const ApiError& error) {
      const std::string what = error.what();
      CHECK(what.find("refused to send the token") != std::string::npos);
      CHECK(what.find('\n') == std::string::npos);
      CHECK(what.find(k_comment_token) == std::string::npos);
      CHECK(error.hint().find(k_comment_token) == std::string::npos);
      CHECK(error.status() == 0);
    }
    REQUIRE(transport.requests.size() == 1);
    CHECK(transport.requests[0].url == first);
  };

  SUBCASE("<@host/...> is a relative path on the API's host, not userinfo") {
    follows("@evil.example.com/steal?page=2",
            "https://api.github.com/repos/o/r/issues/7/@evil.example.com/steal?page=2");
  }
  SUBCASE("<//host/...> is another host") { refuses("//evil.example.com/steal?page=2"); }
  SUBCASE("userinfo that looks like the API host") { refuses("https://api.github.com@evil.example.com/steal"); }
  SUBCASE("another port") { refuses("https://api.github.com:8443/repositories/99/issues/7/comments?page=2"); }
  SUBCASE("another scheme") { refuses("http://api.github.com/repositories/99/issues/7/comments?page=2"); }
  SUBCASE("another host") { refuses("https://api.github.com.evil.example.com/repositories/99/issues/7/comments"); }
  SUBCASE("not a URL") { refuses("https://api.github.com/\x1b[31m"); }
  SUBCASE("a path-relative link resolves against the page") {
    follows("comments?per_page=100&page=2", "https://api.github.com/repos/o/r/issues/7/comments?per_page=100&page=2");
  }
  SUBCASE("a root-relative link") {
    follows("/repositories/99/issues/7/comments?page=2",
            "https://api.github.com/repositories/99/issues/7/comments?page=2");
  }
  SUBCASE("an absolute link with the host's case and default port spelled differently") {
    follows("https://API.GitHub.com:443/repositories/99/issues/7/comments?page=2",
            "https://API.GitHub.com:443/repositories/99/issues/7/comments?page=2");
  }
}

TEST_CASE("github::parse_comment_artifact") {
  const std::string path = "artifact/comment.json";
  SUBCASE("valid") {
    auto artifact = parse_comment_artifact(R"({"pr": 42, "body": "<!-- refbench -->\n### report\n"})", path);
    CHECK(artifact.pr == 42);
    CHECK(artifact.body == "<!-- refbench -->\n### report\n");
    CHECK(parse_comment_artifact(R"({"body": "<!-- refbench:nightly -->", "pr": 1, "extra": true})", path).pr == 1);
  }
  SUBCASE("pr must be a positive integer") {
    for (const std::string pr : {R"("42")", "42.0", "4.2e1", "-3", "0", "null", "true", "[42]"}) {
      CAPTURE(pr);
      const std::string text = R"({"pr": )" + pr + R"(, "body": "<!-- refbench -->\nx"})";
      CHECK_THROWS_WITH_AS(parse_comment_artifact(text, path), doctest::Contains("\"pr\" must be a positive integer"),
                           UsageError);
      CHECK_THROWS_WITH_AS(parse_comment_artifact(text, path), doctest::Contains(path.c_str()), UsageError);
    }
    CHECK_THROWS_WITH_AS(parse_comment_artifact(R"({"body": "<!-- refbench -->\nx"})", path),
                         doctest::Contains("found nothing"), UsageError);
  }
  SUBCASE("body must be a string") {
    CHECK_THROWS_WITH_AS(parse_comment_artifact(R"({"pr": 42})", path), doctest::Contains("\"body\" must be a string"),
                         UsageError);
    CHECK_THROWS_WITH_AS(parse_comment_artifact(R"({"pr": 42, "body": ["<!-- refbench -->"]})", path),
                         doctest::Contains("\"body\" must be a string"), UsageError);
    CHECK_THROWS_WITH_AS(parse_comment_artifact(R"({"pr": 42, "body": null})", path),
                         doctest::Contains("\"body\" must be a string"), UsageError);
  }
  SUBCASE("body must start with a marker line") {
    for (const std::string body : {"### report", "", "x\\n<!-- refbench -->", "<!-- other -->\\nx"}) {
      CAPTURE(body);
      CHECK_THROWS_WITH_AS(parse_comment_artifact(R"({"pr": 42, "body": ")" + body + "\"}", path),
                           doctest::Contains("refbench marker"), UsageError);
    }
  }
  SUBCASE("not a JSON object") {
    for (const std::string text : {"", "not json", R"({"pr": 42, "body": )", "[1, 2]", "42"}) {
      CAPTURE(text);
      CHECK_THROWS_WITH_AS(parse_comment_artifact(text, path),
                           doctest::Contains("artifact/comment.json is not a JSON object"), UsageError);
    }
  }
  SUBCASE("at most 1 MiB") {
    const std::string padding(k_artifact_limit, 'a');
    const std::string text = R"({"pr": 42, "body": "<!-- refbench -->\n)" + padding + "\"}";
    CHECK_THROWS_WITH_AS(parse_comment_artifact(text, path), doctest::Contains("more than the 1048576"), UsageError);
    const std::string fits =
        R"({"pr": 42, "body": "<!-- refbench -->\n)" + std::string(k_artifact_limit - 41, 'a') + "\"}";
    REQUIRE(fits.size() == k_artifact_limit);
    CHECK(parse_comment_artifact(fits, path).body.size() == 18 + k_artifact_limit - 41);
  }
}

TEST_CASE("github::comment_artifact_json") {
  const CommentArtifact artifact{1234, "<!-- refbench -->\n### refbench: ❌ \"quoted\" \\ 1 regression\r\n"};
  const std::string text = comment_artifact_json(artifact);
  CHECK(text.ends_with("}\n"));
  CHECK(nlohmann::json::parse(text) == nlohmann::json{{"pr", 1234}, {"body", artifact.body}});
  auto back = parse_comment_artifact(text, "comment.json");
  CHECK(back.pr == artifact.pr);
  CHECK(back.body == artifact.body);
}
