#!/usr/bin/env bash
# Runs a test program on N ranks with MPICH's mpiexec, oversubscribed on this machine's cores:
#   mpi_run.sh N SECONDS PROGRAM [ARGS...]
# A run that has not ended after SECONDS fails (a hang is a failure, not a stuck suite).
# With EXPECT_FAILURE=TEXT in the environment the program must instead fail, and its output
# must contain TEXT (a misuse that tine stops with a message); and EXPECT_ALSO=TEXT2 too, if set.
# With EXPECT_OUTPUT=TEXT it must succeed and its output contain TEXT (a warning; and EXPECT_ALSO
# too, if set). Otherwise a run whose output has tine's warning that the launcher and MPI
# disagree fails: the tests are launched right.
set -u
ranks="${1:?usage: mpi_run.sh N SECONDS PROGRAM [ARGS...]}"
limit="${2:?}"
shift 2
mpiexec=$(command -v mpiexec.mpich || command -v mpiexec.hydra || true)
if [ -z "$mpiexec" ]; then
  echo "FAIL: mpiexec.mpich not found; install it with: apt-get install mpich"
  exit 1
fi
# Hydra starts local ranks itself (no ssh); the sandbox has no other host anyway.
out=$(timeout --kill-after=10 "$limit" "$mpiexec" -launcher fork -n "$ranks" "$@" 2>&1)
rc=$?
echo "$out"
echo "---- mpiexec -n $ranks exit status: $rc"
if [ $rc -eq 124 ] || [ $rc -eq 137 ]; then
  echo "FAIL: not finished within $limit s"
  exit 1
fi
if [ -n "${EXPECT_FAILURE:-}" ]; then
  if [ $rc -eq 0 ]; then
    echo "FAIL: expected a failure naming: $EXPECT_FAILURE"
    exit 1
  fi
  for text in "$EXPECT_FAILURE" "${EXPECT_ALSO:-}"; do
    if [ -n "$text" ] && ! grep -qF -- "$text" <<<"$out"; then
      echo "FAIL: the failure does not say: $text"
      exit 1
    fi
  done
  echo "PASS: failed as expected, saying: $EXPECT_FAILURE${EXPECT_ALSO:+ and $EXPECT_ALSO}"
  exit 0
fi
if [ -n "${EXPECT_OUTPUT:-}" ]; then
  for text in "$EXPECT_OUTPUT" "${EXPECT_ALSO:-}"; do
    if [ $rc -ne 0 ] || { [ -n "$text" ] && ! grep -qF -- "$text" <<<"$out"; }; then
      echo "FAIL: expected a run that succeeds and says: $text"
      exit 1
    fi
  done
  echo "PASS: succeeded, saying: $EXPECT_OUTPUT${EXPECT_ALSO:+ and $EXPECT_ALSO}"
  exit 0
fi
if grep -qF "tine: warning: tine::mpi::environment: the launcher started" <<<"$out"; then
  echo "FAIL: the launcher and MPI disagree (the warning above)"
  exit 1
fi
exit $rc
