#include <doubles/fake_executor.hpp>

namespace refbench::doubles {

FakeExecutor::FakeExecutor(Script script, model::RssProbe probe)
    : m_script(std::move(script)), m_probe(std::move(probe)) {}

model::Outcome FakeExecutor::run(const model::Invocation& invocation) {
  model::Outcome outcome = m_script(invocation, m_calls.size());
  m_calls.push_back(invocation);
  m_now += outcome.readings[model::Reading::wall];
  return outcome;
}

} // namespace refbench::doubles
