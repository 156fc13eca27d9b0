#pragma once
// Reading the facts about the machine a run measures on.

#include <refbench/model/machine_facts.hpp>

namespace refbench::process {

// Reads the facts from uname, /proc/cpuinfo and /sys/devices/system/cpu.
model::MachineFacts machine_facts();

} // namespace refbench::process
