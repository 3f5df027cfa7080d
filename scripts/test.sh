#!/usr/bin/env bash
# The whole test suite from a fresh machine: installs the packages, configures
# and builds everything into build/ (Release), builds CACTI 7 (so the CACTI
# flow tests run against the real binary), then runs CTest. Exits with CTest's
# status; the last lines printed are CTest's summary.
#
#   bash scripts/test.sh [CTEST_ARGS ...]     e.g. -L unit, -R occupancy
#
# Environment: as scripts/setup.sh (SMSHARE_BUILD_DIR, CMAKE_BUILD_TYPE,
# SMSHARE_JOBS).
set -euo pipefail

ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
BUILD_DIR="${SMSHARE_BUILD_DIR:-$ROOT/build}"
JOBS="${SMSHARE_JOBS:-$(nproc 2>/dev/null || echo 2)}"

bash "$ROOT/scripts/setup.sh" --with-cacti
echo "test: running ctest in $BUILD_DIR with $JOBS jobs" >&2
exec ctest --test-dir "$BUILD_DIR" --output-on-failure -j "$JOBS" "$@"
