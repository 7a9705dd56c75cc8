# Sourced by the script checks of tests/data/*/check.sh (usage: check.sh
# BUILD_DIR): strict mode, and here (the check's folder), root (the tree),
# build (BUILD_DIR) and tmp (a scratch folder removed on exit).
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
root="$(cd "$here/../../.." && pwd)"
build="${1:?usage: $0 BUILD_DIR}"
tmp="$(mktemp -d)"
trap 'rm -rf "$tmp"' EXIT
