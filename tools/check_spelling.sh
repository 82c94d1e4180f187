#!/usr/bin/env bash
# Spell-checks the docs, comments and code of every tracked text file with Debian's codespell.
# Words of this code base that codespell takes for misspellings are in tools/spelling_words.txt.
#
#   tools/check_spelling.sh       # exit status 0 if codespell finds nothing
set -uo pipefail
cd "$(dirname "$0")/.."

tools/install-deps.sh || exit 1

# Generated results and pictures are data, not prose.
mapfile -t files < <(tools/repo_files.sh | grep -vE '(^|/)results/|\.(svg|png|json|csv)$')
codespell --ignore-words=tools/spelling_words.txt "${files[@]}"
rc=$?
echo "check_spelling.sh: ${#files[@]} files, codespell exited $rc"
[ "$rc" -eq 0 ]
