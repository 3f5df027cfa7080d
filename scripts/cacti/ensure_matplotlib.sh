#!/usr/bin/env bash
# Makes sure some python3 can import matplotlib (Debian package python3-matplotlib,
# which installs for /usr/bin/python3). Prints the interpreter to use.
set -euo pipefail
for py in python3 /usr/bin/python3; do
  if command -v "$py" >/dev/null && "$py" -c "import matplotlib" 2>/dev/null; then
    command -v "$py"; exit 0
  fi
done
echo "ensure_matplotlib: installing python3-matplotlib with apt-get" >&2
SUDO=""; [[ $(id -u) -ne 0 ]] && SUDO="sudo"
$SUDO apt-get install -y python3-matplotlib >&2 || { $SUDO apt-get update >&2 && $SUDO apt-get install -y python3-matplotlib >&2; }
/usr/bin/python3 -c "import matplotlib" && echo /usr/bin/python3
