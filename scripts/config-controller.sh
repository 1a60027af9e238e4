#!/usr/bin/env bash
# config-controller.sh FILE: prints the controller name ([controller] name)
# of a hyperctl run config, read with Python's TOML parser (Debian's
# python3, standard library). Used by tune-control.sh and decide-control.sh.
set -euo pipefail
[ $# -eq 1 ] || { echo "usage: config-controller.sh FILE" >&2; exit 2; }
/usr/bin/python3 - "$1" <<'PY'
import sys, tomllib
path = sys.argv[1]
try:
    with open(path, "rb") as f:
        name = tomllib.load(f).get("controller", {}).get("name")
except (OSError, tomllib.TOMLDecodeError) as e:
    sys.exit(f"config-controller.sh: {path}: {e}")
if not isinstance(name, str):
    sys.exit(f"config-controller.sh: {path}: no [controller] name")
print(name)
PY
