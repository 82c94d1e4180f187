#!/usr/bin/env bash
# Checks the release path end to end, the way a user meets it:
#   1. tools/release.sh makes tine-VERSION.tar.gz (twice: the same commit gives the same sha256),
#      and refuses, in a throw-away repository, a dirty tree and versions that disagree;
#   2. the archive holds what a consumer needs and not .ci/;
#   3. the README's http_archive snippet (between the release-archive-snippet markers), with the
#      URL replaced by file://ARCHIVE and the real sha256, is the WORKSPACE of a copy of
#      examples/consumer, which is built and run with `bazel run //:consumer` from a clean
#      output base (as tools/test.sh does for examples/consumer itself).
#
#   tools/check_release_archive.sh      # exit status 0 if all of it works
#
# With uncommitted changes it archives the work tree (release.sh --allow-dirty) and skips the
# reproducibility step, so it can be run before a commit; in CI the tree is clean.
set -uo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"
cd "$root"

tmp="$(mktemp -d "${TMPDIR:-/tmp}/tine-release-check.XXXXXX")"
base="$tmp/output_base"
cleanup() {
  if [ -d "$base" ]; then
    (cd "$tmp/consumer" 2>/dev/null && bazel --output_base="$base" shutdown >/dev/null 2>&1)
    chmod -R u+w "$base" 2>/dev/null
  fi
  rm -rf "$tmp"
}
trap cleanup EXIT

failures=0
ok() { echo "ok   $*"; }
bad() {
  echo "FAIL $*"
  failures=$((failures + 1))
}

# --- 1. the archive --------------------------------------------------------------------------
release_args=()
if [ -n "$(git status --porcelain --untracked-files=normal)" ]; then
  echo "note: the work tree has uncommitted changes: archiving it with release.sh --allow-dirty"
  release_args=(--allow-dirty)
fi
if ! out="$(tools/release.sh "${release_args[@]}" "$tmp/dist" 2>"$tmp/release.err")"; then
  cat "$tmp/release.err"
  echo "FAIL tools/release.sh failed"
  exit 1
fi
archive="$(echo "$out" | tail -n 2 | head -n 1)"
sha="$(echo "$out" | tail -n 1)"
name="$(basename "$archive" .tar.gz)" # tine-VERSION
echo "archive: $archive"
echo "sha256:  $sha"
[ -f "$archive" ] && [ "$(sha256sum "$archive" | cut -d ' ' -f 1)" = "$sha" ] &&
  (cd "$(dirname "$archive")" && sha256sum -c --quiet "$name.tar.gz.sha256") &&
  ok "release.sh wrote $name.tar.gz and a matching $name.tar.gz.sha256" ||
  bad "the archive or its .sha256 file does not match the sha256 release.sh printed"

if [ ${#release_args[@]} -eq 0 ]; then
  again="$(tools/release.sh "$tmp/dist2" 2>&1 | tail -n 1)"
  [ "$again" = "$sha" ] && ok "a second run gives the same sha256 (reproducible)" ||
    bad "a second run of release.sh gave sha256 $again instead of $sha"
fi

# Misuse must be refused with a message naming the problem; tried in a throw-away repository
# made of the archive's files.
clone="$tmp/clone"
mkdir -p "$clone"
tar xzf "$archive" -C "$clone" --strip-components=1
gitc=(git -C "$clone" -c user.name=check -c user.email=check@invalid)
"${gitc[@]}" init -q && "${gitc[@]}" add -A && "${gitc[@]}" commit -q -m "the archive's files"
touch "$clone/untracked-file"
msg="$("$clone/tools/release.sh" "$tmp/dist-dirty" 2>&1)" &&
  bad "release.sh archived a dirty tree" ||
  { echo "$msg" | grep -q "uncommitted changes" && ok "release.sh refuses a dirty tree" ||
    bad "release.sh refused a dirty tree without saying why: $msg"; }
rm "$clone/untracked-file"
sed -i -E '/^module\(/,/^\)/s/^( *version *= *)"[^"]*"/\1"99.0.0"/' "$clone/MODULE.bazel"
"${gitc[@]}" commit -q -am "version mismatch"
msg="$("$clone/tools/release.sh" "$tmp/dist-mismatch" 2>&1)" &&
  bad "release.sh archived a tree whose MODULE.bazel says 99.0.0" ||
  { echo "$msg" | grep -q "versions disagree.*MODULE.bazel.*99.0.0" &&
    ok "release.sh refuses versions that disagree" ||
    bad "release.sh refused a version mismatch without saying why: $msg"; }
"${gitc[@]}" revert --no-edit HEAD >/dev/null
printf 'cmake_minimum_required(VERSION 3.20)\nproject(tine\n  VERSION 98.0.0 LANGUAGES CXX)\n' \
  >"$clone/CMakeLists.txt"
"${gitc[@]}" add CMakeLists.txt && "${gitc[@]}" commit -q -m "CMake version mismatch"
msg="$("$clone/tools/release.sh" "$tmp/dist-mismatch" 2>&1)" &&
  bad "release.sh archived a tree whose CMakeLists.txt says 98.0.0" ||
  { echo "$msg" | grep -q "versions disagree.*CMakeLists.txt.*98.0.0" &&
    ok "release.sh refuses a CMakeLists.txt whose project() version disagrees" ||
    bad "release.sh refused a CMake version mismatch without saying why: $msg"; }

# --- 2. what is in it ------------------------------------------------------------------------
listing="$(tar tzf "$archive")"
before=$failures
for f in LICENSE README.md CHANGELOG.md MODULE.bazel extensions.bzl WORKSPACE BUILD.bazel \
  repositories.bzl tools/repo_rules.bzl core/version.hpp tine.hpp; do
  echo "$listing" | grep -qx "$name/$f" || bad "$name/$f is missing from the archive"
done
echo "$listing" | grep -v "^$name/" | grep -q . && bad "files outside the prefix $name/"
echo "$listing" | grep -q "^$name/\.ci/" &&
  bad ".ci/ is in the archive (.gitattributes export-ignore)"
[ "$failures" -eq "$before" ] &&
  ok "the archive has the library, the Bazel files and LICENSE under $name/, no .ci/"

# --- 3. the README's snippet as a consumer's WORKSPACE ---------------------------------------
snippet="$(sed -n '/^<!-- release-archive-snippet/,/^<!-- release-archive-snippet end/p' README.md |
  grep -v -e '^<!--' -e '^```')"
if [ -z "$snippet" ]; then
  bad "README.md has no snippet between <!-- release-archive-snippet ... --> markers"
  exit 1
fi
echo "$snippet" | grep -q "strip_prefix = \"$name\"" &&
  echo "$snippet" | grep -q "urls = \[\"[^\"]*/$name\.tar\.gz\"\]" &&
  ok "the README's snippet names $name (core/version.hpp)" ||
  bad "the README's snippet does not name $name in urls and strip_prefix: update README.md"
workspace="$(echo "$snippet" |
  sed -E -e "s#urls = \[[^]]*\]#urls = [\"file://$archive\"]#" \
    -e "s#sha256 = \"[^\"]*\"#sha256 = \"$sha\"#")"
echo "$workspace" | grep -q "file://$archive" && echo "$workspace" | grep -q "\"$sha\"" ||
  bad "could not put the file:// URL and the sha256 into the README's snippet"

mkdir -p "$tmp/consumer"
for f in BUILD.bazel main.cpp .bazelrc; do
  cp "examples/consumer/$f" "$tmp/consumer/"
done
{
  echo "# examples/consumer with the WORKSPACE from README.md's release-archive snippet."
  echo 'workspace(name = "consumer")'
  echo
  echo "$workspace"
} >"$tmp/consumer/WORKSPACE"
echo "--- consumer WORKSPACE:"
cat "$tmp/consumer/WORKSPACE"
echo "---"

echo "bazel run //:consumer (tine from $archive, clean output base)"
(cd "$tmp/consumer" && bazel --output_base="$base" run --curses=no --color=no \
  --show_progress_rate_limit=60 //:consumer </dev/null)
rc=$?
[ "$rc" -eq 0 ] && ok "the consumer built against the release archive runs" ||
  bad "bazel run //:consumer with tine from the release archive exited $rc"

if [ "$failures" -eq 0 ]; then
  echo "release-archive check passed"
else
  echo "release-archive check FAILED ($failures steps)"
  exit 1
fi
