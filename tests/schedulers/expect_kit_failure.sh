#!/usr/bin/env bash
# Runs a Boost.Test binary ($1) that must fail within $2 seconds with exactly one failed
# assertion whose output contains the text $3: how the conformance kit is shown to reject a
# scheduler that breaks a rule, without the failure counting against the suite.
set -u
probe="${1:?usage: expect_kit_failure.sh PROBE SECONDS TEXT}"
limit="${2:?}"
text="${3:?}"
# Without XML_OUTPUT_FILE the probe writes no JUnit file, which would otherwise become this
# test's own report and show the probe's expected failure as ours; without TEST_TARGET it does
# not name its report after this test either.
out=$(env -u XML_OUTPUT_FILE -u TEST_TARGET BOOST_TEST_COLOR_OUTPUT=no \
  timeout "$limit" "$probe" 2>&1)
rc=$?
echo "$out"
echo "---- probe exit status: $rc"
if [ $rc -eq 124 ]; then
  echo "FAIL: the probe did not finish within $limit s: the kit hangs instead of failing"
  exit 1
fi
# Boost.Test exits 201 when assertions failed, 200 on an uncaught exception; a crash is >= 128.
if [ $rc -ne 201 ]; then
  echo "FAIL: the probe must fail an assertion (exit status 201), not exit with $rc"
  exit 1
fi
if ! grep -qF -- "*** 1 failure is detected" <<<"$out"; then
  echo "FAIL: the probe must fail exactly one assertion, the rule's"
  exit 1
fi
if ! grep -F -- "error: " <<<"$out" | grep -qF -- "$text"; then
  echo "FAIL: the failure does not name the rule: $text"
  exit 1
fi
echo "ok: rejected, naming the rule: $text"
