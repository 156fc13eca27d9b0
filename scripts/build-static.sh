#!/usr/bin/env bash
# Builds the release binary: refbench linked fully statically (no dynamic
# section), with a minimal HTTPS-only libcurl built from Debian's curl source
# package against Debian's static OpenSSL (Debian's own libcurl.a needs
# GSSAPI, LDAP, … archives that Debian does not ship). The Dockerfile and
# the release workflow call this script; it is the one recipe.
#   scripts/build-static.sh [CMAKE_ARGS...]
# Environment: BUILD_DIR (default build-static/), DIST (default dist/).
# Prints the binary's path, size and `file` line; the stripped binary is
# $DIST/refbench.
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

# --- libcurl from Debian's source package, once per build directory
curl_dir="$build/curl"
prefix="$curl_dir/prefix"
if [ ! -s "$prefix/lib/libcurl.a" ]; then
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
  rm -rf "$curl_dir"
  mkdir -p "$curl_dir"
  (cd "$curl_dir" && apt-get source -qq --download-only curl 2>/dev/null)
  dsc="$(ls "$curl_dir"/curl_*.dsc)"
  # apt checked the files against the archive's signed Sources index; the
  # uploader's own signature on the .dsc cannot be checked without their key
  dpkg-source -q -x "$dsc" "$curl_dir/src" >"$curl_dir/unpack.log" 2>&1 ||
    { cat "$curl_dir/unpack.log" >&2; exit 1; }
  echo "build-static: configuring libcurl $(basename "$dsc" .dsc | cut -d_ -f2) (HTTPS only)"
  (
    cd "$curl_dir/src"
    ./configure -q --prefix="$prefix" --disable-shared --enable-static --with-openssl \
      --without-libpsl --without-libidn2 --without-nghttp2 --without-brotli --without-zstd --without-zlib \
      --without-librtmp --without-libssh2 --without-gssapi --without-ca-bundle --without-ca-path \
      --disable-ldap --disable-ldaps --disable-rtsp --disable-dict --disable-telnet --disable-tftp \
      --disable-pop3 --disable-imap --disable-smb --disable-smtp --disable-gopher --disable-mqtt \
      --disable-ftp --disable-file --disable-manual --disable-ntlm --disable-alt-svc --disable-cookies \
      >/dev/null
    make -s -C lib -j"$(nproc)" >/dev/null 2>&1
    make -s -C lib install >/dev/null
    make -s -C include install >/dev/null
  )
fi

# --- refbench itself (-O2: GCC 12 at -O3 warns falsely in libstdc++'s string code)
cmake -S "$root" -B "$build" -DCMAKE_BUILD_TYPE=RelWithDebInfo -DREFBENCH_STATIC=ON \
  -DREFBENCH_CURL_PREFIX="$prefix" -DREFBENCH_WERROR=ON -DREFBENCH_TESTS=OFF "$@" >/dev/null
cmake --build "$build" -j"$(nproc)" >/dev/null
if ! readelf -d "$build/src/refbench" | grep -q "no dynamic section"; then
  echo "build-static: $build/src/refbench has a dynamic section; it is not fully static" >&2
  exit 1
fi
# an indexed unwind table, so that the first exception is cheap (cmake/static.cmake)
if ! readelf -lW "$build/src/refbench" | grep -q "GNU_EH_FRAME"; then
  echo "build-static: $build/src/refbench has no PT_GNU_EH_FRAME; its first exception would sort every unwind entry" >&2
  exit 1
fi
mkdir -p "$dist"
# copied rather than written by strip: the file strip writes can sit in the
# page cache in a form that maps far more of the binary per page fault (a
# launcher floor of 6.1 MiB instead of 2.0 MiB was measured for it)
strip -o "$build/refbench.stripped" "$build/src/refbench"
rm -f "$dist/refbench"
cp "$build/refbench.stripped" "$dist/refbench"
echo "build-static: $dist/refbench, $(stat -c %s "$dist/refbench") bytes stripped"
if command -v file >/dev/null; then file "$dist/refbench"; fi
