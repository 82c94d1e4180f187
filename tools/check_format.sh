#!/usr/bin/env bash
# Checks that every C++ file is formatted as .clang-format says, with Debian's clang-format-16
# (pinned: another version formats some constructs differently, and the check must not change
# with the machine).
#
#   tools/check_format.sh         # exit status 0 if no file would change; lists those that would
#   tools/check_format.sh --fix   # format them in place
set -uo pipefail
cd "$(dirname "$0")/.."

fix=0
case "${1:-}" in
  "") ;;
  --fix) fix=1 ;;
  *) echo "check_format.sh: unknown option '$1' (use --fix)" >&2; exit 2 ;;
esac

tools/install-deps.sh || exit 1
format=clang-format-16

mapfile -t files < <(tools/repo_files.sh | grep -E '\.(cpp|hpp|h)$')
if [ ${#files[@]} -eq 0 ]; then
  echo "check_format.sh: no C++ files found" >&2
  exit 1
fi

if [ "$fix" = 1 ]; then
  "$format" -i "${files[@]}" || exit 1
fi
bad=0
for f in "${files[@]}"; do
  if ! "$format" --dry-run --Werror "$f" >/dev/null 2>&1; then
    echo "check_format.sh: $f is not formatted ($format -i $f, or tools/check_format.sh --fix)"
    bad=$((bad + 1))
  fi
done
echo "check_format.sh: ${#files[@]} files, $bad not formatted"
[ "$bad" -eq 0 ]
