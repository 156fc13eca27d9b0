# REFBENCH_FUZZ: libFuzzer binaries of the readers (tests/fuzz). Clang:
# -fsanitize=fuzzer. GCC (clang 14 has no std::expected with libstdc++ 12):
# comparison tracing (-fsanitize-coverage=trace-cmp, which libFuzzer's value
# profile follows) and clang's libFuzzer runtime linked in. Every object is
# instrumented, so a fuzz build directory builds only `refbench_fuzz`; add
# REFBENCH_SANITIZE=ON for ASan + UBSan.
option(REFBENCH_FUZZ "Build the libFuzzer targets of tests/fuzz (a build directory of its own)" OFF)
if(REFBENCH_FUZZ)
  if(CMAKE_CXX_COMPILER_ID STREQUAL "Clang")
    add_compile_options(-fsanitize=fuzzer-no-link)
    set(REFBENCH_FUZZ_LINK -fsanitize=fuzzer)
  else()
    file(GLOB REFBENCH_FUZZER_RUNTIMES /usr/lib/llvm-*/lib/clang/*/lib/linux/libclang_rt.fuzzer-x86_64.a)
    if(NOT REFBENCH_FUZZER_RUNTIMES)
      message(FATAL_ERROR "REFBENCH_FUZZ needs libFuzzer: apt-get install clang libclang-rt-14-dev")
    endif()
    list(GET REFBENCH_FUZZER_RUNTIMES -1 REFBENCH_FUZZER_RUNTIME)
    add_compile_options(-fsanitize-coverage=trace-cmp)
    set(REFBENCH_FUZZ_LINK ${REFBENCH_FUZZER_RUNTIME})
  endif()
endif()
