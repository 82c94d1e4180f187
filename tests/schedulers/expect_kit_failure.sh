#!/usr/bin/env bash
# Runs one case ($2) of a Boost.Test binary ($1) on a scheduler that breaks a rule; it must fail
# within $3 seconds, and the first failure it reports must contain the rule's text ($4). With a
# fifth argument "hang", the kit must have reported a hang and ended the process (exit status 1,
# "did not finish within" on stderr); with "fail-or-hang", either outcome (for a scheduler whose
# breakage shows as slowness, which a loaded or sanitised run may stretch into the hang limit);
# otherwise the case fails its assertions and Boost.Test exits with 201. How the conformance kit is shown to reject each broken scheduler, without the
# failure counting against the suite.
set -u
probe="${1:?usage: expect_kit_failure.sh PROBE CASE SECONDS TEXT [hang]}"
case_name="${2:?}"
limit="${3:?}"
text="${4:?}"
mode="${5:-fail}"
# Without XML_OUTPUT_FILE the probe writes no JUnit file, which would otherwise become this
# test's own report and show the probe's expected failure as ours; without TEST_TARGET it does
# not name its report after this test either.
out=$(env -u XML_OUTPUT_FILE -u TEST_TARGET BOOST_TEST_COLOR_OUTPUT=no \
  timeout "$limit" "$probe" --run_test="rejected/$case_name" 2>&1)
rc=$?
echo "$out"
echo "---- probe exit status: $rc"
if [ $rc -eq 124 ]; then
  echo "FAIL: the probe did not finish within $limit s: the kit hangs instead of failing"
  exit 1
fi
hung=0
if [ $rc -eq 1 ] && grep -qF -- "did not finish within" <<<"$out"; then
  hung=1
fi
if [ "$mode" = fail-or-hang ]; then
  if [ $rc -ne 201 ] && [ $hung -ne 1 ]; then
    echo "FAIL: the probe must fail an assertion (201) or report a hang (1), not exit with $rc"
    exit 1
  fi
elif [ "$mode" = hang ]; then
  if [ $hung -ne 1 ]; then
    echo "FAIL: the kit must report the hang and end the process with status 1, not $rc"
    exit 1
  fi
elif [ $rc -ne 201 ]; then
  # Boost.Test exits 201 when assertions failed, 200 on an uncaught exception; a crash is >= 128.
  echo "FAIL: the probe must fail an assertion (exit status 201), not exit with $rc"
  exit 1
fi
first=$(grep -F -- "error: " <<<"$out" | head -n 1)
if ! grep -qF -- "$text" <<<"$first"; then
  echo "FAIL: the kit's first failure does not name the rule: $text"
  echo "      it was: $first"
  exit 1
fi
echo "ok: rejected, naming the rule: $text"
