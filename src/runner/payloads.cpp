#include <refbench/runner/payloads.hpp>
