#!/usr/bin/env bash
# Lints and format-checks every Bazel file (BUILD, WORKSPACE, MODULE.bazel, *.bzl) with buildifier.
#
#   tools/check_buildifier.sh         # exit status 0 if every file is formatted and lint-clean
#   tools/check_buildifier.sh --fix   # rewrite the files as buildifier wants, then check
#
# buildifier comes from npm (@bazel/buildifier, pinned in tools/install-deps.sh); the npm package
# carries the binaries itself, so installing it needs only the npm registry.
#
# All of buildifier's default warnings apply except two that are about Bazel 8 and later, where
# py_test and sh_test moved out of Bazel into rules_python and rules_shell: tine builds with
# Bazel 4.2.3, which has them built in, and neither rule set is packaged by Debian.
set -uo pipefail
cd "$(dirname "$0")/.."

fix=0
case "${1:-}" in
  "") ;;
  --fix) fix=1 ;;
  *) echo "check_buildifier.sh: unknown option '$1' (use --fix)" >&2; exit 2 ;;
esac

buildifier="$(tools/install-deps.sh --buildifier)" || exit 1
warnings=(--warnings=-native-py,-native-sh-test)

mapfile -t files < <(tools/repo_files.sh |
  grep -E '(^|/)(BUILD|BUILD\.bazel|WORKSPACE|WORKSPACE\.bazel|MODULE\.bazel|[^/]+\.bzl)$')
if [ ${#files[@]} -eq 0 ]; then
  echo "check_buildifier.sh: no Bazel files found" >&2
  exit 1
fi

if [ "$fix" = 1 ]; then
  "$buildifier" --mode=fix --lint=fix "${warnings[@]}" "${files[@]}"
fi
version="$("$buildifier" --version | sed -n 's/^buildifier version: *\([^ ]*\).*/\1/p')"
echo "buildifier $version on ${#files[@]} files"
"$buildifier" --mode=check --lint=warn "${warnings[@]}" "${files[@]}"
rc=$?
if [ "$rc" -eq 0 ]; then
  echo "buildifier: all ${#files[@]} files formatted and lint-clean"
else
  echo "buildifier: exit $rc; 'FILE # reformat' lines and warnings above" \
    "(tools/check_buildifier.sh --fix rewrites the formatting; warnings are fixed by hand)" >&2
fi
exit "$rc"
