#include <refbench/git/worktree.hpp>
