# Finds every dependency from the system; a missing one stops configure with
# the Debian package that provides it.
macro(refbench_require name apt_package)
  find_package(${name} ${ARGN} QUIET)
  if(NOT ${name}_FOUND)
    message(FATAL_ERROR
      "refbench: missing dependency ${name} — install it with "
      "`apt-get install ${apt_package}` (or run scripts/install-deps.sh)")
  endif()
endmacro()

set(THREADS_PREFER_PTHREAD_FLAG ON)
find_package(Threads REQUIRED)
refbench_require(CLI11 libcli11-dev CONFIG)
refbench_require(fmt libfmt-dev CONFIG)
refbench_require(nlohmann_json nlohmann-json3-dev CONFIG)
# toml++ is used header-only (TOML_HEADER_ONLY=1, see src/CMakeLists.txt):
# Debian's compiled libtomlplusplus.so would drag the shared libstdc++ back in.
refbench_require(tomlplusplus libtomlplusplus-dev CONFIG)
refbench_require(Boost libboost-math-dev)
# libcrypto is linked statically: only the SHA-256 code refbench uses ends up
# in the binary, so the launcher (this binary re-executed) does not map all
# of libcrypto, which would add ~1.4 MiB to the RSS floor of every reading.
set(OPENSSL_USE_STATIC_LIBS TRUE)
refbench_require(OpenSSL libssl-dev)
refbench_require(CURL libcurl4-openssl-dev)

if(REFBENCH_TESTS)
  refbench_require(doctest doctest-dev CONFIG)
endif()
