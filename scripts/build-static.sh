#!/usr/bin/env bash
# Builds the release binary: refbench linked fully statically (no dynamic
# section), with a minimal HTTPS-only libcurl built from Debian's curl source
# package against Debian's static OpenSSL (Debian's own libcurl.a needs
# GSSAPI, LDAP, … archives that Debian does not ship). The Dockerfile and
# the release workflow call this script; it is the one recipe.
#   scripts/build-static.sh [CMAKE_ARGS...]
#   scripts/build-static.sh --prepare   only what needs apt (below)
#   scripts/build-static.sh --libcurl   only the libcurl, into its cache
# --libcurl takes none of apt's locks once --prepare has run, so it can
# build while apt installs other packages (.ci/run does).
# Environment: BUILD_DIR (default build-static/), DIST (default dist/),
# REFBENCH_CACHE (default /var/cache/refbench).
# Prints the binary's path, size and `file` line; the stripped binary is
# $DIST/refbench.
#
# The libcurl build is cached outside the clone, in
# $REFBENCH_CACHE/curl-<Debian source version>-<key>/, where <key> is the
# first 16 hex digits of the SHA-256 of its configure flags, the C compiler's
# version line, CFLAGS, libssl-dev's version and the machine architecture:
# a new curl upload to Debian, a changed flag or compiler builds afresh, and
# anything else reuses it (the directory a CI cache would save and restore).
# The version comes from apt's index (`apt-get source --print-uris`), so a
# cache hit downloads nothing. A miss builds in a temporary directory beside
# it and renames the result into place, so an interrupted or concurrent
# build never leaves a half-built libcurl there. Remove the directory to
# force a rebuild.
set -euo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"
build="${BUILD_DIR:-$root/build-static}"
dist="${DIST:-$root/dist}"
sudo=""
if [ "$(id -u)" -ne 0 ]; then
  command -v sudo >/dev/null || { echo "build-static: run as root or install sudo" >&2; exit 1; }
  sudo="sudo"
fi

"$root/scripts/install-deps.sh" --build-only
# dpkg-dev unpacks (and verifies) the source package
if ! dpkg-query -W -f='${Status}' dpkg-dev 2>/dev/null | grep -q "install ok installed"; then
  DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq --no-install-recommends dpkg-dev >/dev/null
fi

# --- libcurl from Debian's source package, cached outside the clone (see above)
if ! grep -rqsE '^(Types:.*deb-src|deb-src )' /etc/apt/sources.list /etc/apt/sources.list.d/; then
  echo "build-static: enabling Debian's source packages (deb-src)"
  if [ -f /etc/apt/sources.list.d/debian.sources ]; then
    sed 's/^Types: deb$/Types: deb-src/' /etc/apt/sources.list.d/debian.sources |
      $sudo tee /etc/apt/sources.list.d/refbench-deb-src.sources >/dev/null
  else
    sed -n 's/^deb /deb-src /p' /etc/apt/sources.list | $sudo tee /etc/apt/sources.list.d/refbench-deb-src.list >/dev/null
  fi
  $sudo apt-get update -qq
fi
[ "${1:-}" != --prepare ] || exit 0

# the .dsc that `apt-get source` would fetch, e.g. curl_7.88.1-10+deb12u12.dsc
# (its second field; the first is the URL-encoded URI)
dsc_name="$(apt-get source --print-uris -qq curl 2>/dev/null | awk '$2 ~ /^curl_.*\.dsc$/ { print $2; exit }')"
if [ -z "$dsc_name" ]; then
  echo "build-static: apt knows no curl source package; run apt-get update" >&2
  exit 1
fi
curl_version="${dsc_name#curl_}"
curl_version="${curl_version%.dsc}"
curl_flags=(--disable-shared --enable-static --with-openssl
  --without-libpsl --without-libidn2 --without-nghttp2 --without-brotli --without-zstd --without-zlib
  --without-librtmp --without-libssh2 --without-gssapi --without-ca-bundle --without-ca-path
  --disable-ldap --disable-ldaps --disable-rtsp --disable-dict --disable-telnet --disable-tftp
  --disable-pop3 --disable-imap --disable-smb --disable-smtp --disable-gopher --disable-mqtt
  --disable-ftp --disable-file --disable-manual --disable-ntlm --disable-alt-svc --disable-cookies)
curl_key="$(
  printf '%s\n' "${curl_flags[@]}"
  "${CC:-cc}" --version | head -1
  echo "CFLAGS=${CFLAGS:-}"
  dpkg-query -W -f='libssl-dev ${Version}\n' libssl-dev
  uname -m
)"
cache="${REFBENCH_CACHE:-/var/cache/refbench}"
prefix="$cache/curl-$curl_version-$(printf '%s' "$curl_key" | sha256sum | cut -c1-16)"
if [ -s "$prefix/lib/libcurl.a" ]; then
  echo "build-static: libcurl $curl_version (HTTPS only) from the cache, $prefix"
else
  if ! mkdir -p "$cache" 2>/dev/null; then
    $sudo mkdir -p "$cache"
    $sudo chown "$(id -u):$(id -g)" "$cache"
  fi
  work="$(mktemp -d "$cache/.build-curl.XXXXXX")"
  trap 'rm -rf "$work"' EXIT
  (cd "$work" && apt-get source -qq --download-only curl 2>/dev/null)
  # apt checked the files against the archive's signed Sources index; the
  # uploader's own signature on the .dsc cannot be checked without their key
  dpkg-source -q -x "$work/$dsc_name" "$work/src" >"$work/unpack.log" 2>&1 ||
    { cat "$work/unpack.log" >&2; exit 1; }
  echo "build-static: configuring libcurl $curl_version (HTTPS only) for $prefix"
  (
    cd "$work/src"
    ./configure -q --prefix="$prefix" "${curl_flags[@]}" >/dev/null
    make -s -C lib -j"$(nproc)" >/dev/null 2>&1
    # staged, then renamed into place in one step (libtool's note that a
    # staged library needs `libtool --finish` does not apply to a static one)
    { make -s -C lib install DESTDIR="$work/stage" && make -s -C include install DESTDIR="$work/stage"; } \
      >/dev/null 2>"$work/install.log" || { cat "$work/install.log" >&2; exit 1; }
    printf '%s\n' "$curl_key" >"$work/stage$prefix/key"
  )
  # the rename fails when a concurrent build put its libcurl there first: that one is used
  if ! mv -T "$work/stage$prefix" "$prefix" 2>/dev/null && [ ! -s "$prefix/lib/libcurl.a" ]; then
    echo "build-static: cannot move the libcurl build into $prefix" >&2
    exit 1
  fi
  rm -rf "$work"
  trap - EXIT
fi

[ "${1:-}" != --libcurl ] || exit 0

# --- refbench itself (-O2: GCC 12 at -O3 warns falsely in libstdc++'s string code).
# Only the static binary's target: in a development build directory (same
# flags) that compiles one file and links, since both binaries share objects.
cmake -S "$root" -B "$build" -DCMAKE_BUILD_TYPE=RelWithDebInfo -DREFBENCH_STATIC=ON \
  -DREFBENCH_CURL_PREFIX="$prefix" -DREFBENCH_WERROR=ON -DREFBENCH_TESTS=OFF "$@" >/dev/null
cmake --build "$build" -j"$(nproc)" --target refbench_static >/dev/null
bin="$build/src/refbench-static"
if ! readelf -d "$bin" | grep -q "no dynamic section"; then
  echo "build-static: $bin has a dynamic section; it is not fully static" >&2
  exit 1
fi
# an indexed unwind table, so that the first exception is cheap (cmake/static.cmake)
if ! readelf -lW "$bin" | grep -q "GNU_EH_FRAME"; then
  echo "build-static: $bin has no PT_GNU_EH_FRAME; its first exception would sort every unwind entry" >&2
  exit 1
fi
# libcurl linked in, not the development build's dlopen of libcurl.so.4 (src/CMakeLists.txt)
if grep -q "cannot load libcurl" "$bin"; then
  echo "build-static: $bin holds the dlopen variant of github/curl_library.cpp; it could not reach GitHub" >&2
  exit 1
fi
mkdir -p "$dist"
# copied rather than written by strip: the file strip writes can sit in the
# page cache in a form that maps far more of the binary per page fault (a
# launcher floor of 6.1 MiB instead of 2.0 MiB was measured for it)
strip -o "$build/refbench.stripped" "$bin"
rm -f "$dist/refbench"
cp "$build/refbench.stripped" "$dist/refbench"
echo "build-static: $dist/refbench, $(stat -c %s "$dist/refbench") bytes stripped"
if command -v file >/dev/null; then file "$dist/refbench"; fi
