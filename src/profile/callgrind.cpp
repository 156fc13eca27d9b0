#include <refbench/profile/callgrind.hpp>
