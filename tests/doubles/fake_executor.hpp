#pragma once
// An Executor that never spawns: outcomes come from a script function, time
// advances by each outcome's wall. The rounds, pipeline and statistics tests
// use it; it is linked into no binary that ships (tests/doubles/).

#include <refbench/process/executor.hpp>

#include <functional>
#include <vector>

namespace refbench::doubles {

class FakeExecutor final : public process::Executor {
public:
  // `script(invocation, index)` produces the outcome of the `index`-th call.
  using Script = std::function<model::Outcome(const model::Invocation&, std::size_t)>;
  explicit FakeExecutor(Script script, model::RssProbe probe = {"fake", 1 << 20, 0});

  model::Outcome run(const model::Invocation& invocation) override;
  model::RssProbe rss_probe() const override { return m_probe; }

  // Every invocation received, in order.
  const std::vector<model::Invocation>& calls() const { return m_calls; }
  // Simulated seconds elapsed: the sum of the walls returned so far.
  double now() const { return m_now; }

private:
  Script m_script;
  model::RssProbe m_probe;
  std::vector<model::Invocation> m_calls;
  double m_now = 0;
};

} // namespace refbench::doubles
