#pragma once
// A scripted github::Transport: answers requests from a queue of outcomes
// and records every request, plus a fake clock for Api's sleep and now.

#include <refbench/github/http.hpp>

#include <deque>
#include <expected>
#include <functional>
#include <map>
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

namespace refbench::test {

class FakeTransport : public github::Transport {
public:
  // Queues a response with `status`, JSON `body` and lower-case `headers`.
  FakeTransport& respond(long status, std::string body = "{}", std::map<std::string, std::string> headers = {}) {
    m_outcomes.push_back(github::HttpResponse{status, std::move(headers), std::move(body)});
    return *this;
  }

  // Queues a request that gets no response.
  FakeTransport& fail(github::TransportError::Kind kind, std::string message) {
    m_outcomes.push_back(std::unexpected(github::TransportError{kind, std::move(message)}));
    return *this;
  }

  github::HttpOutcome perform(const github::HttpRequest& request) override {
    requests.push_back(request);
    if (on_perform) {
      on_perform(); // e.g. a slow answer: a fake clock moves on
    }
    if (m_outcomes.empty()) {
      throw std::logic_error("FakeTransport: no outcome queued for " + request.method + " " + request.url);
    }
    github::HttpOutcome outcome = std::move(m_outcomes.front());
    m_outcomes.pop_front();
    return outcome;
  }

  std::size_t pending() const { return m_outcomes.size(); }

  std::vector<github::HttpRequest> requests;
  std::function<void()> on_perform; // called as each request is performed

private:
  std::deque<github::HttpOutcome> m_outcomes;
};

// The time Api sees: starts at `time` and moves forward by every sleep.
struct FakeClock {
  double time = 1'700'000'000;
  std::vector<double> sleeps;

  std::function<void(double)> sleep() {
    return [this](double seconds) {
      sleeps.push_back(seconds);
      time += seconds;
    };
  }
  std::function<double()> now() {
    return [this] { return time; };
  }
};

} // namespace refbench::test
