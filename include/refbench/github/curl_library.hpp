#pragma once
// libcurl, loaded when the first request is made rather than at start-up.
// refbench re-executes itself as the launcher of every benchmarked command,
// and the launcher's resident pages count in each RSS reading: linking
// libcurl.so and its ~30 dependencies raised that floor from ~4 MiB to
// ~10 MiB. Loading it with dlopen keeps the launcher lean. The static
// release build (REFBENCH_CURL_LINKED) links libcurl in instead: a static
// executable cannot dlopen, and links only the pages it uses.

#include <curl/curl.h>

namespace refbench::github {

// The libcurl entry points refbench uses.
struct CurlLibrary {
  CURLcode (*global_init)(long flags);
  CURL* (*easy_init)();
  void (*easy_cleanup)(CURL*);
  void (*easy_reset)(CURL*);
  CURLcode (*easy_setopt)(CURL*, CURLoption, ...);
  CURLcode (*easy_perform)(CURL*);
  CURLcode (*easy_getinfo)(CURL*, CURLINFO, ...);
  const char* (*easy_strerror)(CURLcode);
  curl_slist* (*slist_append)(curl_slist*, const char*);
  void (*slist_free_all)(curl_slist*);
};

// libcurl (libcurl.so.4, OpenSSL flavour), loaded and initialised once;
// throws UsageError naming the package to install when it cannot be loaded.
const CurlLibrary& curl_library();

} // namespace refbench::github
