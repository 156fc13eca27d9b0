#include <refbench/runner/preflight.hpp>
