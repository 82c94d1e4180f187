#!/usr/bin/env bash
# Makes the release archive tine-VERSION.tar.gz and tine-VERSION.tar.gz.sha256 in OUTDIR.
#
#   tools/release.sh [--allow-dirty] [OUTDIR]      # OUTDIR defaults to dist/ (git-ignored)
#
# VERSION comes from core/version.hpp; the script stops if MODULE.bazel or CMakeLists.txt say
# otherwise, or if the work tree has uncommitted changes or untracked files. The archive is
# `git archive` of HEAD under the prefix tine-VERSION/, every file dated at the commit's time and
# compressed with `gzip -n`: the same commit gives the same bytes, hence the same sha256.
# Files marked export-ignore in .gitattributes (.ci/) are left out.
#
# --allow-dirty archives the work tree instead (tracked files with their uncommitted changes, plus
# untracked files that .gitignore does not exclude), for testing the release path before a commit.
# Such an archive is not a release: its files are dated now, so its sha256 changes on every run.
#
# The last two lines printed are the archive's path and its sha256.
set -euo pipefail

allow_dirty=0
outdir=""
for arg in "$@"; do
  case "$arg" in
    --allow-dirty) allow_dirty=1 ;;
    -h | --help) sed -n '2,16p' "$0" | sed 's/^# \{0,1\}//'; exit 0 ;;
    -*) echo "release.sh: unknown option '$arg' (use --allow-dirty)" >&2; exit 2 ;;
    *)
      [ -z "$outdir" ] || { echo "release.sh: one OUTDIR only" >&2; exit 2; }
      outdir="$arg"
      ;;
  esac
done

fail() {
  echo "release.sh: $*" >&2
  exit 1
}

# OUTDIR is relative to where the script was called from; everything else to the repository root.
root="$(cd "$(dirname "$0")/.." && pwd -P)"
[ -n "$outdir" ] || outdir="$root/dist"
mkdir -p "$outdir"
outdir="$(cd "$outdir" && pwd)"
cd "$root"
[ "$(git rev-parse --show-toplevel 2>/dev/null)" = "$root" ] &&
  git rev-parse -q --verify HEAD >/dev/null ||
  fail "$root is not a git work tree with a commit (an unpacked archive cannot be released)"

# --- the version, and every other place that states it ---------------------------------------
header=core/version.hpp
define() {  # the value of `#define NAME value` in core/version.hpp
  sed -n -E "s/^#define $1 +([^ ].*)\$/\\1/p" "$header" | head -n 1
}
major="$(define TINE_VERSION_MAJOR)"
minor="$(define TINE_VERSION_MINOR)"
patch="$(define TINE_VERSION_PATCH)"
string="$(define TINE_VERSION_STRING | tr -d '"')"
for n in "$major" "$minor" "$patch"; do
  [[ "$n" =~ ^[0-9]+$ ]] ||
    fail "$header: TINE_VERSION_MAJOR/MINOR/PATCH must be numbers (read '$major' '$minor' '$patch')"
done
version="$major.$minor.$patch"
[ "$string" = "$version" ] ||
  fail "$header disagrees with itself:" \
    "TINE_VERSION_STRING is \"$string\" but MAJOR.MINOR.PATCH is $version"

[ -f MODULE.bazel ] || fail "MODULE.bazel is missing"
# module( ... version = "X" ... ): the first version attribute after `module(`.
module_version="$(sed -n '/^module(/,/^)/p' MODULE.bazel |
  sed -n -E 's/^ *version *= *"([^"]*)".*/\1/p' | head -n 1)"
[ "$module_version" = "$version" ] ||
  fail "versions disagree: $header says $version," \
    "MODULE.bazel's module() says '${module_version:-none}'"

if [ -f CMakeLists.txt ]; then
  # Either project(tine VERSION X ...) states it, or CMakeLists.txt reads it from core/version.hpp.
  cmake_version="$(tr '\n' ' ' <CMakeLists.txt |
    sed -n -E 's/.*project\( *tine[^)]*VERSION +([0-9][0-9.]*).*/\1/Ip' | head -n 1)"
  if [ -n "$cmake_version" ]; then
    [ "$cmake_version" = "$version" ] ||
      fail "versions disagree: $header says $version," \
        "CMakeLists.txt's project() says $cmake_version"
  elif ! grep -q 'core/version\.hpp' CMakeLists.txt; then
    fail "CMakeLists.txt neither states project(tine VERSION $version) nor reads core/version.hpp"
  fi
fi

# --- what to archive --------------------------------------------------------------------------
name="tine-$version"
archive="$outdir/$name.tar.gz"
changes="$(git status --porcelain --untracked-files=normal)"
if [ -z "$changes" ]; then
  treeish=HEAD
elif [ "$allow_dirty" = 1 ]; then
  # The work tree as a tree object, through a throw-away index: the real index is not touched.
  index="$(mktemp "${TMPDIR:-/tmp}/tine-release-index.XXXXXX")"
  trap 'rm -f "$index"' EXIT
  cp "$(git rev-parse --git-path index)" "$index"
  GIT_INDEX_FILE="$index" git add -A
  treeish="$(GIT_INDEX_FILE="$index" git write-tree)"
  echo "release.sh: --allow-dirty: archiving the work tree (not reproducible, not a release):" >&2
  echo "$changes" | sed 's/^/  /' >&2
else
  echo "release.sh: the work tree has uncommitted changes or untracked files; commit them, or" \
    "use --allow-dirty to archive the work tree for testing:" >&2
  echo "$changes" | sed 's/^/  /' >&2
  exit 1
fi

# tar.umask fixed so that a user's git configuration cannot change the file modes.
git -c tar.umask=0022 archive --format=tar --prefix="$name/" "$treeish" | gzip -n -9 >"$archive.tmp"
mv "$archive.tmp" "$archive"
sha="$(sha256sum "$archive" | cut -d ' ' -f 1)"
# sha256sum's own format, so `sha256sum -c tine-VERSION.tar.gz.sha256` works in OUTDIR.
echo "$sha  $name.tar.gz" >"$archive.sha256"

echo "$archive"
echo "$sha"
