#!/usr/bin/env bash
# Installs what is missing (Debian packages) and runs tine's demo, optimised.
set -euo pipefail
cd "$(dirname "$0")/.."
tools/install-deps.sh
exec bazel run --config=opt --curses=no --color=no //examples:demo </dev/null
