"""Reading smshare run reports (the JSON of `smshare run --report`), shared by
the scripts that make tables and plots from them."""
import json
import os
import sys


def die(tool, msg):
    print(f"{tool}: error: {msg}", file=sys.stderr)
    sys.exit(1)


def expand(args):
    """Report paths: a directory stands for its *.json, sorted."""
    files = []
    for a in args:
        if os.path.isdir(a):
            files += sorted(os.path.join(a, f) for f in os.listdir(a) if f.endswith(".json"))
        else:
            files.append(a)
    return files


def load_json(tool, path):
    try:
        with open(path) as f:
            return json.load(f)
    except OSError as e:
        die(tool, f"{path}: {e.strerror}")
    except json.JSONDecodeError as e:
        die(tool, f"{path}: not valid JSON: {e}")


def load_report(tool, path, required):
    """The report at `path`; exits naming the file if a `required` key is missing."""
    r = load_json(tool, path)
    for key in required:
        if not isinstance(r, dict) or key not in r:
            die(tool, f"{path}: no '{key}': not an smshare run report")
    return r
