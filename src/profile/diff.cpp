#include <refbench/profile/diff.hpp>
