#!/usr/bin/env bash
# The pool and global memory meet only at pool/pool_hooks.hpp:
# - the pool (tine::mpi_pool and what runs it on a rank: distributed/pool/ and mpi_pool.hpp)
#   includes nothing of global memory (distributed/memory/, and the public global_*.hpp over it):
#   global vectors sit on top of the pool, never the other way;
# - global memory's store and cache (the files of //distributed/memory) include nothing of the
#   pool but pool_hooks.hpp, which announces the pool's acquire points and lends its ranks.
#   pool_layering_test.sh POOL_FILE... [--memory MEMORY_FILE...]
# Fails, naming each line, if a file includes what its side may not.
set -u
memory='#include[[:space:]]*[<"]tine/distributed/(memory/[a-z_]+|global_[a-z_]+)\.hpp[>"]'
pool='#include[[:space:]]*[<"]tine/distributed/(pool/[a-z_]+|mpi_pool)\.hpp[>"]'
hooks='#include[[:space:]]*[<"]tine/distributed/pool/pool_hooks\.hpp[>"]'
pool_files=()
memory_files=()
side=pool
for f in "$@"; do
  if [ "$f" = "--memory" ]; then
    side=memory
  elif [ "$side" = pool ]; then
    pool_files+=("$f")
  else
    memory_files+=("$f")
  fi
done
[ "${#pool_files[@]}" -gt 0 ] || { echo "FAIL: no pool files given"; exit 1; }
failed=0
for f in "${pool_files[@]}" "${memory_files[@]}"; do
  [ -f "$f" ] || { echo "FAIL: $f: no such file"; failed=1; }
done
[ "$failed" -eq 0 ] || exit 1
for f in "${pool_files[@]}"; do
  if grep -nE "$memory" "$f" | sed "s|^|$f:|" | grep .; then
    echo "FAIL: the pool includes global memory above (a pool file may use pool_hooks.hpp instead)"
    failed=1
  fi
done
for f in "${memory_files[@]}"; do
  if grep -nE "$pool" "$f" | grep -vE "$hooks" | sed "s|^|$f:|" | grep .; then
    echo "FAIL: global memory includes the pool above (of the pool, only pool_hooks.hpp)"
    failed=1
  fi
done
[ "$failed" -eq 0 ] || exit 1
echo "PASS: ${#pool_files[@]} pool files include no global-memory header;" \
  "${#memory_files[@]} memory files include of the pool only pool_hooks.hpp"
