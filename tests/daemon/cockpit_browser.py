#!/usr/bin/python3
"""rocmtune's Cockpit page in a real browser (tests/daemon/suite/test_cockpit.py runs this).

  cockpit_browser.py --bus ADDRESS --package DIR --world DIR --artifacts DIR --scenario NAME
                     [--user USER]

Run in a network namespace of its own (the test starts it under `unshare --net`): it brings up
the loopback, starts Debian's cockpit-ws on 127.0.0.1:9090 with --local-session (cockpit-bridge
as USER, default root, on the private system bus ADDRESS, the page served from DIR through
XDG_DATA_HOME), then drives Debian's headless chromium through chromedriver (python3-selenium)
at the page's own URL. It prints one JSON report on stdout (what the page showed, the world's
files at each checkpoint, the console's errors, the screenshots written to ARTIFACTS); the test
decides. Scenarios: `root` (reads, keyboard, both window sizes, plan, apply, revert), `read`
(what the page shows, nothing more), `trial` (a plan that needs a reboot applied as a trial, and
Reapply) and `denied` (an unprivileged user's refused apply).
"""
import argparse
import base64
import json
import os
import pwd
import shutil
import subprocess
import sys
import tempfile
import time
import urllib.request

PORT = 9090
URL = f"http://127.0.0.1:{PORT}/cockpit/@localhost/rocmtune/index.html"
ENV_FILE = "etc/environment.d/90-rocmtune.conf"

# Installed before the page's scripts: every error the page meets, whatever the log level.
HOOK = r"""window.__rtErrors = [];
addEventListener('error', e => __rtErrors.push('error: ' + e.message + ' @' + e.filename + ':' + e.lineno));
addEventListener('unhandledrejection', e => __rtErrors.push('rejection: ' + (e.reason && (e.reason.message || e.reason))));
document.addEventListener('securitypolicyviolation', e => __rtErrors.push('csp: ' + e.violatedDirective + ' ' + e.blockedURI));
const __ce = console.error; console.error = function (...a) { __rtErrors.push('console.error: ' + a.join(' ')); return __ce.apply(this, a); };"""

# Every control has an accessible name: its text, aria-label, or a <label for>.
UNNAMED = r"""return [...document.querySelectorAll('button, select, input, [tabindex]')]
  .filter(e => e.offsetParent !== null || e.tagName === 'MAIN')
  .filter(e => !((e.getAttribute('aria-label') || '').trim() || (e.getAttribute('aria-labelledby') || '').trim()
                 || (e.id && document.querySelector('label[for="' + e.id + '"]'))
                 || (e.tagName === 'BUTTON' && e.textContent.trim())
                 || e.tagName === 'MAIN'))
  .map(e => e.outerHTML.slice(0, 120));"""

# Each GPU card's memory picture (null where the page drew none): the bar's bytes and width, each
# part's bytes, drawn width and legend, each system-memory limit, and the texts around them.
MEMORY = r"""return [...document.querySelectorAll('#gpu-list article')].map(a => {
  const bar = a.querySelector('.rt-membar');
  if (!bar) return null;
  return {
    heading: bar.parentElement.querySelector('h4').innerText,
    label: bar.getAttribute('aria-label'),
    role: bar.getAttribute('role'),
    total: +bar.dataset.total,
    bar_px: bar.clientWidth,
    parts: [...bar.querySelectorAll('.rt-seg')].map(s => ({
      part: s.dataset.part, bytes: +s.dataset.bytes, px: s.getBoundingClientRect().width,
      colour: getComputedStyle(s).backgroundColor,
      legend: (a.querySelector('.rt-legend li[data-part="' + s.dataset.part + '"]') || {}).innerText || null})),
    limits: [...a.querySelectorAll('.rt-limits [data-limit]')].map(l => ({
      limit: l.dataset.limit, bytes: +l.dataset.bytes, limiting: l.classList.contains('rt-limiting'),
      text: l.innerText, px: l.querySelector('.pf-c-progress__indicator').getBoundingClientRect().width,
      bar_px: l.querySelector('.pf-c-progress__bar').clientWidth})),
  };
});"""

# The verdict labels: the overview's (one per workload) and each GPU card's, with their word,
# classes and drawn colours.
BADGES = r"""const one = b => ({text: b.innerText, cls: b.className,
                    colour: getComputedStyle(b.querySelector('.pf-c-label__content')).color,
                    background: getComputedStyle(b).backgroundColor});
return {overview: [...document.querySelectorAll('#overview-facts .rt-verdict')].map(one),
        gpus: [...document.querySelectorAll('#gpu-list article')].map(a => [...a.querySelectorAll('h4 .rt-verdict')].map(one))};"""


def log(*a):
    print(*a, file=sys.stderr, flush=True)


def read_world(world, rel):
    try:
        with open(os.path.join(world, rel)) as f:
            return f.read()
    except FileNotFoundError:
        return None


def start_ws(a, work):
    env = {k: v for k, v in os.environ.items() if k not in ("LISTEN_FDS", "LISTEN_PID", "LISTEN_FDNAMES")}
    data = os.path.join(work, "data")
    os.makedirs(os.path.join(data, "cockpit"))
    shutil.copytree(a.package, os.path.join(data, "cockpit", "rocmtune"))
    runtime = os.path.join(work, "runtime")
    os.mkdir(runtime, 0o700)
    subprocess.run(["chmod", "-R", "a+rX", work], check=True)
    env.update(DBUS_SYSTEM_BUS_ADDRESS=a.bus, XDG_DATA_HOME=data, XDG_RUNTIME_DIR=runtime,
               XDG_CONFIG_DIRS=os.path.join(work, "etc"), COCKPIT_SUPERUSER="none",
               # Non-empty: the bridge starts no session bus and no ssh-agent of its own.
               DBUS_SESSION_BUS_ADDRESS="unix:path=/nonexistent", SSH_AUTH_SOCK="/dev/null")
    argv = ["/usr/lib/cockpit/cockpit-ws", "--no-tls", "--local-session=/usr/bin/cockpit-bridge",
            "--address=127.0.0.1", f"--port={PORT}"]
    if a.user != "root":
        subprocess.run(["chown", "-R", a.user, runtime], check=True)
        pw = pwd.getpwnam(a.user)
        argv = ["setpriv", f"--reuid={pw.pw_uid}", f"--regid={pw.pw_gid}", "--init-groups", "--"] + argv
    out = open(os.path.join(a.artifacts, f"cockpit-ws-{a.scenario}.log"), "wb")
    ws = subprocess.Popen(argv, env=env, stdin=subprocess.DEVNULL, stdout=out, stderr=subprocess.STDOUT)
    deadline = time.monotonic() + 30
    while True:
        try:
            with urllib.request.urlopen(f"http://127.0.0.1:{PORT}/cockpit/@localhost/manifests.json", timeout=5) as r:
                if "rocmtune" in json.loads(r.read()):
                    return ws
        except Exception as e:  # not listening yet, or the bridge not ready
            last = e
        if ws.poll() is not None or time.monotonic() > deadline:
            raise RuntimeError(f"cockpit-ws did not serve the package: {last}")
        time.sleep(0.2)


def browser(work):
    from selenium import webdriver
    from selenium.webdriver.chrome.options import Options
    from selenium.webdriver.chrome.service import Service

    o = Options()
    o.binary_location = "/usr/bin/chromium"
    for arg in ("--headless=new", "--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage",
                "--window-size=1280,800", f"--user-data-dir={os.path.join(work, 'chromium')}",
                "--no-first-run", "--lang=en-US"):
        o.add_argument(arg)
    o.set_capability("goog:loggingPrefs", {"browser": "ALL"})
    d = webdriver.Chrome(service=Service(executable_path="/usr/bin/chromedriver"), options=o)
    d.execute_cdp_cmd("Page.addScriptToEvaluateOnNewDocument", {"source": HOOK})
    d.set_page_load_timeout(60)
    return d


class Page:
    def __init__(self, d, a, report):
        self.d, self.a, self.report = d, a, report

    def wait(self, js, what, timeout=60):
        deadline = time.monotonic() + timeout
        while True:
            v = self.d.execute_script(js)
            if v:
                return v
            if time.monotonic() > deadline:
                raise TimeoutError(f"waited {timeout} s for {what}")
            time.sleep(0.1)

    def refreshes(self):
        return int(self.d.execute_script("return document.documentElement.dataset.rtRefreshes || '0'"))

    def shot(self, name, full=False, at=None):
        """A PNG of the window (full: of the whole page), scrolled to `at` (a selector) first."""
        path = os.path.join(self.a.artifacts, f"{self.a.name or self.a.scenario}-{name}.png")
        if at:
            self.d.execute_script(f"document.querySelector({json.dumps(at)}).scrollIntoView()")
        if full:
            size = self.d.execute_cdp_cmd("Page.getLayoutMetrics", {})["cssContentSize"]
            png = self.d.execute_cdp_cmd("Page.captureScreenshot", {
                "format": "png", "captureBeyondViewport": True,
                "clip": {"x": 0, "y": 0, "width": size["width"], "height": size["height"], "scale": 1}})
            with open(path, "wb") as f:
                f.write(base64.b64decode(png["data"]))
        else:
            self.d.save_screenshot(path)
        self.report["screenshots"].append(path)

    def text(self, css):
        return self.d.execute_script(f"const e = document.querySelector({json.dumps(css)}); return e ? e.innerText : null")

    def texts(self, css):
        return self.d.execute_script(f"return [...document.querySelectorAll({json.dumps(css)})].map(e => e.innerText)")

    def click(self, css):
        self.d.execute_script(f"document.querySelector({json.dumps(css)}).scrollIntoView()")
        self.d.find_element("css selector", css).click()

    def choose(self, profile):
        self.d.execute_script(f"document.getElementById('profile-select').value = {json.dumps(profile)}")

    def show_plan(self):
        """Show plan clicked: the plan's text once it is on screen."""
        self.click("#plan-button")
        self.wait("return !document.getElementById('plan').hidden", "the plan")
        return self.text("#plan")

    def change(self, css):
        """Clicks the button that makes a change: its outcome, after the page read again."""
        self.d.execute_script("delete document.documentElement.dataset.rtOutcome")
        before = self.refreshes()
        self.click(css)
        return self.outcome(before)

    def outcome(self, before):
        """Waits for a change's outcome and the refresh after it."""
        self.wait("return document.documentElement.dataset.rtOutcome", "the change's outcome")
        self.wait(f"return +(document.documentElement.dataset.rtRefreshes || 0) > {before}", "the page to read again")
        return {"state": self.d.execute_script("return document.documentElement.dataset.rtOutcome"),
                "text": self.text("#outcome")}

    def loaded(self):
        state = self.wait("return document.documentElement.dataset.rtState", "the page's first reading")
        r = self.report
        r["state"] = state
        r["status_line"] = self.text("#state")
        r["version"] = self.text("#version")
        r["overview"] = self.text("#overview-facts")
        r["gpus"] = self.texts("#gpu-list article")
        r["findings"] = self.texts("#finding-list > li")
        r["faults"] = self.texts("#fault-list > li")
        r["knob_keys"] = self.texts("#knob-table tbody th")
        r["profiles"] = self.d.execute_script(
            "return [...document.querySelectorAll('#profile-select option')].map(o => o.value)")
        r["history"] = self.texts("#history-table tbody tr")
        r["trial_section"] = self.text("#trial-section")
        r["unnamed_controls"] = self.d.execute_script(UNNAMED)
        r["memory"] = self.d.execute_script(MEMORY)
        r["badges"] = self.d.execute_script(BADGES)


def keyboard(p):
    """Tab from the top reaches the profile choice and its button; Enter there shows the plan."""
    from selenium.webdriver.common.keys import Keys
    d = p.d
    d.find_element("css selector", "body").click()
    seen = []
    for _ in range(40):
        d.switch_to.active_element.send_keys(Keys.TAB)
        ident = d.execute_script("const e = document.activeElement; return e.id || e.tagName")
        seen.append(ident)
        if ident == "plan-button":
            break
    p.report["tab_order"] = seen
    if seen and seen[-1] == "plan-button":
        d.switch_to.active_element.send_keys(Keys.ENTER)
        p.wait("return !document.getElementById('plan').hidden", "the plan after Enter on its button")
        p.report["plan_focus"] = d.execute_script("return document.activeElement.id")


def overflow(p):
    """How far the page scrolls sideways (0 when it does not)."""
    return p.d.execute_script("return document.documentElement.scrollWidth - document.documentElement.clientWidth")


def narrow(p, at=None):
    p.d.set_window_size(400, 800)
    time.sleep(0.5)
    p.report["narrow_overflow"] = overflow(p)
    p.shot("narrow", at=at)
    p.d.set_window_size(1280, 800)
    time.sleep(0.5)


def scenario_root(p, a):
    r = p.report
    p.loaded()
    p.shot("loaded")
    r["wide_overflow"] = overflow(p)
    narrow(p)
    p.choose(a.profile)
    keyboard(p)
    r["plan"] = p.text("#plan")
    p.shot("plan")
    r["env_before"] = read_world(a.world, ENV_FILE)
    r["apply"] = p.change("#apply-button")
    r["env_after_apply"] = read_world(a.world, ENV_FILE)
    p.wait("return document.querySelector('#history-table button.revert')", "a Revert button in history")
    r["history_after_apply"] = p.texts("#history-table tbody tr")
    r["overview_after_apply"] = p.text("#overview-facts")
    p.shot("applied")
    r["revert"] = p.change("#history-table button.revert")
    r["env_after_revert"] = read_world(a.world, ENV_FILE)
    r["history_after_revert"] = p.texts("#history-table tbody tr")
    p.shot("reverted")
    # A change made elsewhere (rocmtuned's Apply from another client) appears without a reload:
    # the page follows TransactionCommitted.
    before = p.refreshes()
    out = subprocess.run(["busctl", "--system", "call", "org.rocmtune1", "/org/rocmtune1", "org.rocmtune1.Manager",
                          "Apply", "sa{sv}", a.profile, "0"], capture_output=True, text=True,
                         env=dict(os.environ, DBUS_SYSTEM_BUS_ADDRESS=a.bus))
    r["external_apply"] = out.returncode
    p.wait(f"return +(document.documentElement.dataset.rtRefreshes || 0) > {before} && "
           "document.querySelectorAll('#history-table tbody tr').length === 3", "the page to show the outside apply")
    r["history_after_external"] = p.texts("#history-table tbody tr")
    # Reset, asked twice.
    p.click("#reset-button")
    r["reset_confirm_focus"] = p.d.execute_script("return document.activeElement.id")
    r["reset"] = p.change("#reset-confirm")
    r["env_after_reset"] = read_world(a.world, ENV_FILE)
    r["history_after_reset"] = p.texts("#history-table tbody tr")
    p.shot("reset")


def scenario_denied(p, a):
    r = p.report
    p.loaded()
    p.choose(a.profile)
    r["plan"] = p.show_plan()
    r["apply"] = p.change("#apply-button")
    r["env_after_apply"] = read_world(a.world, ENV_FILE)
    p.shot("denied")


def scenario_trial(p, a):
    """A plan that needs a reboot offers a trial (checked); Apply then asks for one, and what
    rocmtuned says about it is shown. Reapply and the trial section are read too."""
    r = p.report
    p.loaded()
    p.choose(a.profile)
    r["plan"] = p.show_plan()
    r["trial_offered"] = p.d.execute_script(
        "return !document.getElementById('trial-row').hidden && document.getElementById('trial').checked")
    p.shot("trial-plan")
    r["apply"] = p.change("#apply-button")
    p.shot("trial-outcome")
    r["reapply"] = p.change("#reapply-button")


def scenario_read(p, a):
    """What the page shows, at 1280x800 (the whole page, the GPUs, the faults) and 400 px wide."""
    p.loaded()
    p.shot("loaded", full=True)
    p.shot("gpus", at="#gpus")
    p.shot("faults", at="#faults")
    p.report["wide_overflow"] = overflow(p)
    narrow(p, at="#gpus")


def main():
    ap = argparse.ArgumentParser()
    for opt in ("bus", "package", "world", "artifacts", "scenario"):
        ap.add_argument(f"--{opt}", required=True)
    ap.add_argument("--user", default="root")
    ap.add_argument("--profile", default="rdna2-consumer-compat")
    ap.add_argument("--name", default="", help="the screenshots' prefix (default: the scenario)")
    a = ap.parse_args()
    os.makedirs(a.artifacts, exist_ok=True)
    subprocess.run(["ip", "link", "set", "lo", "up"], check=True)
    work = tempfile.mkdtemp(prefix="cockpit-")
    report = {"screenshots": [], "errors": [], "console": []}
    ws = d = None
    started = time.monotonic()
    try:
        ws = start_ws(a, work)
        try:
            d = browser(work)
        except Exception as e:  # chromium or chromedriver cannot run here: the test skips, saying why
            report["browser_unavailable"] = f"{type(e).__name__}: {str(e).strip()[:400]}"
            raise
        d.get(URL)
        p = Page(d, a, report)
        {"root": scenario_root, "denied": scenario_denied, "read": scenario_read, "trial": scenario_trial}[a.scenario](p, a)
    except Exception as e:  # the report says what failed; the test fails on it
        report["failure"] = f"{type(e).__name__}: {e}"
        if d is not None:
            try:
                Page(d, a, report).shot("failure")
            except Exception:
                pass
    finally:
        if d is not None:
            try:
                report["errors"] = d.execute_script("return window.__rtErrors || []")
                report["console"] = [e["message"] for e in d.get_log("browser") if e["level"] == "SEVERE"]
            except Exception as e:
                report["errors"].append(f"could not read the console: {e}")
            d.quit()
        if ws is not None:
            ws.terminate()
            try:
                ws.wait(10)
            except subprocess.TimeoutExpired:
                ws.kill()
        shutil.rmtree(work, ignore_errors=True)
    report["seconds"] = round(time.monotonic() - started, 1)
    print(json.dumps(report))
    return 0


if __name__ == "__main__":
    sys.exit(main())
