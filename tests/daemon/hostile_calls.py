# The hostile calls of daemon_hostile_test.sh, made as root (who is never asked by polkit, so an
# argument the daemon let through would be written): each must get a typed error. Prints one
# line per call; exits 1 when any got something else.
# usage: hostile_calls.py MARKER (a path no call may create)
import sys

import dbus
from busclient import manager, outcome, options

MARKER = sys.argv[1]
BIG = "x" * (1 << 20)
TYPED = {"org.rocmtune1.Error.InvalidArgument", "org.rocmtune1.Error.NotFound", "org.rocmtune1.Error.Refused",
         "org.freedesktop.DBus.Error.InvalidArgs"}
SIGNATURE = {"org.freedesktop.DBus.Error.InvalidArgs"}
INVALID = {"org.rocmtune1.Error.InvalidArgument"}

bus = dbus.SystemBus()
m = manager(bus)


def raw(method, signature, *args):
    return lambda: bus.call_blocking("org.rocmtune1", "/org/rocmtune1", "org.rocmtune1.Manager", method, signature,
                                     args, timeout=60)


def knobs(d):
    return dbus.Dictionary(d, signature="ss")


def strings(items):
    return dbus.Array(items, signature="s")


E = options()
SHELL = [f"$(touch {MARKER})", f"`touch {MARKER}`", f"; touch {MARKER}", f"| touch {MARKER}", "a\nb", "\n", "a\rb",
         "a\tb", " ", "*", "../../../etc/passwd", "/etc/passwd", "-rf", "--force", "a b", "'", '"', "\\"]
cases = [
    # Wrong signatures: the bus library's InvalidArgs before any handler runs.
    ("Apply(i)", raw("Apply", "i", 5), SIGNATURE),
    ("Apply(s) without options", raw("Apply", "s", "rdna1-safe"), SIGNATURE),
    ("Apply(sa{sv}s)", raw("Apply", "sa{sv}s", "rdna1-safe", {}, "x"), SIGNATURE),
    ("Apply(sa{ss})", raw("Apply", "sa{ss}", "rdna1-safe", {"check": "true"}), SIGNATURE),
    ("Set(as)", raw("Set", "asa{sv}", ["amdgpu.noretry=1"], {}), SIGNATURE),
    ("Set(a{sv})", raw("Set", "a{sv}a{sv}", {"amdgpu.noretry": dbus.String("1")}, {}), SIGNATURE),
    ("Set(a{si})", raw("Set", "a{si}a{sv}", {"amdgpu.noretry": 1}, {}), SIGNATURE),
    ("Unset(a{ss})", raw("Unset", "a{ss}a{sv}", {"amdgpu.noretry": ""}, {}), SIGNATURE),
    ("Unset(s)", raw("Unset", "sa{sv}", "amdgpu.noretry", {}), SIGNATURE),
    ("Revert(i)", raw("Revert", "i", 1), SIGNATURE),
    ("Revert(ss)", raw("Revert", "ss", "1", "2"), SIGNATURE),
    ("Revert()", raw("Revert", ""), SIGNATURE),
    ("Reset(s)", raw("Reset", "s", "all"), SIGNATURE),
    ("Describe(s)", raw("Describe", "s", "x"), SIGNATURE),
    ("Plan(a{sv}s)", raw("Plan", "a{sv}s", {}, "rdna1-safe"), SIGNATURE),
    ("History(b)", raw("History", "b", True), SIGNATURE),
    ("CheckCompute(s)", raw("CheckCompute", "s", "conv"), SIGNATURE),
    ("CheckCompute(is)", raw("CheckCompute", "is", 1, ""), SIGNATURE),
    ("CheckCompute(sss)", raw("CheckCompute", "sss", "conv", "", ""), SIGNATURE),
    ("CheckCompute(as,s)", raw("CheckCompute", "ass", ["conv"], ""), SIGNATURE),
    # 1 MiB strings wherever a string goes.
    ("Apply(1 MiB profile)", lambda: m.Apply(BIG, E), TYPED),
    ("Plan(1 MiB profile)", lambda: m.Plan(BIG, E), TYPED),
    ("Set(1 MiB key)", lambda: m.Set(knobs({BIG: "1"}), E), TYPED),
    ("Set(1 MiB module value)", lambda: m.Set(knobs({"amdgpu.noretry": BIG}), E), TYPED),
    ("Set(1 MiB env value)", lambda: m.Set(knobs({"env.HSA_OVERRIDE_GFX_VERSION": BIG}), E), TYPED),
    ("Set(1 MiB cmdline value)", lambda: m.Set(knobs({"cmdline.iommu": BIG}), E), TYPED),
    ("Unset(1 MiB key)", lambda: m.Unset(strings([BIG]), E), TYPED),
    ("Revert(1 MiB id)", lambda: m.Revert(BIG), TYPED),
    ("CheckCompute(1 MiB workload)", lambda: m.CheckCompute(BIG, ""), INVALID),
    ("CheckCompute(1 MiB device)", lambda: m.CheckCompute("conv", BIG), INVALID),
    ("CheckCompute(unknown workload)", lambda: m.CheckCompute("convolution", ""), INVALID),
    ("CheckCompute(workload 'Conv')", lambda: m.CheckCompute("Conv", ""), INVALID),
    ("CheckCompute(unknown device)", lambda: m.CheckCompute("conv", "card99"), {"org.rocmtune1.Error.NotFound"}),
    ("option named 1 MiB", lambda: m.Apply("rdna1-safe", options(**{BIG: dbus.Boolean(True)})), INVALID),
    ("with [1 MiB]", lambda: m.Apply("rdna1-safe", options(**{"with": strings([BIG])})), INVALID),
    # Unknown options and options of the wrong type.
    ("option 'Check'", lambda: m.Apply("rdna1-safe", options(Check=dbus.Boolean(True))), INVALID),
    ("option ''", lambda: m.Apply("rdna1-safe", options(**{"": dbus.Boolean(True)})), INVALID),
    ("option 'with' on Set", lambda: m.Set(knobs({"amdgpu.noretry": "1"}), options(**{"with": strings([])})), INVALID),
    ("check as a string", lambda: m.Apply("rdna1-safe", options(check="true")), INVALID),
    ("check as an int", lambda: m.Apply("rdna1-safe", options(check=dbus.Int32(1))), INVALID),
    ("check as a byte", lambda: m.Set(knobs({"amdgpu.noretry": "1"}), options(check=dbus.Byte(1))), INVALID),
    ("check in a variant in a variant", lambda: m.Apply("rdna1-safe", options(check=dbus.Boolean(True, variant_level=2))),
     INVALID),
    ("force as a list", lambda: m.Unset(strings(["amdgpu.noretry"]), options(force=strings(["yes"]))), INVALID),
    ("with as a dict", lambda: m.Apply("rdna1-safe", options(**{"with": knobs({"a": "b"})})), INVALID),
    ("with as ints", lambda: m.Apply("rdna1-safe", options(**{"with": dbus.Array([1], signature="i")})), INVALID),
    ("with of 10,000", lambda: m.Apply("rdna1-safe", options(**{"with": strings([f"i{n}" for n in range(10000)])})),
     INVALID),
    # 10,000 entries.
    ("Set of 10,000 knobs", lambda: m.Set(knobs({f"amdgpu.p{n}": "1" for n in range(10000)}), E), INVALID),
    ("Unset of 10,000 keys", lambda: m.Unset(strings([f"amdgpu.p{n}" for n in range(10000)]), E), INVALID),
    # Empty things.
    ("Apply('')", lambda: m.Apply("", E), TYPED),
    ("Plan('')", lambda: m.Plan("", E), TYPED),
    ("Set({})", lambda: m.Set(knobs({}), E), INVALID),
    ("Set({'': ''})", lambda: m.Set(knobs({"": ""}), E), TYPED),
    ("Set({'amdgpu.noretry': ''})", lambda: m.Set(knobs({"amdgpu.noretry": ""}), E), TYPED),
    ("Set({'env.HSA_OVERRIDE_GFX_VERSION': ''})", lambda: m.Set(knobs({"env.HSA_OVERRIDE_GFX_VERSION": ""}), E), TYPED),
    ("Unset([])", lambda: m.Unset(strings([]), E), INVALID),
    ("Unset([''])", lambda: m.Unset(strings([""]), E), TYPED),
    ("with ['']", lambda: m.Apply("rdna1-safe", options(**{"with": strings([""])})), TYPED),
    # Keys holding '='.
    ("Set key 'amdgpu.noretry=1'", lambda: m.Set(knobs({"amdgpu.noretry=1": "1"}), E), INVALID),
    ("Set key '=' ", lambda: m.Set(knobs({"=": "1"}), E), INVALID),
    ("Unset key 'amdgpu.noretry=1'", lambda: m.Unset(strings(["amdgpu.noretry=1"]), E), TYPED),
    # Keys a backend would turn into a path or a variable nobody asked for.
    ("Set sysfs.card0.../../x", lambda: m.Set(knobs({"sysfs.card0.../../../etc/passwd": "1"}), E), TYPED),
    ("Set sysfs.../x", lambda: m.Set(knobs({"sysfs.../../etc.passwd": "1"}), E), TYPED),
    ("Set env.LD_PRELOAD", lambda: m.Set(knobs({"env.LD_PRELOAD": "/tmp/x.so"}), E), TYPED),
    ("Set env.PATH", lambda: m.Set(knobs({"env.PATH": "/tmp"}), E), TYPED),
    ("Set amdgpu.noretry\\n", lambda: m.Set(knobs({"amdgpu.noretry\n": "1"}), E), TYPED),
    ("Set module 'amdgpu.noretry options'", lambda: m.Set(knobs({"amdgpu.noretry x": "1"}), E), TYPED),
]
# Newlines and shell metacharacters in every string a caller chooses.
for s in SHELL:
    cases += [
        (f"Apply({s!r})", lambda s=s: m.Apply(s, E), TYPED),
        (f"Plan({s!r})", lambda s=s: m.Plan(s, E), TYPED),
        (f"Revert({s!r})", lambda s=s: m.Revert(s), TYPED),
        (f"Revert('1{s}')", lambda s=s: m.Revert("1" + s), TYPED),
        (f"Set(amdgpu.noretry={s!r})", lambda s=s: m.Set(knobs({"amdgpu.noretry": "1" + s}), E), TYPED),
        (f"Set(ttm.pages_limit={s!r})", lambda s=s: m.Set(knobs({"ttm.pages_limit": "1000" + s}), E), TYPED),
        (f"Set(cmdline.iommu={s!r})", lambda s=s: m.Set(knobs({"cmdline.iommu": "pt" + s}), E), TYPED),
        (f"Set(env.HSA_OVERRIDE_GFX_VERSION={s!r})",
         lambda s=s: m.Set(knobs({"env.HSA_OVERRIDE_GFX_VERSION": "10.3.0" + s}), E), TYPED),
        (f"Set(sysfs.card0.pp_power_profile_mode={s!r})",
         lambda s=s: m.Set(knobs({"sysfs.card0.pp_power_profile_mode": "COMPUTE" + s}), E), TYPED),
        (f"Set(key amdgpu.{s!r})", lambda s=s: m.Set(knobs({"amdgpu." + s: "1"}), E), TYPED),
        (f"Set(key env.{s!r})", lambda s=s: m.Set(knobs({"env.HSA" + s: "1"}), E), TYPED),
        (f"Unset(amdgpu.{s!r})", lambda s=s: m.Unset(strings(["amdgpu.noretry" + s]), E), TYPED),
        (f"with [{s!r}]", lambda s=s: m.Apply("rdna1-safe", options(**{"with": strings([s])})), TYPED),
        (f"CheckCompute(workload {s!r})", lambda s=s: m.CheckCompute(s, ""), TYPED),
        (f"CheckCompute(workload 'conv{s}')", lambda s=s: m.CheckCompute("conv" + s, ""), TYPED),
        (f"CheckCompute(device {s!r})", lambda s=s: m.CheckCompute("conv", s), TYPED),
        (f"CheckCompute(device 'card0{s}')", lambda s=s: m.CheckCompute("conv", "card0" + s), TYPED),
    ]
cases.append(("Revert('1\\nlast')", lambda: m.Revert("1\nlast"), TYPED))
cases.append(("Revert('99999999999999999999999')", lambda: m.Revert("99999999999999999999999"), TYPED))
cases.append(("Revert('-1')", lambda: m.Revert("-1"), TYPED))
cases.append(("Revert('0x1')", lambda: m.Revert("0x1"), TYPED))

bad = 0
for what, call, wanted in cases:
    name, text = outcome(call)
    ok = name in wanted
    line = f"{what[:70]}: {name or 'SUCCEEDED'}: {text[:120]!r}"
    if not ok:
        bad += 1
        print("WRONG " + line + f"  (wanted one of {sorted(wanted)})")
print(f"{len(cases)} hostile calls, {bad} without the typed error")
sys.exit(1 if bad else 0)
