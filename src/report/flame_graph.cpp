#include <refbench/report/flame_graph.hpp>
