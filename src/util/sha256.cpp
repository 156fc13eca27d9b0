#include <refbench/util/sha256.hpp>
