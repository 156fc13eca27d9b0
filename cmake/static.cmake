# The release build (REFBENCH_STATIC=ON, driven by scripts/build-static.sh):
# one executable with no dynamic section, libcurl and OpenSSL linked in, so
# it runs on any Linux runner without installing libraries. The development
# build loads the system's libcurl on first use instead (see
# include/refbench/github/curl_library.hpp).
if(REFBENCH_STATIC)
  if(REFBENCH_SANITIZE)
    message(FATAL_ERROR "refbench: REFBENCH_STATIC and REFBENCH_SANITIZE cannot be combined")
  endif()
  if(NOT EXISTS "${REFBENCH_CURL_PREFIX}/lib/libcurl.a")
    message(FATAL_ERROR
      "refbench: REFBENCH_STATIC needs a static libcurl at REFBENCH_CURL_PREFIX/lib/libcurl.a "
      "(got '${REFBENCH_CURL_PREFIX}') — build with scripts/build-static.sh, which makes one")
  endif()
  add_compile_options(-ffunction-sections -fdata-sections)
  find_package(OpenSSL REQUIRED) # static: OPENSSL_USE_STATIC_LIBS (cmake/deps.cmake)
  add_library(refbench_static_curl STATIC IMPORTED)
  set_target_properties(refbench_static_curl PROPERTIES
    IMPORTED_LOCATION "${REFBENCH_CURL_PREFIX}/lib/libcurl.a"
    INTERFACE_INCLUDE_DIRECTORIES "${REFBENCH_CURL_PREFIX}/include"
    INTERFACE_COMPILE_DEFINITIONS "CURL_STATICLIB;REFBENCH_CURL_LINKED=1"
    INTERFACE_LINK_LIBRARIES "OpenSSL::SSL;OpenSSL::Crypto;Threads::Threads")
endif()

# Makes the executable `target` fully static when REFBENCH_STATIC is on.
function(refbench_static target)
  if(REFBENCH_STATIC)
    # drop the unused functions of OpenSSL and libcurl from the image
    target_link_options(${target} PRIVATE -static -Wl,--gc-sections)
  endif()
endfunction()
