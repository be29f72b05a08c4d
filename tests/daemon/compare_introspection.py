#!/usr/bin/python3
"""Compares the org.rocmtune1.Manager interface of a live Introspect() with the contract file.

usage: compare_introspection.py CONTRACT.xml LIVE.xml
Methods (argument names, types, directions), signals, properties (type, access and the
EmitsChangedSignal annotation) must be equal; prints each difference and exits 1."""
import sys
import xml.etree.ElementTree as ET

IFACE = "org.rocmtune1.Manager"


def describe(path):
    root = ET.parse(path).getroot()
    ifaces = [i for i in root.iter("interface") if i.get("name") == IFACE]
    if len(ifaces) != 1:
        sys.exit(f"{path}: {len(ifaces)} interfaces named {IFACE}")
    out = {}
    for el in ifaces[0]:
        kind, name = el.tag, el.get("name")
        if kind in ("method", "signal"):
            args = tuple((a.get("name"), a.get("type"), a.get("direction", "out" if kind == "signal" else "in"))
                         for a in el.findall("arg"))
            out[f"{kind} {name}"] = args
        elif kind == "property":
            emits = {a.get("value") for a in el.findall("annotation")
                     if a.get("name") == "org.freedesktop.DBus.Property.EmitsChangedSignal"}
            out[f"property {name}"] = (el.get("type"), el.get("access"), tuple(sorted(emits)) or ("true",))
    return out


contract, live = describe(sys.argv[1]), describe(sys.argv[2])
bad = False
for key in sorted(set(contract) | set(live)):
    if contract.get(key) != live.get(key):
        print(f"{key}: contract {contract.get(key)} != live {live.get(key)}")
        bad = True
print(f"{len(contract)} members compared")
sys.exit(1 if bad else 0)
