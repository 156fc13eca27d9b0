#pragma once
// The Executor interface: the scheduler runs invocations through it, so it
// can be tested with a fake that never spawns.

#include <refbench/model/invocation.hpp>
#include <refbench/model/rss_probe.hpp>

namespace refbench::process {

class Executor {
public:
  virtual ~Executor() = default;
  // Runs `invocation` to completion and reports how it ended and what it
  // cost; throws InterruptedError when refbench is interrupted meanwhile.
  virtual model::Outcome run(const model::Invocation& invocation) = 0;
  // The RSS method and floor of this executor.
  virtual model::RssProbe rss_probe() const = 0;
};

} // namespace refbench::process
