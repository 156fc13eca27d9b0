#include <refbench/process/fake_executor.hpp>

namespace refbench::process {

FakeExecutor::FakeExecutor(Script script, RssProbe probe) : m_script(std::move(script)), m_probe(std::move(probe)) {}

Outcome FakeExecutor::run(const Invocation& invocation) {
  Outcome outcome = m_script(invocation, m_calls.size());
  m_calls.push_back(invocation);
  m_now += outcome.readings[Reading::wall];
  return outcome;
}

} // namespace refbench::process
