#!/usr/bin/env python3
"""Prints every configuration key smshare accepts, as a Markdown table.

  scripts/config_keys.py [GPU_CONFIG | REPORT.json]      (default: fermi-gtx480)

Reads the ParamTable declarations (add_uint, add_double, add_choice, ...) in
hw/common/gpu_config.cpp (GPU keys, set in configs/gpu/*.yaml or with --set)
and hw/top/simulation.cpp (run settings: frontend.*, power.*, --set only), so
the table is the code's own list: key, type, allowed values, meaning, and the
value in GPU_CONFIG (a name under configs/gpu/ or a path; `extends:` is
followed; keys the file leaves out show "default"). Given a run report
instead, the values are the report's effective parameters (config.params),
defaults and run settings included. docs/user-guide.md carries its output.
"""
import os
import re
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
SOURCES = ["hw/common/gpu_config.cpp", "hw/top/simulation.cpp"]

CALL = re.compile(r'\badd_(uint64|uint|double|bool|choice|string)\(\s*"([^"]+)"\s*,(.*?)\);', re.S)
STRING = re.compile(r'"((?:[^"\\]|\\.)*)"')
NAMED = {"UINT64_MAX": "2^64-1"}


def number(text):
    text = text.strip()
    if text in NAMED:
        return NAMED[text]
    m = re.fullmatch(r"(\d+)u?(?:ll)?\s*<<\s*(\d+)", text)
    if m:
        base, shift = int(m.group(1)), int(m.group(2))
        return f"2^{shift}" if base == 1 else f"{base}·2^{shift}"
    return text


def declarations():
    rows = []
    for rel in SOURCES:
        path = os.path.join(ROOT, rel)
        try:
            src = open(path).read()
        except OSError:
            continue
        for kind, key, rest in CALL.findall(src):
            strings = STRING.findall(rest)
            # Adjacent literals ("a" "b") are one doc string in C++.
            doc = "".join(strings)
            if kind == "choice":
                m = re.search(r"\{([^}]*)\}", rest)
                allowed = ", ".join(f"`{s}`" for s in STRING.findall(m.group(1))) if m else ""
                after = rest[m.end():] if m else rest
                doc = "".join(STRING.findall(after))
                typ = "choice"
            elif kind in ("uint", "uint64", "double"):
                # &target, min, max, "doc" "doc..."
                head = rest.split('"', 1)[0]
                parts = [p for p in head.split(",") if p.strip()]
                lo, hi = (number(parts[-2]), number(parts[-1])) if len(parts) >= 3 else ("", "")
                allowed = f"[{lo}, {hi}]"
                doc = "".join(STRING.findall(rest))
                typ = "number" if kind == "double" else "integer"
            elif kind == "bool":
                allowed, typ = "`true`, `false`", "bool"
                doc = "".join(STRING.findall(rest))
            else:
                allowed, typ = "text", "string"
                doc = "".join(STRING.findall(rest))
            rows.append((key, typ, allowed, doc, rel))
    return rows


def flatten(node, prefix, out):
    if isinstance(node, dict):
        for k, v in node.items():
            flatten(v, f"{prefix}{k}.", out)
    else:
        out[prefix[:-1]] = node


def report_values(path):
    import json
    with open(path) as f:
        r = json.load(f)
    return r["config"]["name"], dict(r["config"]["params"])


def config_values(name):
    try:
        import yaml
    except ImportError:
        return {}
    values = {}
    seen = set()
    path = name if ("/" in name or name.endswith((".yaml", ".yml"))) else os.path.join(ROOT, "configs", "gpu", name + ".yaml")
    chain = []
    while path and path not in seen and os.path.isfile(path):
        seen.add(path)
        with open(path) as f:
            doc = yaml.safe_load(f) or {}
        chain.append(doc)
        base = doc.get("extends")
        path = os.path.join(ROOT, "configs", "gpu", base + ".yaml") if base else None
    for doc in reversed(chain):
        flat = {}
        flatten({k: v for k, v in doc.items() if k != "extends"}, "", flat)
        values.update(flat)
    return values


def main(argv):
    if argv and argv[0].startswith("-"):
        print(__doc__.strip().splitlines()[2].strip(), file=sys.stderr)
        return 2
    config = argv[0] if argv else "fermi-gtx480"
    if config.endswith(".json"):
        config, values = report_values(config)
    else:
        values = config_values(config)
    rows = declarations()
    if not rows:
        print("config_keys: error: no ParamTable declarations found in " + ", ".join(SOURCES), file=sys.stderr)
        return 1
    print(f"| key | type | allowed | meaning | {config} |")
    print("|---|---|---|---|---|")
    for key, typ, allowed, doc, rel in rows:
        v = values.get(key, "")
        if v == "":
            v = "(run setting)" if rel.endswith("simulation.cpp") else "default"
        elif isinstance(v, str) and len(v) > 40:
            v = v[:37] + "..."
        print(f"| `{key}` | {typ} | {allowed} | {doc} | {v} |")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
