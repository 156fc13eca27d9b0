#pragma once
// What the rounds tell as they go (docs/manual/output-files.md details): a sample,
// a hook's run, the control added, a cell stopped, a tree changed. runner
// calls it; formats::JournalWriter writes it as journal.jsonl's lines.

#include <refbench/model/record.hpp>

#include <string>
#include <vector>

namespace refbench::model {

// One setup, prepare or cleanup run of a cell's hook, as the journal has it.
struct HookRun {
  Arm arm = Arm::baseline;
  Hook hook = Hook::setup;
  int round = 0;
  bool ok = true;
  double wall = 0;
  std::string description; // what went wrong; "" when it succeeded
  std::string stderr_tail; // "" when it succeeded
};

// What the rounds record as they go, each as it happens, so a killed run
// loses at most the invocation in flight: formats::JournalWriter writes it
// as journal.jsonl's lines.
class RoundLog {
public:
  virtual ~RoundLog() = default;
  // A measured invocation (warm-up ones too, as round 0), of cells[sample.cell].
  virtual void sample(const Sample& sample, const std::vector<CellRecord>& cells) = 0;
  virtual void hook(const HookRun& run, const CellRecord& cell) = 0;
  // The automatic A/A control, added during the run as the control of `of`.
  virtual void control_added(const CellRecord& control, const std::string& of) = 0;
  // `cell` stopped, for its `stop` reason after its `rounds`.
  virtual void stopped(const CellRecord& cell) = 0;
  // The arms' trees changed after `round` (docs/manual/security.md).
  virtual void tree_changed(int round, const std::string& change) = 0;
};

} // namespace refbench::model
