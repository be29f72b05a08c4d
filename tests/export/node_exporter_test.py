#!/usr/bin/python3
"""rocmtunectl export --format prometheus, read by the real engine: Debian 12's node_exporter
(prometheus-node-exporter 1.5.0, its textfile collector only, on a private loopback port), and
checked by promtool (prometheus 2.42, `promtool check metrics`). Both are unpacked from the .debs
scripts/install-deps.sh keeps in /var/cache/rocmtune-tests: installed, each would start a server.

For every world, as captured and with the inputs where the one-verdict issue found the verdicts
hidden (an HSA_OVERRIDE_GFX_VERSION of another ISA in /etc/environment, no KFD, a KFD topology
without the first GPU), and with rocmtune's own state (a pending reboot after a set, drift after
someone edits rocmtune's file): the export is written as node_exporter's docs say (a temporary in
the directory, renamed to rocmtune.prom), scraped over HTTP, parsed with python3-prometheus-client,
and every rocmtune_* value must equal what `status --json`, `check-compute --json --workload W`,
`verify --json` and `trial --json` say for the same tree.

  node_exporter_test.py ROCMTUNECTL WORLDS_DIR CACHE_DIR [WORLD...]
Exit 77 (skip) with the reason when a tool is missing.
"""
import collections
import glob
import json
import os
import shutil
import socket
import subprocess
import sys
import tempfile
import time
import urllib.request

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from export_lib import ctl  # noqa: E402

DEBS = "/var/cache/rocmtune-tests"
SKIP = 77
WORKLOADS = ("any", "conv", "gemm")


def skip(why):
    print(f"SKIP: {why}")
    sys.exit(SKIP)


def unpack(cache, package, member):
    """The binary `member` of the kept .deb `package`, unpacked once into cache."""
    target = os.path.join(cache, package, member)
    if os.access(target, os.X_OK):
        return target
    debs = sorted(glob.glob(os.path.join(DEBS, f"{package}_*.deb")))
    if not debs:
        skip(f"no {package} .deb in {DEBS} (scripts/install-deps.sh keeps it)")
    if not shutil.which("dpkg-deb"):
        skip("dpkg-deb is not installed")
    out = os.path.join(cache, package)
    shutil.rmtree(out, ignore_errors=True)
    os.makedirs(out)
    subprocess.run(["dpkg-deb", "-x", debs[-1], out], check=True)
    if not os.access(target, os.X_OK):
        skip(f"{debs[-1]} has no {member}")
    return target


def free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


class NodeExporter:
    def __init__(self, binary, textfile_dir):
        self.port = free_port()
        self.url = f"http://127.0.0.1:{self.port}/metrics"
        self.log = open(os.path.join(textfile_dir, "..", "node_exporter.log"), "w")
        self.proc = subprocess.Popen(
            [binary, f"--web.listen-address=127.0.0.1:{self.port}", "--collector.disable-defaults",
             "--collector.textfile", f"--collector.textfile.directory={textfile_dir}"],
            stdout=self.log, stderr=subprocess.STDOUT)
        deadline = time.monotonic() + 30
        while True:
            try:
                self.scrape()
                return
            except OSError:
                if self.proc.poll() is not None or time.monotonic() > deadline:
                    self.stop()
                    raise RuntimeError(f"node_exporter did not answer on {self.url}")
                time.sleep(0.1)

    def scrape(self):
        with urllib.request.urlopen(self.url, timeout=10) as r:
            return r.read().decode()

    def stop(self):
        self.proc.terminate()
        try:
            self.proc.wait(timeout=10)
        except subprocess.TimeoutExpired:
            self.proc.kill()
            self.proc.wait()
        self.log.close()


def samples(text):
    """name -> list of (labels dict, value) of the scrape's rocmtune_ and node_textfile_ series."""
    from prometheus_client.parser import text_string_to_metric_families
    out = collections.defaultdict(list)
    for family in text_string_to_metric_families(text):
        for s in family.samples:
            if s.name.startswith(("rocmtune_", "node_textfile_")):
                out[s.name].append((dict(s.labels), s.value))
    return out


def one(series, name, **labels):
    found = [v for l, v in series.get(name, []) if all(l.get(k) == v2 for k, v2 in labels.items())]
    if len(found) != 1:
        raise AssertionError(f"{name}{labels}: {len(found)} samples in the scrape, expected 1")
    return found[0]


class Checker:
    def __init__(self, rocmtunectl, promtool, exporter, textfile_dir):
        self.ctl = rocmtunectl
        self.promtool = promtool
        self.exporter = exporter
        self.dir = textfile_dir
        self.failures = []
        self.cases = 0

    def publish(self, text):
        tmp = os.path.join(self.dir, f"rocmtune.prom.{os.getpid()}")
        with open(tmp, "w") as f:
            f.write(text)
        os.rename(tmp, os.path.join(self.dir, "rocmtune.prom"))

    def check(self, label, root, write=False):
        self.cases += 1
        try:
            self._check(root, write)
        except AssertionError as e:
            self.failures.append(f"{label}: {e}")

    def _check(self, root, write=False):
        text = ctl(self.ctl, root, "export", "--format", "prometheus", "--no-live")
        if write:
            # The same export through `export --write`: the helper's allow-list takes every world's
            # text (hostile names included) and writes it byte for byte.
            written = write_through_helper(self.ctl, root)
            if written != text:
                raise AssertionError("export --write wrote other bytes than export prints")
        lint = subprocess.run([self.promtool, "check", "metrics"], input=text, capture_output=True, text=True)
        if lint.returncode != 0 or lint.stdout.strip() or lint.stderr.strip():
            raise AssertionError(f"promtool check metrics: exit {lint.returncode}: {lint.stdout}{lint.stderr}")
        self.publish(text)
        s = samples(self.exporter.scrape())
        if one(s, "node_textfile_scrape_error") != 0:
            raise AssertionError("node_exporter could not read the file (node_textfile_scrape_error 1)")
        status = json.loads(ctl(self.ctl, root, "status", "--json"))
        verify = json.loads(ctl(self.ctl, root, "verify", "--json", ok=(0, 6)))
        trial = json.loads(ctl(self.ctl, root, "trial", "--json"))
        gpus = status["gpus"]
        expect = [("rocmtune_gpus", {}, len(gpus)),
                  ("rocmtune_reboot_pending", {}, int(status["pending_reboot"])),
                  ("rocmtune_profile_info", {"profile": status["profile"] or ""}, 1),
                  ("rocmtune_in_effect", {}, int(verify["ok"])),
                  ("rocmtune_trial_state", {"state": trial["state"]}, 1)]
        for g in gpus:
            expect.append(("rocmtune_gpu_info", {"gpu": g["id"], "gfx_target": g["gfx_target"] or "",
                                                 "family": g["family"] or "", "card": g["card"] or ""}, 1))
            expect.append(("rocmtune_gpu_usable", {"gpu": g["id"]}, int(g["compute"]["usable"])))
            expect.append(("rocmtune_gpu_compute_safe", {"gpu": g["id"], "workload": "any"},
                           int(g["compute"]["safe"] is True)))
            expect.append(("rocmtune_gpu_rocm_supported", {"gpu": g["id"]}, int(g["compute"]["supported"])))
        for w in WORKLOADS:
            cc = json.loads(ctl(self.ctl, root, "check-compute", "--json", "--workload", w, ok=(0, 1)))
            # safe is true, false or null (unknown); the state is a label of its own series.
            expect.append(("rocmtune_compute_safe", {"workload": w}, int(cc["safe"] is True)))
            expect.append(("rocmtune_compute_state", {"workload": w, "state": cc["state"]}, 1))
            for g in cc["gpus"]:
                expect.append(("rocmtune_gpu_compute_safe", {"gpu": g["id"], "workload": w}, int(g["safe"] is True)))
                expect.append(("rocmtune_gpu_compute_state", {"gpu": g["id"], "workload": w, "state": g["state"]}, 1))
        severities = collections.Counter(f["severity"] for f in status["findings"])
        for sev in ("error", "warning", "info"):
            expect.append(("rocmtune_findings", {"severity": sev}, severities[sev]))
        by_id = collections.Counter((f["id"], f["severity"], f["gpu"] or "") for f in status["findings"])
        for (fid, sev, gpu), n in by_id.items():
            expect.append(("rocmtune_finding", {"id": fid, "severity": sev, "gpu": gpu}, n))
        if len(s.get("rocmtune_finding", [])) != len(by_id):
            raise AssertionError(f"rocmtune_finding has {len(s.get('rocmtune_finding', []))} series, "
                                 f"status has {len(by_id)} (id, severity, gpu)")
        kinds = collections.Counter(d["kind"] for d in verify["differences"])
        for labels, value in s.get("rocmtune_verify_differences", []):
            expect.append(("rocmtune_verify_differences", labels, kinds[labels["kind"]]))
        if set(kinds) - {l["kind"] for l, _ in s.get("rocmtune_verify_differences", [])}:
            raise AssertionError(f"verify's kinds {sorted(kinds)} are not all exported")
        wrong = []
        for name, labels, value in expect:
            got = one(s, name, **labels)
            if got != value:
                wrong.append(f"{name}{labels} = {got}, status/check-compute/verify say {value}")
        if wrong:
            raise AssertionError("; ".join(wrong))


def write_through_helper(rocmtunectl, root):
    os.makedirs(os.path.join(root, "etc/rocmtune"), exist_ok=True)
    os.makedirs(os.path.join(root, "textfile"), exist_ok=True)
    with open(os.path.join(root, "etc/rocmtune/export.toml"), "w") as f:
        f.write('[prometheus]\nenabled = true\ndirectory = "/textfile"\n')
    ctl(rocmtunectl, root, "export", "--write", "--no-live")
    with open(os.path.join(root, "textfile/rocmtune.prom")) as f:
        return f.read()


def concurrent_reader(rocmtunectl, worlds, tmp, in_place=False):
    """export --write 40 times while a reader reads the file: every read is the whole file (never
    missing, empty or cut). in_place: the negative control, a writer that rewrites the file where
    it is (open, truncate, write in pieces), which the reader must catch."""
    import threading
    w = copy_world(worlds, "mi300x-cpx", tmp)  # the largest export: 64 partitions
    expected = write_through_helper(rocmtunectl, w)
    path = os.path.join(w, "textfile/rocmtune.prom")
    bad, reads = [], [0]
    stop = threading.Event()

    def reader():
        while not stop.is_set():
            try:
                with open(path) as f:
                    got = f.read()
            except OSError as e:
                bad.append(f"read failed: {e}")
                continue
            reads[0] += 1
            if got != expected:
                bad.append(f"a read of {len(got)} bytes, not the {len(expected)} written")
    t = threading.Thread(target=reader)
    t.start()
    try:
        for _ in range(40):
            if in_place:
                with open(path, "w") as f:
                    for i in range(0, len(expected), 4096):
                        f.write(expected[i:i + 4096])
                        f.flush()
                        time.sleep(0.001)
            else:
                ctl(rocmtunectl, w, "export", "--write", "--no-live")
    finally:
        stop.set()
        t.join()
    if reads[0] < 40:
        bad.append(f"only {reads[0]} reads: the reader did not run beside the writes")
    return bad, reads[0]


def copy_world(worlds, name, tmp):
    dst = os.path.join(tmp, name)
    shutil.rmtree(dst, ignore_errors=True)
    shutil.copytree(os.path.join(worlds, name), dst, symlinks=True)
    return dst


def first_gpu_node(root):
    for node in sorted(glob.glob(os.path.join(root, "sys/class/kfd/kfd/topology/nodes/*"))):
        try:
            with open(os.path.join(node, "gpu_id")) as f:
                if f.read().strip() != "0":
                    return node
        except OSError:
            pass
    return None


def main():
    if len(sys.argv) < 4:
        print(__doc__)
        return 2
    rocmtunectl, worlds, cache = sys.argv[1:4]
    names = sys.argv[4:] or sorted(d for d in os.listdir(worlds) if os.path.isdir(os.path.join(worlds, d)))
    if sys.argv[4:]:
        print(f"worlds: {len(names)} named on the command line ({' '.join(names)}), a sample")
    try:
        import prometheus_client.parser  # noqa: F401
    except ImportError:
        skip("python3-prometheus-client is not installed (scripts/install-deps.sh)")
    os.makedirs(cache, exist_ok=True)
    node_exporter = unpack(cache, "prometheus-node-exporter", "usr/bin/prometheus-node-exporter")
    promtool = unpack(cache, "prometheus", "usr/bin/promtool")
    tmp = tempfile.mkdtemp(prefix="export-")
    textfiles = os.path.join(tmp, "textfile")
    os.mkdir(textfiles)
    exporter = NodeExporter(node_exporter, textfiles)
    checker = Checker(rocmtunectl, promtool, exporter, textfiles)
    try:
        for name in names:
            w = copy_world(worlds, name, tmp)
            checker.check(f"{name} as captured", w, write=True)
            for value in ("10.3.0", "11.0.0"):
                with open(os.path.join(w, "etc/environment"), "w") as f:
                    f.write(f"HSA_OVERRIDE_GFX_VERSION={value}\n")
                checker.check(f"{name} with HSA_OVERRIDE_GFX_VERSION={value}", w)
            w = copy_world(worlds, name, tmp)
            node = first_gpu_node(w)
            if node:
                shutil.rmtree(node)
                checker.check(f"{name} with a KFD topology without the first GPU", w)
            shutil.rmtree(os.path.join(w, "sys/class/kfd"), ignore_errors=True)
            checker.check(f"{name} without KFD", w)
        # rocmtune's own state: a reboot pending after a set, then drift in rocmtune's file.
        for name in ("rx5700xt", "rx7900xtx"):
            if name not in names:
                continue
            w = copy_world(worlds, name, tmp)
            ctl(rocmtunectl, w, "set", "amdgpu.noretry=1")
            checker.check(f"{name} after set amdgpu.noretry=1 (reboot pending)", w)
            for conf in glob.glob(os.path.join(w, "etc/modprobe.d/*rocmtune*.conf")):
                with open(conf, "a") as f:
                    f.write("# an admin's edit\n")
            checker.check(f"{name} with rocmtune's modprobe.d file edited (drift)", w)
        if "mi300x-cpx" in names:
            control, _ = concurrent_reader(rocmtunectl, worlds, tmp, in_place=True)
            if not control:
                checker.failures.append("concurrent reader: the in-place writer went unseen (the check cannot fail)")
            bad, reads = concurrent_reader(rocmtunectl, worlds, tmp)
            checker.cases += 1
            checker.failures += [f"concurrent reader: {b}" for b in bad[:5]]
            print(f"concurrent reader: {reads} reads beside 40 writes, {len(bad)} not whole")
    finally:
        exporter.stop()
        shutil.rmtree(tmp, ignore_errors=True)
    for f in checker.failures:
        print(f"FAIL: {f}")
    print(f"{checker.cases - len(checker.failures)} of {checker.cases} cases: node_exporter's scrape equals "
          f"status/check-compute/verify/trial, promtool clean")
    if checker.cases == 0:
        print("FAIL: no case ran")
        return 1
    return 1 if checker.failures else 0


if __name__ == "__main__":
    sys.exit(main())
