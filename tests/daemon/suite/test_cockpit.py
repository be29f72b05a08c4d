# rocmtune's Cockpit page (cockpit/) in a real browser: Debian's cockpit-ws with --local-session
# (cockpit-bridge) on 127.0.0.1:9090 in a network namespace of its own, the private system bus
# with rocmtuned on a world, headless Debian chromium driven by python3-selenium + chromedriver
# (tests/daemon/cockpit_browser.py). What the page shows must be what rocmtuned's documents say
# (the same documents rocmtunectl renders); a change made there must land in the world's files
# and in history, and be undone by its Revert; an unprivileged user's change is refused with the
# reason and writes nothing; no console error, every control named, no sideways scrolling at
# 1280x800 or 400 px wide. Screenshots go to ./cockpit-artifacts (the test's build directory).
import json
import math
import os
import pwd
import subprocess
import unittest

from fixture import DaemonTest

TIMEOUT = 600
LABELS = "system"
PROFILE = "rdna2-consumer-compat"
ENV_FILE = "etc/environment.d/90-rocmtune.conf"
# A trial whose check failed, as the trial boot's check leaves the state (core/plan/trial_state.h).
FAILED_TRIAL = {
    "schema": "rocmtune.trial.v1", "id": "0badc0de", "state": "failed",
    "created": "2026-11-27T10:00:00Z", "updated": "2026-11-27T10:03:00Z", "setup": "grub-debian",
    "entry": "boot/grub/rocmtune-trial.cfg", "tokens": ["iommu=pt", "panic=10", "rocmtune.trial=0badc0de"],
    "request": {"verb": "set", "profile": "", "args": ["cmdline.iommu=pt"], "reverts": "", "admin_lines": False,
                "force": False},
    "baseline": {"gpus": [{"pci": "0000:03:00.0", "driver": "amdgpu"}], "verdict": "safe"},
    "seen": ["FAILED: a GPU reset in this boot's kernel log"], "transaction": "",
}
# An admin's profile whose plan needs a reboot (a module option).
TRIAL_PROFILE = """schema_version = 1
description = "amdgpu retries page faults (a boot change to try first)"

[match]
gfx = ["gfx1010"]

[[items]]
id = "retry"
action = "set"
key = "amdgpu.noretry"
value = "0"
why = "the test's boot change"
source = "tests/daemon/suite/test_cockpit.py"
"""
ARTIFACTS = os.path.join(os.getcwd(), "cockpit-artifacts")
# The label colour each compute verdict gets (cockpit/render.js), "" for none: PatternFly's grey.
VERDICT_COLOURS = {"safe": "pf-m-green", "unknown": "", "unsupported": "pf-m-orange", "unsafe": "pf-m-red",
                   "unusable": "pf-m-red"}
# The system-memory limit rows of the memory picture, with the daemon's field and the limited_by
# that names it (core/diagnose/rocm_memory.h).
LIMITS = (("gtt", "gtt_bytes", ("gtt",)), ("ttm", "ttm_limit_bytes", ("ttm.pages_limit", "amdttm.pages_limit")),
          ("kfd", "kfd_system_limit_bytes", ("ram",)))


def size_text(n):
    """A size as rocmtune prints it (core/util/byte_size.h): binary units, a whole number without a
    fraction, else one decimal rounded down."""
    units = ["bytes", "KiB", "MiB", "GiB", "TiB", "PiB", "EiB"]
    u, v = 0, float(n)
    while v >= 1024 and u < len(units) - 1:
        v /= 1024
        u += 1
    if u == 0:
        return f"{n} bytes"
    return f"{int(v)} {units[u]}" if v == int(v) else f"{math.floor(v * 10) / 10:.1f} {units[u]}"


class CockpitTest(DaemonTest):
    def setUp(self):
        super().setUp()
        self.require_root("the helper, polkitd and the network namespace need root")
        for tool, package in (("/usr/lib/cockpit/cockpit-ws", "cockpit-ws"), ("cockpit-bridge", "cockpit-bridge"),
                              ("chromium", "chromium"), ("chromedriver", "chromium-driver"), ("ip", "iproute2")):
            self.require_tool(tool, package)
        if subprocess.run(["/usr/bin/python3", "-c", "import selenium"], capture_output=True).returncode != 0:
            raise unittest.SkipTest("python3-selenium is not installed")
        probe = subprocess.run(["unshare", "--net", "true"], capture_output=True, text=True)
        if probe.returncode != 0:
            raise unittest.SkipTest(f"no network namespace here: {probe.stderr.strip()}")
        self.start_bus("/usr/share/dbus-1/system.d")
        self.start_polkitd()
        os.makedirs(ARTIFACTS, exist_ok=True)

    def serve(self, world):
        self.w = self.world(world)
        self.start_helper(self.w)
        self.start_daemon(self.w)

    def browse(self, scenario, user="root", profile=PROFILE, name=""):
        argv = ["unshare", "--net", "/usr/bin/python3", os.path.join(self.pydir, "cockpit_browser.py"),
                "--bus", self.bus_address, "--package", os.path.join(self.src, "cockpit"), "--world", self.w,
                "--artifacts", ARTIFACTS, "--scenario", scenario, "--user", user, "--profile", profile,
                "--name", name]
        r = self.run_cmd(argv, timeout=TIMEOUT - 60)
        print(r.stderr[-4000:])
        self.assertEqual(r.returncode, 0, r.stderr[-4000:])
        report = json.loads(r.stdout)
        if "browser_unavailable" in report:
            raise unittest.SkipTest(f"headless chromium cannot run here: {report['browser_unavailable']}")
        print(f"cockpit ({scenario}): {report['seconds']} s in the browser; screenshots: "
              f"{', '.join(report['screenshots'])}")
        self.assertNotIn("failure", report, json.dumps(report, indent=1)[:6000])
        self.assertEqual(report["errors"], [], "errors the page met")
        self.assertEqual(report["console"], [], "the console's errors")
        return report

    def docs(self):
        """The documents the page renders, read from rocmtuned directly."""
        return {"status": self.doc("Describe"),
                "doctor": self.doc("Doctor", "s", ""),
                **{w: self.doc("CheckCompute", "ss", w, "") for w in ("any", "conv", "gemm")}}

    def doc(self, method, *args):
        return json.loads(self.call_json(method, *args))

    def assert_same_as_daemon(self, report):
        docs = self.docs()
        status = docs["status"]
        self.assertEqual(report["state"], "ready", report["status_line"])
        # Each GPU with its gfx target and, per workload, the daemon's verdict.
        self.assertEqual(len(report["gpus"]), len(status["gpus"]))
        for text, g in zip(report["gpus"], status["gpus"]):
            self.assertIn(g["id"], text)
            self.assertIn(g["gfx_target"], text)
            self.assertIn(g["family"], text)
            for w, label in (("any", "any workload"), ("conv", "convolutions"), ("gemm", "GEMM")):
                mine = next(x for x in docs[w]["gpus"] if x["id"] == g["id"])
                line = next(ln for ln in text.splitlines() if ln.startswith(f"Compute, {label}"))
                self.assertTrue(line.endswith(": " + mine["state"]), f"{line!r} vs {mine['state']}")
                for reason in mine["reasons"]:
                    self.assertIn(reason["title"], text)
        # Every finding, in the daemon's order, with its fix and sources.
        findings = docs["doctor"]["findings"]
        self.assertGreater(len(findings), 0)
        self.assertEqual(len(report["findings"]), len(findings))
        for text, f in zip(report["findings"], findings):
            self.assertIn(f["what"], text)
            if f["fix"]["text"]:
                self.assertIn(f["fix"]["text"], text)
            for s in f["sources"]:
                self.assertIn(s, text)
            # Every place that writes the setting, as "/file:line" (one finding per fact).
            for p in f.get("places", []):
                self.assertIn("/" + p["file"] + (f":{p['line']}" if p["line"] else ""), text)
        self.assertEqual(report["knob_keys"], [k["key"] for k in status["knobs"]])
        # The GPU faults section says what the daemon's Faults says (no log in these worlds).
        faults = self.doc("Faults", "it", "1", "0")
        if faults["source"] == "none":
            self.assertEqual(len(report["faults"]), 1)
            self.assertIn("The system's log was not read", report["faults"][0])
        else:
            self.assertEqual(len(report["faults"]), max(1, len(faults["faults"])))
        self.assertIn(PROFILE, report["profiles"])
        self.assertEqual(report["unnamed_controls"], [])
        self.assert_badges(report, docs)
        self.assert_memory(report, status)

    def assert_badges(self, report, docs):
        """Each verdict is a label with the daemon's word, coloured by it: the overview's per
        workload, each GPU card's per workload."""
        self.assertEqual(len(report["badges"]["overview"]), 3, "one verdict label per workload in the overview")
        for badge, w in zip(report["badges"]["overview"], ("any", "conv", "gemm")):
            state = docs[w]["state"]
            self.assertEqual(badge["text"], state, badge)
            self.assertIn("pf-c-label", badge["cls"].split())
            colour = VERDICT_COLOURS[state]
            if colour:
                self.assertIn(colour, badge["cls"].split(), badge)
        self.assertEqual(len(report["badges"]["gpus"]), len(docs["status"]["gpus"]))
        for badges, g in zip(report["badges"]["gpus"], docs["status"]["gpus"]):
            self.assertEqual(len(badges), 3, badges)
            for badge, w in zip(badges, ("any", "conv", "gemm")):
                state = next(x for x in docs[w]["gpus"] if x["id"] == g["id"])["state"]
                self.assertEqual(badge["text"], state, badge)
                want = VERDICT_COLOURS[state]
                got = [c for c in badge["cls"].split() if c in VERDICT_COLOURS.values()]
                self.assertEqual(got, [want] if want else [], badge)

    def assert_memory(self, report, status):
        """Each GPU's memory picture: the daemon's numbers, each part drawn in proportion and named
        with its size; none where the daemon does not know, which the card then says."""
        self.assertEqual(len(report["memory"]), len(status["gpus"]))
        for picture, text, g in zip(report["memory"], report["gpus"], status["gpus"]):
            m = g["rocm_memory"]
            if m["allocatable_bytes"] is None:
                self.assertIsNone(picture, g["id"])
                self.assertIn("unknown: " + m["unknown"], text)
                continue
            self.assertIsNotNone(picture, f"no memory picture for {g['id']}")
            total = m["allocatable_bytes"]
            self.assertEqual(picture["total"], total)
            self.assertEqual(picture["heading"], "Memory a ROCm program can allocate: " + size_text(total))
            self.assertEqual(picture["role"], "img")
            self.assertIn(size_text(total), picture["label"])
            want = [("vram", m["vram_bytes"])] if m["vram_bytes"] is not None else []
            if g["apu"] and m["gtt_allocatable_bytes"] is not None:
                want.append(("gtt", m["gtt_allocatable_bytes"]))
            self.assertEqual([(p["part"], p["bytes"]) for p in picture["parts"]], want)
            self.assertEqual(sum(b for _, b in want), total, "the parts make up what ROCm can allocate")
            self.assertEqual(len({p["colour"] for p in picture["parts"]}), len(want), "each part a colour of its own")
            for p in picture["parts"]:
                self.assertAlmostEqual(p["px"], max(2, picture["bar_px"] * p["bytes"] / total), delta=1.5, msg=p)
                self.assertTrue(p["legend"].endswith(": " + size_text(p["bytes"])), p)
            rows = [(key, m[field], m["limited_by"] in by) for key, field, by in LIMITS if m[field] is not None]
            if m["gtt_allocatable_bytes"] is None:
                self.assertEqual(picture["limits"], [])
                continue
            self.assertEqual([(r["limit"], r["bytes"], r["limiting"]) for r in picture["limits"]], rows)
            self.assertEqual(min(b for _, b, _ in rows), m["gtt_allocatable_bytes"])
            top = max(b for _, b, _ in rows)
            for r in picture["limits"]:
                self.assertIn(size_text(r["bytes"]), r["text"])
                self.assertEqual("(the limit)" in r["text"], r["limiting"], r)
                self.assertAlmostEqual(r["px"], r["bar_px"] * r["bytes"] / top, delta=1.5, msg=r)

    def test_a_world_with_safe_gpus_reads_the_same(self):
        # Eight MI210s where every workload is safe: the page's verdicts are the daemon's, both ways.
        # A trial that failed there is shown with what its check saw, and can be dismissed.
        self.w = self.world("mi210x8")
        os.makedirs(os.path.join(self.w, "var/lib/rocmtune"), exist_ok=True)
        with open(os.path.join(self.w, "var/lib/rocmtune/trial"), "w") as f:
            json.dump(FAILED_TRIAL, f, indent=2)
        self.start_helper(self.w)
        self.start_daemon(self.w)
        report = self.browse("read", name="mi210x8")
        self.assert_same_as_daemon(report)
        self.assert_fits(report)
        self.assertEqual(len(report["gpus"]), 8)
        self.assertIn("Compute, any workload\nsafe", report["overview"])
        trial = self.doc("Trial")
        self.assertEqual(trial["state"], "failed", trial)
        self.assertIn(f"Trial\n{trial['id']}", report["trial_section"])
        self.assertIn("failed: the change was not kept", report["trial_section"])
        self.assertIn(trial["seen"][0], report["trial_section"])
        self.assertIn("Dismiss the failed trial", report["trial_section"])

    def test_a_logged_gpu_fault_is_listed_with_its_cause(self):
        # An RX 5700 XT whose journal (written by the real systemd-journal-remote) holds this
        # boot's page fault of python3 (pid 4242, still running with HSA_OVERRIDE_GFX_VERSION=10.3.0)
        # and a GPU reset: the page lists each of the daemon's records, newest first, with the
        # process, the GPU, the override and the likely cause with its fix.
        self.require_tool(self.JOURNAL_REMOTE, "systemd-journal-remote")
        self.w = self.world("rx5700xt")
        boot = "5d0c1e2f3a4b5c6d7e8f901234567890"
        dev = "amdgpu 0000:28:00.0: amdgpu: "
        at = 1795960980000000  # 2026-11-29T14:03:00Z

        def kernel(usec, message):
            return [("__REALTIME_TIMESTAMP", str(usec)), ("__MONOTONIC_TIMESTAMP", str(usec % 1000000000)),
                    ("_BOOT_ID", boot), ("_TRANSPORT", "kernel"), ("PRIORITY", "3"),
                    ("SYSLOG_IDENTIFIER", "kernel"), ("MESSAGE", message)]
        for rel, text in (("proc/sys/kernel/random/boot_id", "5d0c1e2f-3a4b-5c6d-7e8f-901234567890\n"),
                          ("proc/4242/comm", "python3\n"),
                          ("proc/4242/status", "Name:\tpython3\nUid:\t0\t0\t0\t0\n"),
                          ("proc/4242/environ", "HOME=/root\0HSA_OVERRIDE_GFX_VERSION=10.3.0\0PATH=/usr/bin\0")):
            os.makedirs(os.path.dirname(os.path.join(self.w, rel)), exist_ok=True)
            with open(os.path.join(self.w, rel), "w") as f:
                f.write(text)
        self.write_world_journal(self.w, "0e1d2c3b4a5968778695a4b3c2d1e0f0", "system.journal", [
            kernel(at, dev + "[gfxhub] page fault (src_id:0 ring:24 vmid:8 pasid:32770)"),
            kernel(at + 5, dev + " Process python3 pid 4242 thread python3 pid 4251"),
            kernel(at + 1000000, dev + "GPU reset begin!"),
        ])
        self.start_helper(self.w)
        self.start_daemon(self.w)
        report = self.browse("read", name="faults")
        self.assert_same_as_daemon(report)
        self.assert_fits(report)
        faults = self.doc("Faults", "it", "1", "0")
        self.assertEqual(faults["source"], "journal", faults)
        self.assertEqual(len(report["faults"]), len(faults["faults"]))
        self.assertGreaterEqual(len(faults["faults"]), 2, faults)
        for text, f in zip(report["faults"], reversed(faults["faults"])):
            self.assertTrue(text.lower().startswith(f["kind"] + " "), text)  # the badge (upper case in CSS)
            self.assertIn(f["description"][1:], text)
        reset = next(t for t, f in zip(report["faults"], reversed(faults["faults"])) if f["kind"] == "gpu-reset")
        self.assertNotIn("program", reset)  # a reset names no program
        page = next(t for t, f in zip(report["faults"], reversed(faults["faults"])) if f["kind"] == "page-fault")
        record = next(f for f in faults["faults"] if f["kind"] == "page-fault")
        self.assertIn("python3 (pid 4242", page)
        self.assertIn("card1 (gfx1010)", page)
        self.assertIn("with HSA_OVERRIDE_GFX_VERSION=10.3.0", page)
        self.assertTrue(record["likely_cause"], record)
        cause = next(c for c in record["causes"] if c["id"] == record["likely_cause"])
        self.assertIn("Likely cause: " + cause["what"], page)
        self.assertIn("Fix: " + cause["fix"]["text"], page)

    def assert_fits(self, report):
        self.assertLessEqual(report["wide_overflow"], 0, "sideways scrolling at 1280x800")
        self.assertLessEqual(report["narrow_overflow"], 0, "sideways scrolling at 400 px")

    def test_an_apu_shows_the_memory_rocm_can_allocate(self):
        # A Strix Point APU (Radeon 890M, 512 MiB carve-out, TTM's pages_limit below RAM): its card
        # draws what a ROCm program can allocate, the VRAM and the system memory KFD allows, from
        # the daemon's numbers, and the limits on that system memory with TTM's marked as the one
        # that caps it; the verdict (unsafe here) is a red label with its word.
        self.serve("strixpoint")
        report = self.browse("read", name="strixpoint")
        self.assert_same_as_daemon(report)
        self.assert_fits(report)
        status = self.doc("Describe")
        g = status["gpus"][0]
        self.assertTrue(g["apu"], g)
        self.assertEqual(g["rocm_memory"]["limited_by"], "ttm.pages_limit")
        picture = report["memory"][0]
        self.assertEqual([p["part"] for p in picture["parts"]], ["vram", "gtt"])
        self.assertEqual([r["limit"] for r in picture["limits"] if r["limiting"]], ["ttm"])
        self.assertTrue(any("pf-m-red" in b["cls"] for b in report["badges"]["overview"]), report["badges"])

    def test_a_boot_change_is_offered_as_a_trial(self):
        # A Debian GRUB machine (what trials need, as daemon.trial's world) with an admin's profile
        # that changes a module option: its plan needs a reboot, so the page offers the trial
        # (checked) and Apply asks for one; on a tree rocmtuned plans a trial only, and the page
        # shows its refusal word for word. Nothing is written.
        self.w = self.world("rx5700xt")
        for rel, text in (("usr/bin/grub-editenv", "#!/bin/sh\nexit 0\n"),
                          ("etc/grub.d/42_rocmtune", open(os.path.join(self.src, "grub/42_rocmtune")).read()),
                          ("proc/self/mountinfo", "22 1 259:2 / / rw,relatime shared:1 - ext4 /dev/nvme0n1p2 rw\n"),
                          ("etc/rocmtune/profiles/retry.toml", TRIAL_PROFILE)):
            os.makedirs(os.path.dirname(os.path.join(self.w, rel)), exist_ok=True)
            with open(os.path.join(self.w, rel), "w") as f:
                f.write(text)
        self.start_helper(self.w)
        self.start_daemon(self.w)
        before = self.world_hash(self.w)
        report = self.browse("trial", profile="retry")
        self.assertIn("No trial boot was ever prepared here.", report["trial_section"])
        self.assertIn("+options amdgpu noretry=0", report["plan"])
        self.assertIn("Takes effect at the next boot.", report["plan"])
        self.assertTrue(report["trial_offered"], "no trial offered for a plan that needs a reboot")
        self.assertEqual(report["apply"]["state"], "failed", report["apply"]["text"])
        self.assertIn("Trial of retry", report["apply"]["text"])
        self.assertIn("a trial boots this machine: on a --root tree it is planned only", report["apply"]["text"])
        self.assertEqual(report["reapply"]["state"], "done", report["reapply"]["text"])
        self.assertIn("Nothing to change.", report["reapply"]["text"])
        self.assertEqual(self.world_hash(self.w), before, "the trial's refusal or the reapply wrote to the world")

    def test_reads_applies_and_reverts_as_root(self):
        self.serve("rx6600")
        before = self.world_hash(self.w)
        report = self.browse("root")
        self.assert_same_as_daemon(report)
        self.assertLessEqual(report["wide_overflow"], 0, "sideways scrolling at 1280x800")
        self.assertLessEqual(report["narrow_overflow"], 0, "sideways scrolling at 400 px")
        # Keyboard: Tab reached the profile choice, then its button; Enter showed the plan and moved
        # the focus to it.
        self.assertIn("profile-select", report["tab_order"])
        self.assertEqual(report["tab_order"][-1], "plan-button")
        self.assertEqual(report.get("plan_focus"), "plan-h")
        # The plan shows the diff rocmtunectl would write, before anything is written.
        self.assertIsNone(report["env_before"])
        self.assertIn("+HSA_OVERRIDE_GFX_VERSION=10.3.0", report["plan"])
        # Applied: the file, the outcome, history with a Revert, the active profile.
        self.assertEqual(report["apply"]["state"], "done", report["apply"]["text"])
        self.assertIn("Transaction 1 committed", report["apply"]["text"])
        self.assertIn("HSA_OVERRIDE_GFX_VERSION=10.3.0", report["env_after_apply"] or "")
        self.assertTrue(any(f"apply {PROFILE}" in row for row in report["history_after_apply"]))
        self.assertIn(f"Active profile\n{PROFILE}", report["overview_after_apply"])
        # Reverted: the file gone, history says so, the world as before but for the journal.
        self.assertEqual(report["revert"]["state"], "done", report["revert"]["text"])
        self.assertIsNone(report["env_after_revert"])
        self.assertEqual(len(report["history_after_revert"]), 2)
        # Applied from outside the page: shown without a reload (TransactionCommitted).
        self.assertEqual(report["external_apply"], 0)
        self.assertEqual(len(report["history_after_external"]), 3)
        self.assertIn(f"apply {PROFILE}", report["history_after_external"][2])
        # Reset, confirmed: the file gone again.
        self.assertEqual(report["reset_confirm_focus"], "reset-confirm")
        self.assertEqual(report["reset"]["state"], "done", report["reset"]["text"])
        self.assertIsNone(report["env_after_reset"])
        history = self.doc("History")
        self.assertEqual([t["verb"] for t in history["transactions"]], ["apply", "revert", "apply", "reset"])
        self.assertEqual(len(report["history_after_reset"]), 4)
        self.assertFalse(any(t["in_effect"] for t in history["transactions"] if t["verb"] == "apply"))
        self.assertNotEqual(self.world_hash(self.w), before)  # the journal holds them
        self.assertFalse(os.path.exists(os.path.join(self.w, ENV_FILE)))

    def test_an_unprivileged_user_sees_why_and_changes_nothing(self):
        self.require_nobody()
        self.serve("rx6600")
        before = self.world_hash(self.w)
        report = self.browse("denied", user="nobody")
        self.assertEqual(report["state"], "ready", report["status_line"])
        self.assertIn("+HSA_OVERRIDE_GFX_VERSION=10.3.0", report["plan"])
        self.assertEqual(report["apply"]["state"], "failed", report["apply"]["text"])
        self.assertIn("Not authorized", report["apply"]["text"])
        uid = pwd.getpwnam("nobody").pw_uid
        self.assertIn("org.rocmtune1.apply needs an administrator's authentication, and no polkit agent "
                      f"answered for uid {uid}", report["apply"]["text"])
        self.assertIsNone(report["env_after_apply"])
        self.assertEqual(self.world_hash(self.w), before)
