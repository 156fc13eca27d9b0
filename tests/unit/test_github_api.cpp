#include "github_fake_transport.hpp"

#include <doctest/doctest.h>

#include <refbench/github/api.hpp>

#include <map>
#include <numeric>
#include <optional>
#include <string>
#include <vector>

using namespace refbench;
using namespace refbench::github;
using refbench::test::FakeClock;
using refbench::test::FakeTransport;

namespace {

constexpr const char* k_token = "ghs_S3cr3tT0k3nValue0123456789abcdefXYZ";
constexpr double k_now = 1'700'000'000;

HttpOutcome response(long status, std::string body = "{}", std::map<std::string, std::string> headers = {}) {
  return HttpResponse{status, std::move(headers), std::move(body)};
}

HttpOutcome failure(TransportError::Kind kind) {
  return std::unexpected(TransportError{kind, "Could not resolve host: api.github.com"});
}

std::optional<double> wait_seconds(const HttpOutcome& outcome, int attempt = 1, double now = k_now) {
  auto wait = retry_wait(outcome, attempt, now, RetryPolicy{});
  return wait ? std::optional<double>(wait->seconds) : std::nullopt;
}

// A fake environment for the settings functions.
std::function<const char*(const char*)> environment(const std::map<std::string, std::string>& env) {
  return [&env](const char* name) -> const char* {
    auto it = env.find(name);
    return it == env.end() ? nullptr : it->second.c_str();
  };
}

ApiSettings settings(double max_wait = 120, std::string base = "https://api.github.com") {
  ApiSettings s;
  s.base_url = std::move(base);
  s.token = k_token;
  s.retry.max_wait_seconds = max_wait;
  return s;
}

// The ApiError `call` throws; fails the test when it throws nothing.
template <typename Call> std::optional<ApiError> api_error(Call call) {
  try {
    call();
  } catch (const ApiError& error) {
    return error;
  }
  FAIL("no ApiError was thrown");
  return std::nullopt;
}

bool contains(const std::string& text, const std::string& part) { return text.find(part) != std::string::npos; }

void check_no_token(const ApiError& error) {
  CHECK_FALSE(contains(error.what(), k_token));
  CHECK_FALSE(contains(error.hint(), k_token));
  CHECK_FALSE(contains(error.github_message(), k_token));
}

constexpr const char* k_rate_limited =
    R"({"message":"API rate limit exceeded for installation ID 12345.","documentation_url":"https://docs.github.com/rest/overview/rate-limits-for-the-rest-api"})";

} // namespace

TEST_CASE("github::retry_wait") {
  SUBCASE("5xx backs off from 1 s, doubling, capped at 30 s") {
    std::vector<double> waits;
    for (int attempt = 1; attempt <= 7; ++attempt) {
      waits.push_back(wait_seconds(response(502), attempt).value());
    }
    CHECK(waits == std::vector<double>{1, 2, 4, 8, 16, 30, 30});
    CHECK(wait_seconds(response(500), 3) == 4);
    CHECK(wait_seconds(response(503), 1) == 1);
    CHECK(wait_seconds(response(599), 2) == 2);
  }
  SUBCASE("the policy sets the first backoff and the cap") {
    RetryPolicy policy{100, 0.5, 3};
    CHECK(retry_wait(response(500), 1, k_now, policy)->seconds == 0.5);
    CHECK(retry_wait(response(500), 3, k_now, policy)->seconds == 2);
    CHECK(retry_wait(response(500), 4, k_now, policy)->seconds == 3);
  }
  SUBCASE("the reason names the status") {
    CHECK(retry_wait(response(502), 1, k_now, RetryPolicy{})->reason == "HTTP 502");
  }
  SUBCASE("a network error backs off like a 5xx") {
    CHECK(wait_seconds(failure(TransportError::Kind::network), 1) == 1);
    CHECK(wait_seconds(failure(TransportError::Kind::network), 4) == 8);
    CHECK(wait_seconds(failure(TransportError::Kind::network), 9) == 30);
  }
  SUBCASE("a TLS error is final") { CHECK_FALSE(wait_seconds(failure(TransportError::Kind::tls)).has_value()); }
  SUBCASE("403 and 429 honour retry-after") {
    CHECK(wait_seconds(response(403, k_rate_limited, {{"retry-after", "1"}}), 1) == 1);
    CHECK(wait_seconds(response(429, "{}", {{"retry-after", "17"}}), 5) == 17);
    // retry-after comes before the rate-limit reset
    CHECK(wait_seconds(response(403, "{}",
                                {{"retry-after", "3"},
                                 {"x-ratelimit-remaining", "0"},
                                 {"x-ratelimit-reset", std::to_string(static_cast<long>(k_now) + 500)}})) == 3);
  }
  SUBCASE("an exhausted rate limit waits for its reset") {
    const auto in_7_s = std::to_string(static_cast<long>(k_now) + 7);
    CHECK(wait_seconds(response(429, "{}", {{"x-ratelimit-remaining", "0"}, {"x-ratelimit-reset", in_7_s}})) == 7);
    CHECK(wait_seconds(response(403, k_rate_limited, {{"x-ratelimit-remaining", "0"}, {"x-ratelimit-reset", in_7_s}}),
                       3) == 7);
  }
  SUBCASE("a reset in the past waits 1 s") {
    const auto ago = std::to_string(static_cast<long>(k_now) - 30);
    CHECK(wait_seconds(response(403, k_rate_limited, {{"x-ratelimit-remaining", "0"}, {"x-ratelimit-reset", ago}})) ==
          1);
  }
  SUBCASE("403 without rate-limit headers or message is final") {
    const std::string read_only =
        R"({"message":"Resource not accessible by integration","documentation_url":"https://docs.github.com/rest/issues/comments#create-an-issue-comment","status":"403"})";
    CHECK_FALSE(wait_seconds(response(403, read_only)).has_value());
    CHECK_FALSE(wait_seconds(response(403, read_only, {{"x-ratelimit-remaining", "4999"}})).has_value());
  }
  SUBCASE("a secondary rate limit message without headers waits 60 s") {
    const std::string secondary =
        R"({"message":"You have exceeded a secondary rate limit. Please wait a few minutes before you try again.","documentation_url":"https://docs.github.com/rest/overview/rate-limits-for-the-rest-api#about-secondary-rate-limits"})";
    CHECK(wait_seconds(response(403, secondary)) == 60);
  }
  SUBCASE("other statuses are final") {
    for (long status : {400L, 401L, 404L, 409L, 410L, 422L}) {
      CAPTURE(status);
      CHECK_FALSE(wait_seconds(response(status, k_rate_limited, {{"retry-after", "1"}})).has_value());
    }
  }
}

TEST_CASE("github::next_link") {
  SUBCASE("GitHub's format, next first") {
    const std::string link =
        R"(<https://api.github.com/repositories/1/issues/2/comments?per_page=100&page=2>; rel="next", )"
        R"(<https://api.github.com/repositories/1/issues/2/comments?per_page=100&page=3>; rel="last")";
    CHECK(next_link(link) == "https://api.github.com/repositories/1/issues/2/comments?per_page=100&page=2");
  }
  SUBCASE("next after prev and first") {
    const std::string link =
        R"(<https://api.github.com/repositories/1/issues/2/comments?per_page=100&page=1>; rel="prev", )"
        R"(<https://api.github.com/repositories/1/issues/2/comments?per_page=100&page=3>; rel="next", )"
        R"(<https://api.github.com/repositories/1/issues/2/comments?per_page=100&page=4>; rel="last", )"
        R"(<https://api.github.com/repositories/1/issues/2/comments?per_page=100&page=1>; rel="first")";
    CHECK(next_link(link) == "https://api.github.com/repositories/1/issues/2/comments?per_page=100&page=3");
  }
  SUBCASE("the last page has no next") {
    const std::string link =
        R"(<https://api.github.com/repositories/1/issues/2/comments?per_page=100&page=2>; rel="prev", )"
        R"(<https://api.github.com/repositories/1/issues/2/comments?per_page=100&page=1>; rel="first")";
    CHECK(next_link(link) == "");
    CHECK(next_link(R"(<https://api.github.com/x?page=3>; rel="last")") == "");
  }
  SUBCASE("no header") { CHECK(next_link("") == ""); }
}

TEST_CASE("github::normalize_api_url") {
  CHECK(normalize_api_url("https://api.github.com") == "https://api.github.com");
  CHECK(normalize_api_url("https://api.github.com/") == "https://api.github.com");
  CHECK(normalize_api_url("https://ghe.example.com/api/v3///") == "https://ghe.example.com/api/v3");
  CHECK(normalize_api_url("") == "https://api.github.com");
  CHECK(normalize_api_url("/") == "https://api.github.com");
}

TEST_CASE("github::settings_from_environment") {
  SUBCASE("token and GHES URL") {
    const std::map<std::string, std::string> env{{"GITHUB_TOKEN", k_token},
                                                 {"GITHUB_API_URL", "https://ghe.example.com/api/v3/"}};
    auto s = settings_from_environment(environment(env), 45);
    CHECK(s.token == k_token);
    CHECK(s.base_url == "https://ghe.example.com/api/v3");
    CHECK(s.retry.max_wait_seconds == 45);
    CHECK(s.retry.first_backoff_seconds == 1);
    CHECK(s.retry.max_backoff_seconds == 30);
  }
  SUBCASE("no GITHUB_API_URL means github.com") {
    const std::map<std::string, std::string> env{{"GITHUB_TOKEN", k_token}};
    CHECK(settings_from_environment(environment(env), 120).base_url == "https://api.github.com");
  }
  SUBCASE("missing or empty token") {
    const std::map<std::string, std::string> none{{"GITHUB_API_URL", "https://api.github.com"}};
    const std::map<std::string, std::string> empty{{"GITHUB_TOKEN", ""}};
    for (const auto* env : {&none, &empty}) {
      try {
        settings_from_environment(environment(*env), 120);
        FAIL("no UsageError");
      } catch (const UsageError& error) {
        CHECK(contains(error.what(), "GITHUB_TOKEN"));
        CHECK(contains(error.hint(), "GITHUB_TOKEN"));
      }
    }
  }
}

TEST_CASE("github::repository_from") {
  const std::map<std::string, std::string> env{{"GITHUB_REPOSITORY", "octo-org/widget"}};
  const std::map<std::string, std::string> none;
  SUBCASE("the flag wins over GITHUB_REPOSITORY") {
    CHECK(repository_from(std::string("me/fork.js"), environment(env)) == "me/fork.js");
    CHECK(repository_from(std::nullopt, environment(env)) == "octo-org/widget");
    CHECK(repository_from(std::string("A_b-9/c.d_e-F"), environment(none)) == "A_b-9/c.d_e-F");
  }
  SUBCASE("missing") {
    REQUIRE_THROWS_AS(repository_from(std::nullopt, environment(none)), UsageError);
    CHECK_THROWS_WITH_AS(repository_from(std::nullopt, environment(none)), doctest::Contains("GITHUB_REPOSITORY"),
                         UsageError);
  }
  SUBCASE("not owner/name") {
    for (const std::string bad :
         {"../x", "x/..", "a/b/c", "widget", "/widget", "octo-org/", "a b/c", "o/r?x=1", "o/r#frag", "o/./r", "./r"}) {
      CAPTURE(bad);
      CHECK_THROWS_WITH_AS(repository_from(bad, environment(env)), doctest::Contains("OWNER/NAME"), UsageError);
    }
    const std::map<std::string, std::string> bad_env{{"GITHUB_REPOSITORY", "a/b/c"}};
    CHECK_THROWS_AS(repository_from(std::nullopt, environment(bad_env)), UsageError);
  }
}

TEST_CASE("github::Api refuses a plain http API URL unless it is loopback") {
  FakeTransport transport;
  for (const std::string base :
       {"http://ghe.example.com/api/v3", "http://127.0.0.1.evil.example.com", "http://localhost.evil.example.com:8080",
        "https://user:pw@api.github.com", "api.github.com", "https://api.github.com/\x07"}) {
    CAPTURE(base);
    try {
      Api api(settings(120, base), transport);
      FAIL("no UsageError");
    } catch (const UsageError& error) {
      CHECK(std::string(error.what()).find("GITHUB_API_URL") != std::string::npos);
      CHECK(std::string(error.what()).find('\n') == std::string::npos);
      CHECK(std::string(error.what()).find('\x07') == std::string::npos);
    }
  }
  for (const std::string base : {"http://127.0.0.1:8080", "http://localhost:3000/api/v3", "http://[::1]:9000",
                                 "HTTP://LOCALHOST:3000", "https://ghe.example.com/api/v3"}) {
    CAPTURE(base);
    CHECK_NOTHROW(Api(settings(120, base), transport));
  }
  transport.respond(200);
  Api api(settings(120, "http://127.0.0.1:8080/api/v3"), transport);
  api.request("GET", "/repos/o/r/pulls/1");
  CHECK(transport.requests.at(0).url == "http://127.0.0.1:8080/api/v3/repos/o/r/pulls/1");
}

TEST_CASE("github::Api") {
  FakeTransport transport;
  FakeClock clock;

  SUBCASE("every request carries the headers and the token") {
    transport.respond(200, R"({"id":1})").respond(201, R"({"id":2})");
    Api api(settings(), transport, clock.sleep(), clock.now());
    CHECK(api.request("GET", "/repos/o/r/issues/1/comments?per_page=100").body == R"({"id":1})");
    CHECK(api.request("POST", "/repos/o/r/issues/1/comments", nlohmann::json{{"body", "hi"}}).status == 201);
    REQUIRE(transport.requests.size() == 2);
    for (const auto& request : transport.requests) {
      CHECK(std::ranges::count(request.headers, "Accept: application/vnd.github+json") == 1);
      CHECK(std::ranges::count(request.headers, "X-GitHub-Api-Version: 2022-11-28") == 1);
      CHECK(std::ranges::count(request.headers, std::string("Authorization: Bearer ") + k_token) == 1);
      CHECK(std::ranges::count_if(request.headers, [](const std::string& h) {
              return h.starts_with("User-Agent: refbench/") && h.size() > std::string("User-Agent: refbench/").size();
            }) == 1);
    }
    CHECK(transport.requests[0].method == "GET");
    CHECK(transport.requests[0].url == "https://api.github.com/repos/o/r/issues/1/comments?per_page=100");
    CHECK(transport.requests[0].body == "");
    CHECK(transport.requests[1].method == "POST");
    CHECK(transport.requests[1].url == "https://api.github.com/repos/o/r/issues/1/comments");
    CHECK(nlohmann::json::parse(transport.requests[1].body) == nlohmann::json{{"body", "hi"}});
    CHECK(std::ranges::count(transport.requests[1].headers, "Content-Type: application/json") == 1);
    CHECK(clock.sleeps.empty());
  }
  SUBCASE("the base URL is normalised and absolute URLs under it are used as they are") {
    transport.respond(200, "[]").respond(200, "[]");
    Api api(settings(120, "https://ghe.example.com/api/v3/"), transport, clock.sleep(), clock.now());
    api.request("GET", "/repos/o/r/pulls/3");
    api.request("GET", "https://ghe.example.com/api/v3/repositories/7/issues/3/comments?page=2");
    CHECK(transport.requests[0].url == "https://ghe.example.com/api/v3/repos/o/r/pulls/3");
    CHECK(transport.requests[1].url == "https://ghe.example.com/api/v3/repositories/7/issues/3/comments?page=2");
  }
  SUBCASE("retry-after, then success") {
    transport.respond(403, k_rate_limited, {{"retry-after", "1"}}).respond(200, "[]");
    Api api(settings(), transport, clock.sleep(), clock.now());
    CHECK(api.request("GET", "/repos/o/r/issues/1/comments").body == "[]");
    CHECK(transport.requests.size() == 2);
    CHECK(clock.sleeps == std::vector<double>{1});
  }
  SUBCASE("5xx and network errors back off, then success") {
    transport.respond(502, "<html>bad gateway</html>")
        .fail(TransportError::Kind::network, "Connection reset by peer")
        .respond(503)
        .respond(200, "[]");
    Api api(settings(), transport, clock.sleep(), clock.now());
    CHECK(api.request("GET", "/repos/o/r/issues/1/comments").status == 200);
    CHECK(clock.sleeps == std::vector<double>{1, 2, 4});
    CHECK(transport.requests.size() == 4);
    for (const auto& request : transport.requests) {
      CHECK(request.url == "https://api.github.com/repos/o/r/issues/1/comments");
    }
  }
  SUBCASE("the backoff counts 5xx and network failures, not rate-limit waits") {
    transport.respond(403, k_rate_limited, {{"retry-after", "1"}}).respond(502).respond(502).respond(200, "[]");
    Api api(settings(), transport, clock.sleep(), clock.now());
    CHECK(api.request("GET", "/repos/o/r/issues/1/comments").status == 200);
    CHECK(clock.sleeps == std::vector<double>{1, 1, 2});
  }
  SUBCASE("retry-after: 0 waits 1 s, so the total wait still ends it") {
    for (int i = 0; i < 40; ++i) {
      transport.respond(403, k_rate_limited, {{"retry-after", "0"}});
    }
    Api api(settings(5), transport, clock.sleep(), clock.now());
    auto error = api_error([&] { api.request("GET", "/repos/o/r/issues/1/comments"); });
    REQUIRE(error);
    CHECK(contains(error->what(), "--max-wait 5 s was spent before attempt 6"));
    CHECK(clock.sleeps == std::vector<double>{1, 1, 1, 1, 1});
    // each attempt had what was left of the 5 s, never its own 120 s
    REQUIRE(transport.requests.size() == 5);
    CHECK(transport.requests[0].timeout_seconds == 5);
    CHECK(transport.requests[4].timeout_seconds == 1);
  }
  SUBCASE("a slow answer counts against --max-wait: the next attempt gets only what is left") {
    Api api(settings(30), transport, clock.sleep(), clock.now());
    transport.respond(502).respond(200, "[]");
    transport.on_perform = [&] { clock.time += 20; }; // each answer takes 20 s
    CHECK(api.request("GET", "/repos/o/r/issues/1/comments").status == 200);
    REQUIRE(transport.requests.size() == 2);
    CHECK(transport.requests[0].timeout_seconds == 30);
    CHECK(transport.requests[1].timeout_seconds == doctest::Approx(9)); // 30 − 20 − the 1 s backoff
    transport.respond(200, "[]");
    auto error = api_error([&] { api.request("GET", "/repos/o/r/pulls/1"); });
    REQUIRE(error); // 41 s gone of 30
    CHECK(contains(error->what(), "was spent before attempt 1"));
  }
  SUBCASE("an exhausted rate limit waits until its reset") {
    const auto reset = std::to_string(static_cast<long>(clock.time) + 42);
    transport.respond(403, k_rate_limited, {{"x-ratelimit-remaining", "0"}, {"x-ratelimit-reset", reset}})
        .respond(200, "{}");
    Api api(settings(), transport, clock.sleep(), clock.now());
    api.request("GET", "/repos/o/r/pulls/1");
    CHECK(clock.sleeps == std::vector<double>{42});
  }
  SUBCASE("persistent 502 gives up within the total wait") {
    for (int i = 0; i < 20; ++i) {
      transport.respond(502, R"({"message":"Server Error"})");
    }
    Api api(settings(10), transport, clock.sleep(), clock.now());
    auto error = api_error([&] {
      api.request("PATCH", "/repos/o/r/issues/comments/9", nlohmann::json{{"body", "x"}});
    });
    REQUIRE(error);
    CHECK(error->status() == 502);
    CHECK(error->github_message() == "Server Error");
    CHECK(contains(error->what(), "gave up"));
    CHECK(contains(error->what(), "502"));
    CHECK(contains(error->what(), "4 attempts"));
    CHECK(contains(error->what(), "PATCH /repos/o/r/issues/comments/9"));
    CHECK(contains(error->hint(), "--max-wait"));
    CHECK(clock.sleeps == std::vector<double>{1, 2, 4});
    CHECK(std::accumulate(clock.sleeps.begin(), clock.sleeps.end(), 0.0) <= 10);
    CHECK(transport.requests.size() == 4);
    check_no_token(*error);
  }
  SUBCASE("a rate limit resetting after the total wait gives up at once") {
    const auto reset = std::to_string(static_cast<long>(clock.time) + 3600);
    transport.respond(403, k_rate_limited, {{"x-ratelimit-remaining", "0"}, {"x-ratelimit-reset", reset}});
    Api api(settings(120), transport, clock.sleep(), clock.now());
    auto error = api_error([&] { api.request("GET", "/repos/o/r/issues/1/comments"); });
    REQUIRE(error);
    CHECK(error->status() == 403);
    CHECK(contains(error->what(), "gave up after 1 attempt "));
    CHECK(contains(error->what(), "rate limit"));
    CHECK(clock.sleeps.empty());
    check_no_token(*error);
  }
  SUBCASE("401 is final and names the token") {
    transport.respond(401, R"({"message":"Bad credentials","documentation_url":"https://docs.github.com/rest"})");
    Api api(settings(), transport, clock.sleep(), clock.now());
    auto error = api_error([&] { api.request("GET", "/repos/o/r/issues/1/comments"); });
    REQUIRE(error);
    CHECK(error->status() == 401);
    CHECK(error->github_message() == "Bad credentials");
    CHECK(contains(error->what(), "401"));
    CHECK(contains(error->what(), "Bad credentials"));
    CHECK(contains(error->hint(), "token"));
    CHECK(transport.requests.size() == 1);
    CHECK(clock.sleeps.empty());
    check_no_token(*error);
  }
  SUBCASE("404 is final and names the repository and PR") {
    transport.respond(404, R"({"message":"Not Found","documentation_url":"https://docs.github.com/rest"})");
    Api api(settings(), transport, clock.sleep(), clock.now());
    auto error = api_error([&] { api.request("GET", "/repos/o/r/issues/1/comments"); });
    REQUIRE(error);
    CHECK(error->status() == 404);
    CHECK(contains(error->what(), "GET /repos/o/r/issues/1/comments"));
    CHECK(contains(error->hint(), "GITHUB_REPOSITORY"));
    CHECK(transport.requests.size() == 1);
    check_no_token(*error);
  }
  SUBCASE("a read-only token keeps GitHub's message") {
    transport.respond(403, R"({"message":"Resource not accessible by integration","status":"403"})");
    Api api(settings(), transport, clock.sleep(), clock.now());
    auto error = api_error([&] { api.request("POST", "/repos/o/r/issues/1/comments", nlohmann::json{{"body", "x"}}); });
    REQUIRE(error);
    CHECK(error->status() == 403);
    CHECK(error->github_message() == "Resource not accessible by integration");
    CHECK(transport.requests.size() == 1);
    check_no_token(*error);
  }
  SUBCASE("a TLS failure is final, status 0, with a CA hint") {
    transport.fail(TransportError::Kind::tls, "TLS failure: SSL certificate problem: unable to get local issuer");
    Api api(settings(), transport, clock.sleep(), clock.now());
    auto error = api_error([&] { api.request("GET", "/repos/o/r/issues/1/comments"); });
    REQUIRE(error);
    CHECK(error->status() == 0);
    CHECK(contains(error->what(), "unable to get local issuer"));
    CHECK(contains(error->hint(), "--cacert"));
    CHECK(transport.requests.size() == 1);
    check_no_token(*error);
  }
  SUBCASE("an answer past the size limit says so, and its hint is not about certificates") {
    transport.fail(TransportError::Kind::too_large, "the answer is longer than 32 MiB");
    Api api(settings(), transport, clock.sleep(), clock.now());
    auto error = api_error([&] { api.request("GET", "/repos/o/r/issues/1/comments"); });
    REQUIRE(error);
    CHECK(contains(error->what(), "longer than 32 MiB"));
    CHECK(contains(error->hint(), "GITHUB_API_URL"));
    CHECK_FALSE(contains(error->hint(), "--cacert"));
    check_no_token(*error);
  }
  SUBCASE("a link outside the base URL is refused before sending") {
    Api api(settings(), transport, clock.sleep(), clock.now());
    for (const std::string url : {"https://evil.example.com/repositories/1/issues/2/comments?page=2",
                                  "https://api.github.com.evil.example.com/repositories/1/issues/2/comments",
                                  "https://api.github.com@evil.example.com/repositories/1",
                                  "http://api.github.com/repositories/1/issues/2/comments?page=2"}) {
      CAPTURE(url);
      auto error = api_error([&] { api.request("GET", url); });
      REQUIRE(error);
      CHECK(error->status() == 0);
      CHECK(contains(error->what(), url));
      check_no_token(*error);
    }
    CHECK(transport.requests.empty());
  }
}
