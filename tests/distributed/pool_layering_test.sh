#!/usr/bin/env bash
# The pool (tine::mpi_pool and what runs it on a rank: distributed/pool/ and mpi_pool.hpp) includes
# nothing of global memory (distributed/memory/, and the public global_*.hpp over it): global
# vectors sit on top of the pool and reach it through pool/pool_hooks.hpp, never the other way.
#   pool_layering_test.sh POOL_FILE...
# Fails, naming each line, if a pool file includes a global-memory header.
set -u
[ "$#" -gt 0 ] || { echo "FAIL: no pool files given"; exit 1; }
memory='#include[[:space:]]*[<"]tine/distributed/(memory/[a-z_]+|global_[a-z_]+)\.hpp[>"]'
failed=0
for f in "$@"; do
  [ -f "$f" ] || { echo "FAIL: $f: no such file"; failed=1; continue; }
  if grep -nE "$memory" "$f" | sed "s|^|$f:|" | grep .; then
    failed=1
  fi
done
if [ "$failed" -ne 0 ]; then
  echo "FAIL: the pool includes global memory above (a pool file may use pool_hooks.hpp instead)"
  exit 1
fi
echo "PASS: $# pool files, none includes a global-memory header"
