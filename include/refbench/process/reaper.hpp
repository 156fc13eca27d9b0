#pragma once
// Descendants that outlive their invocation: a command may start a child
// that leaves its process group (`setsid cmd &`), out of reach of the
// group kill. The launcher makes itself their reaper (orphans are re-parented
// to it instead of init) and kills them after each invocation.

namespace refbench::process {

// Makes the calling process the reaper of its orphaned descendants
// (PR_SET_CHILD_SUBREAPER); false when the kernel refuses.
bool become_subreaper();

// Kills (SIGKILL) and reaps every child of the calling process, then the
// children re-parented to it by those deaths, until none is left. Returns
// how many it reaped. Only for a process whose every child is disposable.
int kill_all_children();

// Kills (SIGKILL) and reaps every child of the calling (possibly
// multi-threaded) process but `keep`, found by their parent pid in /proc:
// what a build left running, once refbench has reaped it as the subreaper.
// Returns how many it reaped.
int kill_children_except(int keep);

} // namespace refbench::process
