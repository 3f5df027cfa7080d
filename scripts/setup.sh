#!/usr/bin/env bash
# Installs what smshare needs (Debian 12, apt-get), configures with CMake and
# builds into build/. Idempotent: a second run installs nothing, and only
# rebuilds what changed. Shared by scripts/run_experiment.sh and
# scripts/test.sh; safe to run by hand.
#
#   scripts/setup.sh [--with-cacti] [TARGET ...]
#
#   TARGET ...     CMake targets to build (default: all: library, CLI, tests,
#                  benchmarks). scripts/run_experiment.sh builds only `smshare`.
#   --with-cacti   also build HP's CACTI 7 with scripts/cacti/build_cacti.sh
#                  (needs PyPI); a failure is a warning here, and the test
#                  suite's cacti_build test then reports it.
#
# Environment:
#   SMSHARE_BUILD_DIR  build folder (default <repo>/build)
#   CMAKE_BUILD_TYPE   Release (default), Debug, RelWithDebInfo, ...
#   SMSHARE_JOBS       parallel build jobs (default: nproc)
#
# Packages are checked with dpkg-query; `apt-get update` runs only when one
# is missing, then `apt-get install -y` installs the missing ones (as root, or
# through sudo). Messages go to stderr, prefixed "setup:".
set -euo pipefail

ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
BUILD_DIR="${SMSHARE_BUILD_DIR:-$ROOT/build}"
BUILD_TYPE="${CMAKE_BUILD_TYPE:-Release}"
JOBS="${SMSHARE_JOBS:-$(nproc 2>/dev/null || echo 2)}"

log() { echo "setup: $*" >&2; }
die() { echo "setup: error: $*" >&2; exit 1; }

with_cacti=0
targets=()
for arg in "$@"; do
  case "$arg" in
    --with-cacti) with_cacti=1 ;;
    -h|--help) sed -n '2,/^set -euo/p' "${BASH_SOURCE[0]}" | sed '$d; s/^# \{0,1\}//'; exit 0 ;;
    -*) die "unknown option $arg (see scripts/setup.sh --help)" ;;
    *) targets+=("$arg") ;;
  esac
done

# --- packages -----------------------------------------------------------------
# Build: compiler, CMake, pkg-config and the libraries CMakeLists.txt finds.
# Scripts and tests: python3 with matplotlib (plots) and yaml, xz (compressed
# traces). Waveforms: gtkwave (vcd2fst writes --vcd FILE.fst; the test
# gtkwave_opens_the_save_file opens a save file in GTKWave under xvfb, which
# needs xauth). CACTI build (scripts/cacti/build_cacti.sh): g++, make,
# python3-pip (downloads CACTI's sources from PyPI) and ca-certificates for HTTPS.
PACKAGES=(
  g++ make cmake pkg-config
  libsystemc-dev libspdlog-dev libyaml-cpp-dev nlohmann-json3-dev libcli11-dev libgtest-dev googletest
  python3 python3-matplotlib python3-yaml xz-utils
  gtkwave xvfb xauth
  python3-pip ca-certificates
)

missing=()
if command -v dpkg-query >/dev/null; then
  for p in "${PACKAGES[@]}"; do
    status=$(dpkg-query -W -f='${Status}' "$p" 2>/dev/null || true)
    [[ "$status" == "install ok installed" ]] || missing+=("$p")
  done
else
  log "no dpkg-query: not a Debian system; skipping package checks (needed: ${PACKAGES[*]})"
fi

if ((${#missing[@]})); then
  if [[ $(id -u) -eq 0 ]]; then
    SUDO=()
  elif command -v sudo >/dev/null; then
    SUDO=(sudo)
  else
    die "missing packages ${missing[*]}; run as root or install them: apt-get install -y ${missing[*]}"
  fi
  log "installing ${missing[*]} with apt-get"
  export DEBIAN_FRONTEND=noninteractive
  "${SUDO[@]}" apt-get update -q >&2 || die "apt-get update failed"
  "${SUDO[@]}" apt-get install -y -q --no-install-recommends "${missing[@]}" >&2 \
    || die "apt-get install ${missing[*]} failed"
fi

# --- configure and build ------------------------------------------------------
cache_type=""
if [[ -f "$BUILD_DIR/CMakeCache.txt" ]]; then
  cache_type=$(sed -n 's/^CMAKE_BUILD_TYPE:[A-Z]*=//p' "$BUILD_DIR/CMakeCache.txt")
fi
if [[ ! -f "$BUILD_DIR/CMakeCache.txt" || "$cache_type" != "$BUILD_TYPE" ]]; then
  log "configuring $BUILD_DIR ($BUILD_TYPE)"
  cmake -S "$ROOT" -B "$BUILD_DIR" -DCMAKE_BUILD_TYPE="$BUILD_TYPE" >&2 || die "cmake configure failed"
fi

build_args=(--build "$BUILD_DIR" -j "$JOBS")
if ((${#targets[@]})); then build_args+=(--target "${targets[@]}"); fi
log "building ${targets[*]:-all targets} with $JOBS jobs"
cmake "${build_args[@]}" >&2 || die "build failed (see above)"

# --- CACTI (optional) ---------------------------------------------------------
if ((with_cacti)); then
  if [[ -f "$ROOT/scripts/cacti/build_cacti.sh" ]]; then
    if bin=$(bash "$ROOT/scripts/cacti/build_cacti.sh"); then
      log "CACTI binary: $bin"
    else
      log "warning: the CACTI build failed (see above); the cacti_* tests will say so"
    fi
  else
    log "no scripts/cacti/build_cacti.sh: skipping the CACTI build"
  fi
fi

log "ready: $BUILD_DIR/smshare"
