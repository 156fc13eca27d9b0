// The calibration suite: statistical claims of docs/manual/statistics.md checked by
// simulation with fixed seeds. A larger run: bench/calibration.sh.
#define DOCTEST_CONFIG_IMPLEMENT_WITH_MAIN
#include <doctest/doctest.h>
