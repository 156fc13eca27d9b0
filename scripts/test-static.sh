#!/usr/bin/env bash
# Builds the static release binary (scripts/build-static.sh), runs the unit
# tests (linked from the same objects) and the integration scenarios against
# the binary — the stripped dist/refbench itself, so what is released is
# what was tested (including
# the HTTPS comment scenarios, which make it find CAs through SSL_CERT_FILE
# and resolve localhost with static glibc). SCENARIOS="a b …" limits the
# scenarios to those named (CI names the ones where a static link differs:
# TLS, name lookup, the launcher's image, a whole run); default: all.
set -euo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"
export BUILD_DIR="${BUILD_DIR:-$root/build-static}" DIST="${DIST:-$root/dist}"
"$root/scripts/build-static.sh" -DREFBENCH_TESTS=ON
# the scenarios' sample program, and the unit tests (UNIT_TESTS=0 skips
# them: .ci/run ran them in the same build directory just before)
targets=(refbench-sample-work)
[ "${UNIT_TESTS:-1}" = 0 ] || targets+=(refbench_unit_tests)
cmake --build "$BUILD_DIR" -j"$(nproc)" --target "${targets[@]}" >/dev/null
"$root/scripts/install-deps.sh" # what the tests need besides the build
[ "${UNIT_TESTS:-1}" = 0 ] || (cd "$BUILD_DIR" && ctest --output-on-failure -R '^unit$')
failed=()
for scenario in "$root"/tests/integration/*.sh; do
  [ "$(basename "$scenario")" = lib.sh ] && continue
  name="$(basename "$scenario" .sh)"
  if [ -n "${SCENARIOS:-}" ] && [[ " $SCENARIOS " != *" $name "* ]]; then
    continue
  fi
  set +e
  REFBENCH="$DIST/refbench" SAMPLE_WORK="$BUILD_DIR/examples/work" timeout 300 bash "$scenario" >"$BUILD_DIR/$name.log" 2>&1
  rc=$?
  set -e
  case "$rc" in
    0) echo "static: $name passed" ;;
    125) echo "static: $name skipped: $(tail -1 "$BUILD_DIR/$name.log")" ;;
    *) echo "static: $name FAILED (exit $rc):"; tail -20 "$BUILD_DIR/$name.log"; failed+=("$name") ;;
  esac
done
if [ "${#failed[@]}" -ne 0 ]; then
  echo "static: ${#failed[@]} scenario(s) failed against $DIST/refbench: ${failed[*]}" >&2
  exit 1
fi
echo "static: every scenario passed against $DIST/refbench"
