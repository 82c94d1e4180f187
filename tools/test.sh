#!/usr/bin/env bash
# Runs the whole test suite: `bazel test //...` in each config, then one tally.
#
#   tools/test.sh                 # default, asan, tsan, clang and nohwloc
#   tools/test.sh default         # or any of: default asan tsan ubsan clang nohwloc
#   tools/test.sh asan clang
#
# Every config builds only what the tests need (the benchmark programs without a smoke test are
# left to `bazel build //bench/...`); the sanitizer and clang configs also leave out what another
# config already runs the same way (see the comments below and docs/build.md: CI has 90 minutes
# on 2 cores, and compiling the suite is nearly all of it). nohwloc (tine built without hwloc)
# runs only the tests of the topology's own code, policies; then tools/check_hwloc_fallback.sh
# checks the automatic fallback. Tests tagged "manual" are not run (//... skips them). The last
# line is `N passed, N failed` over all configs (tools/tally.py); the exit status is non-zero if
# anything failed or did not build.
set -uo pipefail
cd "$(dirname "$0")/.."

configs=("$@")
[ ${#configs[@]} -gt 0 ] || configs=(default asan tsan clang nohwloc)
for c in "${configs[@]}"; do
  case "$c" in
    default | asan | tsan | ubsan | clang | nohwloc) ;;
    *) echo "test.sh: unknown config '$c' (use default, asan, tsan, ubsan, clang or nohwloc)" >&2
       exit 2 ;;
  esac
done

tools/install-deps.sh || exit 1

# stdexec, the optional dependency of the std::execution layer (//execution), is not a Debian
# package: users point TINE_STDEXEC_DIR at their copy (docs/build.md). Under CI the copy beside
# the project's checkout is used; without one the layer's tests are skipped, and this says so.
if [ -z "${TINE_STDEXEC_DIR:-}" ] && [ "${CI:-}" = true ] && [ -d ../shared/third_party/stdexec ]; then
  TINE_STDEXEC_DIR="$(cd ../shared/third_party/stdexec && pwd)"
  export TINE_STDEXEC_DIR
fi
if [ -n "${TINE_STDEXEC_DIR:-}" ]; then
  echo "=== stdexec: $TINE_STDEXEC_DIR (the std::execution layer's tests run)"
else
  echo "=== stdexec: TINE_STDEXEC_DIR not set: the std::execution layer's tests are skipped"
fi

out="$(mktemp -d "${TMPDIR:-/tmp}/tine-test.XXXXXX")"
trap 'rm -rf "$out"' EXIT

# Plain, line-oriented output that reads well in a CI log: no colours or cursor
# tricks, and a progress line at most once a minute so a long build still shows life.
common=(--curses=no --color=no --show_progress_rate_limit=60 --keep_going)

beps=()
for c in "${configs[@]}"; do
  # Every config builds only what its tests need: the benchmark programs without a smoke test
  # (measurement programs: observer_overhead, reducers, spawn, ...) are built by
  # `bazel build //bench/...`, not in CI, whose 90 minutes the rest fills.
  if [ "$c" = default ]; then
    extra=(--build_tests_only)
  else
    extra=(--config="$c" --build_tests_only)
  fi
  # TBB and the OpenMP runtimes are not built with TSan, which then reports races inside them:
  # the benchmarks' peer smoke tests carry the tag no-tsan.
  # Tests tagged compiler-warnings are variants built at other optimisation levels for the
  # optimiser's warnings: the sanitizer configs run only their base form; those tagged
  # optimisation-variant are built at low optimisation levels for tine's bounded transfer, which
  # the sanitizer configs, built at low optimisation themselves, exercise anyway. Tests tagged
  # sanitizer-independent run the system compiler or read the docs, the same in every sanitizer
  # config: they run in default and clang only.
  if [ "$c" = tsan ]; then
    filters="-no-tsan,-compiler-warnings,-optimisation-variant,-sanitizer-independent"
    extra+=(--test_tag_filters="$filters")
  fi
  if [ "$c" = asan ]; then
    extra+=(--test_tag_filters=-compiler-warnings,-optimisation-variant,-sanitizer-independent)
  fi
  # Clang's OpenMP code needs LLVM's runtime, not GCC's libgomp: the libgomp peer smoke tests
  # carry the tag no-clang (bench/bench.bzl says why).
  if [ "$c" = clang ]; then
    extra+=(--test_tag_filters=-no-clang)
  fi
  # Without hwloc only topology discovery changes: its own tests are what to re-test (the pools
  # on the flat topology run in check_hwloc_fallback.sh and in the CMake consumers' flat build).
  targets=(//...)
  if [ "$c" = nohwloc ]; then
    targets=(//tests/policies/...)
  fi
  # The benchmarks' smoke tests (each benchmark builds, runs small and checks its results) run in
  # default: under the sanitizers and clang, the library's own tests run the same code. ASan also
  # leaves out the docs' examples and the demos (API usage the library's tests cover); TSan keeps
  # them (the application examples wait on futures and cancel). clang leaves out the algorithm
  # tests: the algorithms are templates over the core, compiled by clang in the docs' examples
  # and the demos, and the heaviest tests to compile; the core, the pools and the distributed
  # layer, where the compilers' coroutine code differs, are all run.
  if [ "$c" = asan ]; then
    targets=(-- //... -//bench/... -//tests/docs/... -//examples/...)
  fi
  if [ "$c" = tsan ]; then
    targets=(-- //... -//bench/...)
  fi
  if [ "$c" = clang ]; then
    targets=(-- //... -//bench/... -//tests/algorithms/...)
  fi
  echo "=== bazel test ${extra[*]} ${targets[*]}   [$c]"
  start=$SECONDS
  # Exit codes are judged by tally.py from the build event stream (3 = tests
  # failed, 1 = build failed, 4 = no tests), so do not stop here.
  bazel test "${common[@]}" "${extra[@]}" --build_event_json_file="$out/$c.json" \
    "${targets[@]}" </dev/null
  echo "=== [$c] bazel exited $? after $((SECONDS - start)) s"
  beps+=("$out/$c.json")
done

# A separate workspace that depends on tine the way users do (examples/consumer), built, run and
# tested (its scheduler conformance test, through the GoogleTest adapter) from a clean output
# base so that a broken consumer path fails the suite.
checks=()
if [ "${TINE_SKIP_CONSUMER:-0}" != 1 ]; then
  echo "=== examples/consumer: bazel run //:consumer, bazel test //... (clean output base)"
  consumer_base="$(mktemp -d "${TMPDIR:-/tmp}/tine-consumer.XXXXXX")"
  (cd examples/consumer && bazel --output_base="$consumer_base" run "${common[@]}" //:consumer </dev/null)
  rc=$?
  (cd examples/consumer && bazel --output_base="$consumer_base" test "${common[@]}" //... </dev/null)
  test_rc=$?
  (cd examples/consumer && bazel --output_base="$consumer_base" shutdown >/dev/null 2>&1)
  chmod -R u+w "$consumer_base" 2>/dev/null
  rm -rf "$consumer_base"
  echo "=== examples/consumer: run exited $rc, test exited $test_rc"
  checks+=(--check "examples/consumer=$rc")
  checks+=(--check "examples/consumer tests=$test_rc")

  # The release archive (tools/release.sh) and the README's http_archive snippet, the same way.
  # It archives a git repository: not run (and not counted) in an unpacked release archive.
  if [ "$(git rev-parse --show-toplevel 2>/dev/null)" = "$(pwd -P)" ]; then
    echo "=== tools/check_release_archive.sh"
    tools/check_release_archive.sh </dev/null
    rc=$?
    echo "=== tools/check_release_archive.sh exited $rc"
    checks+=(--check "release-archive=$rc")
  else
    echo "=== tools/check_release_archive.sh not run: not a git work tree"
  fi
fi

# Every BUILD, WORKSPACE, MODULE.bazel and .bzl file formatted and lint-clean (under a second, plus
# fetching buildifier from npm the first time).
echo "=== tools/check_buildifier.sh"
tools/check_buildifier.sh </dev/null
rc=$?
echo "=== tools/check_buildifier.sh exited $rc"
checks+=(--check "buildifier=$rc")

# The style: every C++ file as clang-format-16 formats it, codespell finds no misspelling,
# clang-tidy-16 finds nothing (about 3 minutes of CPU, two files at a time), docs/structure.md
# lists every library file and states the real layer dependencies, and every relative link of
# README.md and docs/ resolves (seconds, but for clang-tidy).
for check in tools/check_format.sh tools/check_spelling.sh tools/check_tidy.sh \
  tools/check_structure.py tools/check_links.py; do
  echo "=== $check"
  "$check" </dev/null
  rc=$?
  echo "=== $check exited $rc"
  name="${check#tools/check_}"
  checks+=(--check "${name%.*}=$rc")
done

# tine installed with CMake and used through find_package, add_subdirectory, FetchContent and
# pkg-config (examples/cmake_consumer); about a minute.
if [ "${TINE_SKIP_CMAKE_CONSUMERS:-0}" != 1 ]; then
  echo "=== tools/check_cmake_consumers.sh"
  tools/check_cmake_consumers.sh </dev/null
  rc=$?
  echo "=== tools/check_cmake_consumers.sh exited $rc"
  checks+=(--check "cmake-consumers=$rc")
fi

# The distributed layer on Open MPI (the Bazel suite's MPI is MPICH): built with CMake against
# Open MPI, its test programs on 1 and 2 ranks, global memory's included (about five minutes).
echo "=== tools/check_openmpi.sh"
tools/check_openmpi.sh </dev/null
rc=$?
echo "=== tools/check_openmpi.sh exited $rc"
checks+=(--check "openmpi=$rc")

# The trace viewer (tools/trace_view.py) in headless Chromium: the page shows what the trace and
# the work/span analysis hold (about a minute; two on a busy machine; plus about 30 s to install
# chromium the first time).
if [ "${TINE_SKIP_TRACE_VIEWER:-0}" != 1 ]; then
  echo "=== tools/check_trace_viewer.sh"
  tools/check_trace_viewer.sh </dev/null
  rc=$?
  echo "=== tools/check_trace_viewer.sh exited $rc"
  checks+=(--check "trace-viewer=$rc")
  # And a real trace and analysis: examples/trace_demo's, written by tine's trace observer, with
  # examples/analyze_demo's, written by tine::analysis::write_json, beside it.
  echo "=== tools/check_trace_viewer.sh on examples/trace_demo's trace and analyze_demo's analysis"
  bazel run "${common[@]}" //examples:trace_demo -- "$out/trace_demo.json" 27 2 </dev/null &&
    bazel run "${common[@]}" //examples:analyze_demo -- "$out/analysis.json" </dev/null &&
    tools/check_trace_viewer.sh "$out/trace_demo.json" --analysis "$out/analysis.json" </dev/null
  rc=$?
  echo "=== tools/check_trace_viewer.sh on the demos' trace and analysis exited $rc"
  checks+=(--check "trace-viewer examples/trace_demo and analyze_demo=$rc")
fi

# The automatic fallback: a machine without hwloc builds the flat topology, with a notice.
if [[ " ${configs[*]} " == *" nohwloc "* ]]; then
  echo "=== hwloc fallback: tools/check_hwloc_fallback.sh"
  tools/check_hwloc_fallback.sh </dev/null
  rc=$?
  echo "=== hwloc fallback exited $rc"
  checks+=(--check "hwloc-fallback=$rc")
fi

# The API reference (docs/Doxyfile) builds without a single doxygen warning; a few seconds.
echo "=== tools/check_api_reference.sh"
tools/check_api_reference.sh </dev/null
rc=$?
echo "=== tools/check_api_reference.sh exited $rc"
checks+=(--check "api-reference=$rc")

echo "=== tally"
python=python3
[ -x /usr/bin/python3 ] && python=/usr/bin/python3  # Debian's, whatever PATH says
"$python" tools/tally.py "${beps[@]}" "${checks[@]}"
