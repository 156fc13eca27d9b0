#include <refbench/git/refs.hpp>
