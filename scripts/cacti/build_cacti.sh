#!/usr/bin/env bash
# Builds HP's CACTI 7 from the sources carried by the PyPI package
# `hwcomponents-cacti` and prints the path of the `cacti` binary.
#
#   scripts/cacti/build_cacti.sh            # build if needed, print the binary's path
#   CACTI_BIN=/path/to/cacti scripts/...    # use that binary instead (checked, then printed)
#
# The package's wheel holds CACTI's C++ sources under hwcomponents_cacti/cacti/;
# we download it with pip (without installing it: its metadata asks for
# Python >= 3.12), check its sha256, unpack only the sources, apply the same
# compiler fixes as the package's own Makefile (`make build` target) and run
# CACTI's makefile. Idempotent: a second run only checks a stamp and prints.
#
# Build folder: $SMSHARE_CACHE_DIR (default <repo>/.cache, git-ignored)
#   /cacti/hwcomponents-cacti-<version>/cacti/cacti
# CACTI reads tech_params/*.dat relative to its working directory: run it from
# the binary's folder (scripts/cacti/run_cacti.py does).
set -euo pipefail

PKG_VERSION=1.0.40
WHEEL=hwcomponents_cacti-${PKG_VERSION}-py3-none-any.whl
WHEEL_SHA256=0bec35a55fedef890b4c6e12e8c553f765e3eb0e00a7dce41062a35cf889669e

log() { echo "build_cacti: $*" >&2; }
die() { echo "build_cacti: error: $*" >&2; exit 1; }

if [[ -n "${CACTI_BIN:-}" ]]; then
  [[ -x "$CACTI_BIN" ]] || die "CACTI_BIN=$CACTI_BIN is not an executable file"
  [[ -d "$(dirname "$CACTI_BIN")/tech_params" ]] || \
    die "CACTI_BIN=$CACTI_BIN: no tech_params/ beside it (CACTI needs its tech_params/*.dat)"
  echo "$CACTI_BIN"
  exit 0
fi

ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
CACHE="${SMSHARE_CACHE_DIR:-$ROOT/.cache}/cacti/hwcomponents-cacti-${PKG_VERSION}"
SRC="$CACHE/cacti"
BIN="$SRC/cacti"
STAMP="$CACHE/built.stamp"
STAMP_TEXT="hwcomponents-cacti ${PKG_VERSION} ${WHEEL_SHA256} fixes-v1"

if [[ -x "$BIN" && -f "$STAMP" && "$(cat "$STAMP")" == "$STAMP_TEXT" ]]; then
  echo "$BIN"
  exit 0
fi

# --- build dependencies -------------------------------------------------------
need_apt=()
command -v g++ >/dev/null || need_apt+=(g++)
command -v make >/dev/null || need_apt+=(make)
command -v python3 >/dev/null || need_apt+=(python3)
if ! python3 -m pip --version >/dev/null 2>&1; then need_apt+=(python3-pip); fi
if ((${#need_apt[@]})); then
  log "installing ${need_apt[*]} with apt-get"
  SUDO=""; [[ $(id -u) -ne 0 ]] && SUDO="sudo"
  $SUDO apt-get install -y "${need_apt[@]}" >&2 || { $SUDO apt-get update >&2 && $SUDO apt-get install -y "${need_apt[@]}" >&2; } \
    || die "could not install ${need_apt[*]}"
fi

# --- sources ------------------------------------------------------------------
mkdir -p "$CACHE/download"
if [[ ! -f "$CACHE/download/$WHEEL" ]]; then
  log "downloading $WHEEL from PyPI"
  python3 -m pip download --no-deps --only-binary :all: --python-version 3.12 \
      --disable-pip-version-check -d "$CACHE/download" "hwcomponents-cacti==${PKG_VERSION}" >&2 \
    || die "pip download of hwcomponents-cacti==${PKG_VERSION} failed (see above)"
fi
got=$(python3 -c 'import hashlib,sys; print(hashlib.sha256(open(sys.argv[1],"rb").read()).hexdigest())' "$CACHE/download/$WHEEL")
[[ "$got" == "$WHEEL_SHA256" ]] || die "$WHEEL has sha256 $got, expected $WHEEL_SHA256"

log "unpacking CACTI sources into $SRC"
rm -rf "$SRC"
python3 - "$CACHE/download/$WHEEL" "$SRC" <<'PY'
import os, sys, zipfile
wheel, dest = sys.argv[1], sys.argv[2]
prefix = "hwcomponents_cacti/cacti/"
with zipfile.ZipFile(wheel) as z:
    for name in z.namelist():
        if not name.startswith(prefix) or name.endswith("/"):
            continue
        rel = name[len(prefix):]
        # Leave out the prebuilt objects and binary: we build from source.
        if rel.startswith("obj_") or rel == "cacti":
            continue
        out = os.path.join(dest, rel)
        os.makedirs(os.path.dirname(out), exist_ok=True)
        with z.open(name) as src, open(out, "wb") as dst:
            dst.write(src.read())
PY
[[ -f "$SRC/main.cc" && -f "$SRC/cacti.mk" ]] || die "the wheel did not contain CACTI's sources under hwcomponents_cacti/cacti/"

# --- the package's own compiler fixes (its Makefile's `build` target) ---------
# -m64 / -gstabs+ are not accepted by every compiler; a missing space before a
# string-literal macro is a C++11 user-defined-literal error; a default argument
# repeated in a definition is rejected by newer g++. Each sed is idempotent.
( cd "$SRC"
  sed -i 's/-m64//g;s/-gstabs+//g' cacti.mk
  sed -i 's/"\."VER_COMMENT_CACTI/"." VER_COMMENT_CACTI/g' io.cc
  sed -i 's/ = &(g_tp.peri_global)//' nuca.cc
)

log "building with make (as the package does: CACTI's default 'dbg' target)"
jobs=$(nproc 2>/dev/null || echo 2)
( cd "$SRC" && make -j"$jobs" >"$CACHE/build.log" 2>&1 ) || { tail -30 "$CACHE/build.log" >&2; die "make failed; full log in $CACHE/build.log"; }
[[ -x "$BIN" ]] || die "make finished but $BIN is missing; see $CACHE/build.log"
echo "$STAMP_TEXT" >"$STAMP"
echo "$BIN"
