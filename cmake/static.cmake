# The release binary (REFBENCH_STATIC=ON, driven by scripts/build-static.sh):
# src/refbench-static, one executable with no dynamic section, libcurl and
# OpenSSL linked in, so it runs on any Linux runner without installing
# libraries. The development binary, src/refbench, loads the system's
# libcurl on first use instead (include/refbench/github/curl_library.hpp).
# Both link the same objects: every build compiles with the section flags
# the static link's --gc-sections needs, so turning REFBENCH_STATIC on in a
# development build directory compiles one file and links one binary.
add_compile_options(-ffunction-sections -fdata-sections)
if(REFBENCH_STATIC)
  if(REFBENCH_SANITIZE)
    message(FATAL_ERROR "refbench: REFBENCH_STATIC and REFBENCH_SANITIZE cannot be combined")
  endif()
  if(NOT EXISTS "${REFBENCH_CURL_PREFIX}/lib/libcurl.a")
    message(FATAL_ERROR
      "refbench: REFBENCH_STATIC needs a static libcurl at REFBENCH_CURL_PREFIX/lib/libcurl.a "
      "(got '${REFBENCH_CURL_PREFIX}') — build with scripts/build-static.sh, which makes one")
  endif()
  find_package(OpenSSL REQUIRED) # static: OPENSSL_USE_STATIC_LIBS (cmake/deps.cmake)
  add_library(refbench_static_curl STATIC IMPORTED)
  set_target_properties(refbench_static_curl PROPERTIES
    IMPORTED_LOCATION "${REFBENCH_CURL_PREFIX}/lib/libcurl.a"
    INTERFACE_INCLUDE_DIRECTORIES "${REFBENCH_CURL_PREFIX}/include"
    INTERFACE_COMPILE_DEFINITIONS "CURL_STATICLIB;REFBENCH_CURL_LINKED=1"
    INTERFACE_LINK_LIBRARIES "OpenSSL::SSL;OpenSSL::Crypto;Threads::Threads")

  # The first exception thrown (CLI11 throws one for --version and --help)
  # must not sort every unwind table entry of the image. With -static, gcc
  # links crtbeginT.o, which registers .eh_frame with libgcc's unwinder; the
  # unwinder then sorts all of its ~17 000 entries on the first throw (57 M
  # instructions: `refbench --version` took 3.9x /bin/true). crtbegin.o, the
  # start file of a dynamic non-PIE link, registers nothing; with the sorted
  # table ld writes for --eh-frame-hdr (PT_GNU_EH_FRAME), the unwinder finds
  # entries by binary search through dl_iterate_phdr, which static glibc
  # serves for the executable itself, as in a static-pie link. -B puts a copy
  # of crtbegin.o named crtbeginT.o first on gcc's start-file search path.
  execute_process(
    COMMAND ${CMAKE_CXX_COMPILER} -print-file-name=crtbegin.o
    OUTPUT_VARIABLE refbench_crtbegin OUTPUT_STRIP_TRAILING_WHITESPACE)
  if(NOT EXISTS "${refbench_crtbegin}")
    message(FATAL_ERROR "refbench: ${CMAKE_CXX_COMPILER} has no crtbegin.o ('${refbench_crtbegin}')")
  endif()
  set(REFBENCH_STATIC_CRT_DIR "${CMAKE_BINARY_DIR}/static-crt")
  configure_file("${refbench_crtbegin}" "${REFBENCH_STATIC_CRT_DIR}/crtbeginT.o" COPYONLY)
endif()

# Makes the executable `target` fully static when REFBENCH_STATIC is on.
function(refbench_static target)
  if(REFBENCH_STATIC)
    # drop the unused functions of OpenSSL and libcurl from the image; an
    # indexed unwind table and no frame registration (see above)
    target_link_options(${target} PRIVATE -static -Wl,--gc-sections
      "-B${REFBENCH_STATIC_CRT_DIR}/" -Wl,--eh-frame-hdr)
  endif()
endfunction()
