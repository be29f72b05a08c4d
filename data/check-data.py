#!/usr/bin/python3
"""Consistency check for rocmtune's shipped data files (data/*.toml, data/amdgpu.ids).

Run: /usr/bin/python3 data/check-data.py   (needs Python >= 3.11 for tomllib)
Exits 0 when every check passes, 1 otherwise (each problem is printed).
"""
import hashlib
import pathlib
import re
import sys
import tomllib

HERE = pathlib.Path(__file__).resolve().parent
FAMILIES = {"GCN3", "GCN4", "GCN5", "RDNA1", "RDNA2", "RDNA3", "RDNA3.5", "RDNA4",
            "CDNA1", "CDNA2", "CDNA3", "CDNA4"}
# Every KFD gfx_target_version value kfd_device.c kgd2kfd_probe() gives (PROVENANCE.md, gfx_targets.toml).
EXPECTED_VERSIONS = {
    70000, 70001, 80001, 80002, 80003,
    90000, 90002, 90004, 90006, 90008, 90010, 90012, 90400, 90401, 90402, 90500,
    100100, 100101, 100102, 100103,
    100300, 100301, 100302, 100303, 100304, 100305, 100306,
    110000, 110001, 110002, 110003, 110500, 110501, 110502, 110503, 110504,
    120000, 120001, 120500,
}
# A GC IP may map to several KFD values only where the kernel branches on something else
# (GC 9.4.3: rev_id / APU flag -> 90400, 90401, 90402).
MULTI_VALUE_GC = {"9.4.3"}
# sha256 of libdrm data/amdgpu.ids @ sailfishos-mirror/drm 82f74e7a5a7403392e91352af00210ae26a81f19
AMDGPU_IDS_SHA256 = "ffd2a8f1bfa755f4d90f537b4969fc4676f116e5af051ce2f18ef93a96d8beb6"

TARGET_KEYS = {"gfx_target_version", "gfx_target", "gc_ips", "family", "apu", "source"}
GPU_KEYS = {"product", "pci_ids", "gfx_target", "gfx_target_version", "gc_ip", "family", "apu", "source"}
GC_RE = re.compile(r"^\d+\.\d+\.\d+$")
PCI_RE = re.compile(r"^[0-9A-F]{4}$")

errors = []


def err(msg):
    errors.append(msg)
    print("FAIL:", msg)


def gfx_name(v):
    """ROCm ISA name from a KFD gfx_target_version: gfx<major dec><minor hex><stepping hex>."""
    major, minor, step = v // 10000, (v // 100) % 100, v % 100
    if minor > 15 or step > 15:
        return None  # not representable with one hex digit each
    return f"gfx{major}{minor:x}{step:x}"


def load(name):
    with open(HERE / name, "rb") as f:
        return tomllib.load(f)


# ------------------------------------------------------------------ gfx_targets.toml
targets = load("gfx_targets.toml").get("target", [])
by_version = {}
gc_owner = {}
for i, t in enumerate(targets):
    where = f"gfx_targets.toml target[{i}] ({t.get('gfx_target', '?')})"
    extra = set(t) - TARGET_KEYS
    if extra:
        err(f"{where}: unknown keys {sorted(extra)}")
    for k in ("gfx_target_version", "gfx_target", "source"):
        if k not in t:
            err(f"{where}: missing {k}")
    v = t.get("gfx_target_version")
    if not isinstance(v, int):
        err(f"{where}: gfx_target_version is not an integer")
        continue
    if v in by_version:
        err(f"{where}: duplicate gfx_target_version {v}")
    by_version[v] = t
    if gfx_name(v) != t.get("gfx_target"):
        err(f"{where}: gfx_target {t.get('gfx_target')!r} != formula {gfx_name(v)!r} for {v}")
    if "family" in t and t["family"] not in FAMILIES:
        err(f"{where}: family {t['family']!r} not in enum")
    if "apu" in t and not isinstance(t["apu"], bool):
        err(f"{where}: apu is not a boolean")
    for gc in t.get("gc_ips", []):
        if not GC_RE.match(gc):
            err(f"{where}: bad GC IP {gc!r}")
        if gc in gc_owner and gc not in MULTI_VALUE_GC:
            err(f"{where}: GC IP {gc} also maps to {gc_owner[gc]}")
        gc_owner.setdefault(gc, v)
names = [t.get("gfx_target") for t in targets]
for n in {n for n in names if names.count(n) > 1}:
    err(f"gfx_targets.toml: gfx_target {n} appears more than once")
missing = EXPECTED_VERSIONS - by_version.keys()
if missing:
    err(f"gfx_targets.toml: missing KFD values {sorted(missing)}")
extra_v = by_version.keys() - EXPECTED_VERSIONS
if extra_v:
    print(f"note: gfx_targets.toml has values beyond the research list: {sorted(extra_v)}")

# ------------------------------------------------------------------ gpus.toml
gpus = load("gpus.toml").get("gpu", [])
pci_owner = {}
for i, g in enumerate(gpus):
    where = f"gpus.toml gpu[{i}] ({g.get('product', '?')})"
    extra = set(g) - GPU_KEYS
    if extra:
        err(f"{where}: unknown keys {sorted(extra)}")
    for k in ("product", "pci_ids", "source"):
        if k not in g:
            err(f"{where}: missing {k}")
    ids = g.get("pci_ids", [])
    if not ids:
        err(f"{where}: empty pci_ids")
    for pid in ids:
        if not isinstance(pid, str) or not PCI_RE.match(pid):
            err(f"{where}: PCI id {pid!r} is not 4 upper-case hex digits")
        if pid in pci_owner:
            err(f"{where}: PCI id {pid} already in {pci_owner[pid]}")
        else:
            pci_owner[pid] = g.get("product")
    if "apu" in g and not isinstance(g["apu"], bool):
        err(f"{where}: apu is not a boolean")
    if "family" in g and g["family"] not in FAMILIES:
        err(f"{where}: family {g['family']!r} not in enum")
    if "gc_ip" in g and not GC_RE.match(g["gc_ip"]):
        err(f"{where}: bad gc_ip {g['gc_ip']!r}")
    v = g.get("gfx_target_version")
    if v is None:
        if "gfx_target" in g or "gc_ip" in g:
            err(f"{where}: gfx_target/gc_ip given without gfx_target_version")
        continue
    if gfx_name(v) != g.get("gfx_target"):
        err(f"{where}: gfx_target {g.get('gfx_target')!r} != formula {gfx_name(v)!r} for {v}")
    t = by_version.get(v)
    if t is None:
        err(f"{where}: gfx_target_version {v} not in gfx_targets.toml")
        continue
    if t.get("gfx_target") != g.get("gfx_target"):
        err(f"{where}: gfx_target differs from gfx_targets.toml")
    if "family" in t and g.get("family") != t["family"]:
        err(f"{where}: family {g.get('family')!r} != gfx_targets.toml {t['family']!r}")
    if "apu" in t and "apu" in g and g["apu"] != t["apu"]:
        err(f"{where}: apu {g['apu']} != gfx_targets.toml {t['apu']}")
    if "gc_ip" in g and g["gc_ip"] not in t.get("gc_ips", []):
        err(f"{where}: gc_ip {g['gc_ip']} not among {t.get('gc_ips')} for {v}")

# ------------------------------------------------------------------ amdgpu.ids
raw = (HERE / "amdgpu.ids").read_bytes()
if hashlib.sha256(raw).hexdigest() != AMDGPU_IDS_SHA256:
    err("amdgpu.ids: sha256 differs from the libdrm copy recorded in PROVENANCE.md")
ids_devs = set()
version_line = None
for n, line in enumerate(raw.decode("utf-8").splitlines(), 1):
    if not line or line.startswith("#"):
        continue
    if version_line is None:
        version_line = line
        continue
    # libdrm's parser (strtok on ',' then skips blanks) accepts spaces as well as the
    # documented single tab; upstream line "7481,   C7,     AMD Steam Machine" uses spaces.
    m = re.match(r"^([0-9A-F]{4}),[ \t]*([0-9A-F]{2}),[ \t]*(\S.*)$", line)
    if not m:
        err(f"amdgpu.ids line {n}: unexpected format {line!r}")
        continue
    if not re.match(r"^[0-9A-F]{4},\t[0-9A-F]{2},\t\S", line):
        print(f"note: amdgpu.ids line {n} separates fields with spaces, not a tab: {line!r}")
    ids_devs.add(m.group(1))
if version_line != "1.0.0":
    err(f"amdgpu.ids: table version line is {version_line!r}, expected '1.0.0'")
not_named = sorted(p for p in pci_owner if p not in ids_devs)

# ------------------------------------------------------------------ env_vars.toml
# [[var]] (what `set env.X` manages), [[not_read]] (names nothing reads) and [[debug]]
# (debugging switches): one table per name, every user-facing field present, public sources.
env = load("env_vars.toml")
ENV_FIELDS = {"var": {"name", "check", "source"}, "not_read": {"name", "why", "hint", "source"},
              "debug": {"name", "cost", "hint", "source"}}
env_names = {}
for table, required in ENV_FIELDS.items():
    for e in env.get(table, []):
        missing = required - e.keys()
        if missing:
            err(f"env_vars.toml [[{table}]] {e.get('name')}: lacks {sorted(missing)}")
        name = e.get("name", "")
        if table != "debug" and name in env_names:
            err(f"env_vars.toml: {name} is in [[{env_names[name]}]] and [[{table}]]")
        env_names.setdefault(name, table)
        for note in ("shared/", "research/", "seeds/", ".md"):
            if note in e.get("source", ""):
                err(f"env_vars.toml {name}: source cites development notes ({note})")
        if table == "var" and e.get("on_invalid", "ignored") not in ("ignored", "fails"):
            err(f"env_vars.toml {name}: on_invalid must be ignored or fails")
        if table == "debug" and e.get("on") and e.get("off"):
            err(f"env_vars.toml {name}: [[debug]] takes `on` or `off`, not both")
for e in env.get("debug", []):
    if env_names.get(e["name"]) == "not_read":
        err(f"env_vars.toml {e['name']}: a variable nothing reads cannot be a debugging switch")

# ------------------------------------------------------------------ known_issues.toml
# What the C++ parser (core/knowledge/known_issues.cc) does not check: every gfx target a rule
# names is one gfx_targets.toml knows (a typo would never match), sources are public (no
# development notes), a tracker issue is cited by its address, and versions look like versions.
issues = load("known_issues.toml").get("issue", [])
known_gfx = {t.get("gfx_target") for t in targets}
VERSION_RE = re.compile(r"^\d+(\.\d+)*$")
issue_ids = set()
for i, issue in enumerate(issues):
    where = f"known_issues.toml issue[{i}] ({issue.get('id', '?')})"
    if issue.get("id") in issue_ids:
        err(f"{where}: duplicate id")
    issue_ids.add(issue.get("id"))
    when = issue.get("when", {})
    for gfx in when.get("gfx", []):
        if gfx not in known_gfx:
            err(f"{where}: gfx {gfx!r} is not in gfx_targets.toml")
    for key in ("rocm_min", "rocm_below", "kernel_min", "kernel_below"):
        if key in when and not VERSION_RE.match(when[key]):
            err(f"{where}: {key} {when[key]!r} is not a version")
    if when.get("log_only") and not issue.get("symptoms"):
        err(f"{where}: log_only without symptoms")
    sources = issue.get("sources", [])
    if not sources:
        err(f"{where}: no sources")
    for src in sources:
        for note in ("shared/", "research/", "seeds/", "seed-fact-check"):
            if note in src:
                err(f"{where}: source cites development notes ({note}): {src!r}")
        if re.search(r"(^|\s)#\d+", src.split(" (")[0]):
            err(f"{where}: cite a tracker issue by its https address, not #N: {src!r}")
    for sym in issue.get("symptoms", []) + issue.get("requires_symptom", []):
        if not sym.strip():
            err(f"{where}: an empty symptom matches every log")
    if issue.get("requires_symptom") and not issue.get("symptoms"):
        err(f"{where}: requires_symptom without symptoms")

# ------------------------------------------------------------------ runtime_code.toml
# What RuntimeCode::Parse (core/knowledge/runtime_code.cc) checks too, so a data edit fails here
# first: every target is in gfx_targets.toml, versions are release lines ascending within a kind,
# pytorch builds name their ROCm, sources are present and public.
runtime = load("runtime_code.toml")
BUILD_KEYS = {"kind", "version", "rocm", "targets", "source", "note"}
LINE_RE = re.compile(r"^\d+\.\d+$")


def line_key(text):
    major, minor = text.split(".")
    return int(major), int(minor)


builds = runtime.get("build", [])
last_by_kind = {}
for i, b in enumerate(builds):
    where = f"runtime_code.toml build[{i}] ({b.get('kind', '?')} {b.get('version', '?')})"
    extra = set(b) - BUILD_KEYS
    if extra:
        err(f"{where}: unknown keys {sorted(extra)}")
    if b.get("kind") not in ("pytorch", "rocm", "therock"):
        err(f"{where}: kind must be pytorch, rocm or therock")
    version = b.get("version", "")
    if not LINE_RE.match(version):
        err(f"{where}: version {version!r} is not a release line N.N")
        continue
    rocm = b.get("rocm")
    if (b.get("kind") == "pytorch") != (rocm is not None):
        err(f"{where}: rocm is required for pytorch builds and refused for others")
    if rocm is not None and not LINE_RE.match(rocm):
        err(f"{where}: rocm {rocm!r} is not a release line N.N")
        continue
    key = (line_key(version), line_key(rocm) if rocm else (0, 0))
    prev = last_by_kind.get(b.get("kind"))
    if prev is not None and not prev < key:
        err(f"{where}: does not come after the previous {b.get('kind')} build")
    last_by_kind[b.get("kind")] = key
    gfx = b.get("targets", [])
    if not gfx:
        err(f"{where}: no targets")
    if len(set(gfx)) != len(gfx):
        err(f"{where}: a target appears twice")
    for name in gfx:
        if name not in known_gfx:
            err(f"{where}: target {name!r} is not in gfx_targets.toml")
    source = b.get("source", "")
    if not source.strip():
        err(f"{where}: no source")
    for note in ("shared/", "research/", "seeds/", "seed-fact-check"):
        if note in source or note in b.get("note", ""):
            err(f"{where}: cites development notes ({note})")

# ------------------------------------------------------------------ summary
print(f"gfx_targets.toml: {len(targets)} targets")
print(f"gpus.toml: {len(gpus)} entries, {len(pci_owner)} PCI ids "
      f"({sum('gfx_target_version' in g for g in gpus)} with a gfx target)")
print(f"amdgpu.ids: {len(ids_devs)} device ids, table version {version_line}")
print(f"env_vars.toml: {len(env.get('var', []))} variables, {len(env.get('not_read', []))} not read, "
      f"{len(env.get('debug', []))} debugging switches")
print(f"known_issues.toml: {len(issues)} issues")
print(f"runtime_code.toml: {len(builds)} builds")
print(f"note: gpus.toml PCI ids without an amdgpu.ids name: {' '.join(not_named) or 'none'}")
if errors:
    print(f"{len(errors)} problem(s)")
    sys.exit(1)
print("OK")
