#include <refbench/github/curl_library.hpp>
#include <refbench/util/error.hpp>

#include <dlfcn.h>
#include <mutex>
#include <string>

namespace refbench::github {
namespace {

#if defined(REFBENCH_CURL_LINKED)
// The static build links libcurl in (dlopen cannot load a shared library
// into a static executable); only the pages in use are touched.
CurlLibrary load() {
  CurlLibrary curl{&curl_global_init,  &curl_easy_init,     &curl_easy_cleanup, &curl_easy_reset,
                   &curl_easy_setopt,  &curl_easy_perform,  &curl_easy_getinfo, &curl_easy_strerror,
                   &curl_slist_append, &curl_slist_free_all};
  if (curl.global_init(CURL_GLOBAL_DEFAULT) != CURLE_OK) {
    throw UsageError("libcurl could not be initialised", "check the build of the static binary");
  }
  return curl;
}
#else
template <typename Function> void bind(void* library, const char* name, Function& function) {
  void* symbol = dlsym(library, name);
  if (symbol == nullptr) {
    throw UsageError(std::string("libcurl.so.4 has no ") + name,
                     "install a libcurl 7.85 or newer (apt-get install libcurl4)");
  }
  function = reinterpret_cast<Function>(symbol);
}

CurlLibrary load() {
  void* library = dlopen("libcurl.so.4", RTLD_NOW | RTLD_LOCAL);
  if (library == nullptr) {
    const char* why = dlerror();
    throw UsageError(std::string("cannot load libcurl: ") + (why ? why : "libcurl.so.4 not found"),
                     "install libcurl with OpenSSL (apt-get install libcurl4, dnf install libcurl, apk add libcurl)");
  }
  CurlLibrary curl{};
  bind(library, "curl_global_init", curl.global_init);
  bind(library, "curl_easy_init", curl.easy_init);
  bind(library, "curl_easy_cleanup", curl.easy_cleanup);
  bind(library, "curl_easy_reset", curl.easy_reset);
  bind(library, "curl_easy_setopt", curl.easy_setopt);
  bind(library, "curl_easy_perform", curl.easy_perform);
  bind(library, "curl_easy_getinfo", curl.easy_getinfo);
  bind(library, "curl_easy_strerror", curl.easy_strerror);
  bind(library, "curl_slist_append", curl.slist_append);
  bind(library, "curl_slist_free_all", curl.slist_free_all);
  if (curl.global_init(CURL_GLOBAL_DEFAULT) != CURLE_OK) {
    throw UsageError("libcurl could not be initialised", "check the libcurl installation");
  }
  return curl; // the library stays loaded for the life of the process
}
#endif

} // namespace

const CurlLibrary& curl_library() {
  static std::once_flag once;
  static CurlLibrary curl;
  std::call_once(once, [] { curl = load(); });
  return curl;
}

} // namespace refbench::github
