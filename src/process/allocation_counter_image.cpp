#include <refbench/process/counters.hpp>

// The allocation counter's shared object, built from allocation_counter.c
// (src/CMakeLists.txt names its path) and carried in the binary's rodata.
__asm__(".section .rodata.refbench_allocation_counter,\"a\"\n"
        ".balign 16\n"
        ".globl refbench_allocation_counter_begin\n"
        ".hidden refbench_allocation_counter_begin\n"
        "refbench_allocation_counter_begin:\n"
        ".incbin \"" REFBENCH_ALLOCATION_COUNTER_SO "\"\n"
        ".globl refbench_allocation_counter_end\n"
        ".hidden refbench_allocation_counter_end\n"
        "refbench_allocation_counter_end:\n"
        ".previous\n");

extern "C" const unsigned char refbench_allocation_counter_begin[];
extern "C" const unsigned char refbench_allocation_counter_end[];

namespace refbench::process {

std::string_view allocation_counter_image() {
  return {reinterpret_cast<const char*>(refbench_allocation_counter_begin),
          static_cast<std::size_t>(refbench_allocation_counter_end - refbench_allocation_counter_begin)};
}

} // namespace refbench::process
