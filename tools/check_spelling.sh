#!/usr/bin/env bash
# Spell-checks the docs, comments and code of every tracked text file with Debian's codespell.
# Words of this code base that codespell takes for misspellings are in tools/spelling_words.txt.
#
#   tools/check_spelling.sh       # exit status 0 if codespell finds nothing
set -uo pipefail
cd "$(dirname "$0")/.."

tools/install-deps.sh || exit 1

list_files() {
  if [ "$(git rev-parse --show-toplevel 2>/dev/null)" = "$(pwd -P)" ]; then
    git ls-files --cached --others --exclude-standard
  else
    find . -path ./.git -prune -o -path '*/bazel-*' -prune -o -type f -print | sed 's|^\./||'
  fi
}
# Generated results and pictures are data, not prose.
mapfile -t files < <(list_files | grep -vE '(^|/)results/|\.(svg|png|json|csv)$' |
  while read -r f; do [ -f "$f" ] && echo "$f"; done)
codespell --ignore-words=tools/spelling_words.txt "${files[@]}"
rc=$?
echo "check_spelling.sh: ${#files[@]} files, codespell exited $rc"
[ "$rc" -eq 0 ]
