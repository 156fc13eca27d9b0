#pragma once
// Reading the facts about the machine a run measures on.

#include <refbench/process/machine_facts.hpp>

namespace refbench::process {

// Reads the facts from uname, /proc/cpuinfo and /sys/devices/system/cpu.
MachineFacts machine_facts();

} // namespace refbench::process
