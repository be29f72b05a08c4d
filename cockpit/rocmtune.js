/* rocmtune's Cockpit page (cockpit/README.md).
 *
 * Everything shown is one of the documents rocmtuned returns on the system bus (org.rocmtune1,
 * dbus/org.rocmtune1.Manager.xml): the same rocmtune.status.v1, check_compute.v1, doctor.v1,
 * profiles.v1, result.v1, history.v1 and verify.v1 that `rocmtunectl --json` prints, so the page
 * and the CLI cannot say different things. Nothing is polled: the page reads again when rocmtuned
 * signals TransactionCommitted or GpusChanged, or its properties change.
 *
 * Changes go through the daemon, which asks polkit with the caller's identity (the Cockpit
 * session's user, or root in administrative mode: superuser "try"), the same actions as the CLI;
 * a refusal is shown with the daemon's reason. The DOM is built with textContent only: a capture's
 * strings are never parsed as HTML. */
"use strict";

(function () {
    const NAME = "org.rocmtune1";
    const PATH = "/org/rocmtune1";
    const IFACE = "org.rocmtune1.Manager";
    const WORKLOADS = [["any", "any workload"], ["conv", "convolutions (MIOpen)"], ["gemm", "GEMM (rocBLAS/hipBLASLt)"]];

    let client = null;
    let refreshing = null; // the running refresh, so that signals arriving meanwhile run one more
    let again = false;
    let refreshes = 0;
    let busy = false;
    let planned = null; // {profile, doc} of the plan on screen

    const $ = (id) => document.getElementById(id);

    // el("p", {class: "x", "aria-label": "y"}, "text", child...) — strings become text nodes.
    function el(tag, attrs, ...children) {
        const e = document.createElement(tag);
        for (const [k, v] of Object.entries(attrs || {})) {
            if (v === null || v === undefined || v === false) continue;
            if (k === "class") e.className = v;
            else if (k === "text") e.textContent = v;
            else e.setAttribute(k, v === true ? "" : String(v));
        }
        for (const c of children.flat()) {
            if (c === null || c === undefined || c === false) continue;
            e.append(typeof c === "string" ? document.createTextNode(c) : c);
        }
        return e;
    }

    function clear(node) {
        while (node.firstChild) node.removeChild(node.firstChild);
        return node;
    }

    // One D-Bus call, as a native promise of its first out argument. `type` is the input signature.
    // Changes allow interactive authorization: in a Cockpit session polkit's agent may then ask.
    function call(method, args, type) {
        return new Promise((resolve, reject) => {
            client.call(PATH, IFACE, method, args || [], { type: type || "" })
                    .then((reply) => resolve(reply[0]), (ex) => reject(ex));
        });
    }

    function callJson(method, args, type) {
        return call(method, args, type).then((text) => JSON.parse(text));
    }

    // One entry of a result document's lists: a string, or an object with a message.
    function itemText(item) {
        if (typeof item === "string") return item;
        return (item.key ? item.key + ": " : "") + (item.message || JSON.stringify(item));
    }

    // What a failed call says, in words: rocmtune's typed errors carry a rocmtune.result.v1
    // document; polkit's refusal and a missing daemon carry a message.
    function describeError(ex) {
        const name = (ex && ex.name) || "";
        let message = (ex && ex.message) || String(ex);
        let doc = null;
        try {
            doc = JSON.parse(message);
        } catch (e) {
            doc = null;
        }
        if (doc && typeof doc === "object") {
            const parts = [];
            for (const list of [doc.errors, doc.refused, doc.conflicts])
                for (const item of list || []) parts.push(itemText(item));
            if (parts.length) message = parts.join(" ");
        }
        if (name.endsWith("AccessDenied") || name.endsWith("InteractiveAuthorizationRequired"))
            return { title: "Not authorized", text: message };
        if (ex && ex.problem === "not-found")
            return { title: "rocmtuned is not running", text: "Nothing owns " + NAME + " on the system bus (is rocmtune installed?)." };
        if (ex && ex.problem)
            return { title: "The connection failed", text: ex.problem + (ex.message ? ": " + ex.message : "") };
        const short = name.replace(/^org\.rocmtune1\.Error\./, "");
        return { title: short || "Failed", text: message };
    }

    function setState(text) {
        $("state").textContent = text;
    }

    function setBusy(on) {
        busy = on;
        $("main").setAttribute("aria-busy", on ? "true" : "false");
        for (const b of document.querySelectorAll("main button, main select"))
            b.disabled = on;
    }

    // --- rendering -------------------------------------------------------------------------

    function fact(dl, term, value) {
        dl.append(el("dt", {}, term), el("dd", {}, value));
    }

    function verdictText(doc) {
        if (!doc) return el("span", { class: "muted" }, "unknown");
        return el("span", { class: "verdict " + (doc.safe ? "safe" : "unsafe") }, doc.safe ? "safe" : "not safe");
    }

    function renderOverview(status, checks) {
        const dl = clear($("overview-facts"));
        fact(dl, "Active profile", status.profile || "none");
        fact(dl, "Pending reboot", status.pending_reboot ? "yes: a change takes effect at the next boot" : "no");
        for (const [w, label] of WORKLOADS)
            fact(dl, "Compute, " + label, verdictText(checks[w]));
        const sys = status.system || {};
        fact(dl, "ROCm", sys.rocm_version || "not found");
        fact(dl, "Kernel", sys.kernel || "unknown");
        fact(dl, "Boot setup", sys.boot || "unknown");
    }

    function reasonItem(r) {
        const li = el("li", {}, el("span", { class: "badge " + (r.outcome === "crash" || r.outcome === "no-gpu" ? "sev-error" : "sev-warning") }, r.outcome || ""), r.title || r.id);
        if (r.why) li.append(el("p", {}, r.why));
        if (r.fix && r.fix.text) li.append(el("p", {}, el("strong", {}, "Fix: "), r.fix.text));
        if (r.sources && r.sources.length) li.append(el("p", { class: "source" }, "Source: " + r.sources.join("; ")));
        return li;
    }

    function renderGpus(status, checks) {
        const box = clear($("gpu-list"));
        if (!status.gpus.length) {
            box.append(el("p", {}, "No AMD GPU was found."));
            return;
        }
        for (const g of status.gpus) {
            const c = g.compute || {};
            const card = el("article", { class: "gpu", "aria-labelledby": "gpu-" + g.id.replace(/[^A-Za-z0-9]/g, "-") });
            card.append(el("h3", { id: "gpu-" + g.id.replace(/[^A-Za-z0-9]/g, "-") }, (g.marketing_name || "AMD GPU") + " ", el("span", { class: "muted" }, g.id)));
            const dl = el("dl", { class: "facts" });
            fact(dl, "gfx target", g.gfx_target || "unknown");
            fact(dl, "Family", g.family || "unknown");
            fact(dl, "KFD", g.kfd_node !== null && g.kfd_node !== undefined ? "node " + g.kfd_node + (c.usable ? ", usable" : ", not usable")
                : "not seen by KFD: ROCm cannot use this GPU");
            fact(dl, "ROCm support", c.supported ? "a target ROCm builds for" : "not a target ROCm builds for");
            card.append(dl);
            for (const [w, label] of WORKLOADS) {
                const doc = checks[w];
                const mine = doc && doc.gpus.find((x) => x.id === g.id);
                const h = el("h4", {}, "Compute, " + label + ": ", mine ? verdictText(mine) : el("span", { class: "muted" }, "unknown"));
                card.append(h);
                if (mine && mine.reasons.length)
                    card.append(el("ul", { class: "findings" }, mine.reasons.map(reasonItem)));
            }
            box.append(card);
        }
    }

    function renderFindings(doctor) {
        const list = clear($("finding-list"));
        if (!doctor.findings.length) {
            list.append(el("li", {}, "No findings."));
            return;
        }
        for (const f of doctor.findings) {
            const li = el("li", { class: "sev-" + f.severity },
                          el("p", {}, el("span", { class: "badge sev-" + f.severity }, f.severity), f.what));
            if (f.why) li.append(el("p", {}, f.why));
            if (f.fix && f.fix.text) li.append(el("p", {}, el("strong", {}, "Fix: "), f.fix.text));
            if (f.fix && f.fix.profile) li.append(el("p", {}, "Profile that fixes it: " + f.fix.profile));
            if (f.file) li.append(el("p", { class: "source" }, "In " + f.file + (f.line ? ":" + f.line : "")));
            if (f.sources && f.sources.length) li.append(el("p", { class: "source" }, "Source: " + f.sources.join("; ")));
            list.append(li);
        }
    }

    function renderKnobs(status) {
        const body = clear($("knob-table").tBodies[0]);
        for (const k of status.knobs) {
            const notes = [...(k.notes || [])];
            if (k.pending_reboot) notes.unshift("takes effect at the next boot");
            if (k.ineffective) notes.unshift("ineffective here");
            const where = k.configured_in ? k.configured_in + (k.line ? ":" + k.line : "") : null;
            body.append(el("tr", {},
                           el("th", { scope: "row", class: "mono" }, k.key),
                           el("td", { class: "mono", title: where }, k.configured === null ? "—" : k.configured),
                           el("td", { class: "mono" }, k.running === null ? "—" : k.running),
                           el("td", { class: "mono" }, k.effective === null ? "—" : k.effective),
                           el("td", {}, k.owner || "—"),
                           el("td", {}, notes.join("; "))));
        }
    }

    function renderProfiles(profiles, status) {
        const select = $("profile-select");
        const keep = select.value;
        clear(select);
        for (const p of profiles.profiles) {
            const tags = [];
            if (p.active) tags.push("active");
            if (!p.matches) tags.push("does not match this machine");
            select.append(el("option", { value: p.name }, p.name + (tags.length ? " (" + tags.join(", ") + ")" : "")));
        }
        const want = keep || status.profile || (profiles.profiles.find((p) => p.matches && !p.reset) || {}).name;
        if (want) select.value = want;
        describeProfile(profiles);
    }

    function describeProfile(profiles) {
        const p = (profiles || lastProfiles || { profiles: [] }).profiles.find((x) => x.name === $("profile-select").value);
        $("profile-about").textContent = p ? p.description + (p.reason ? " — " + p.reason : "") : "";
    }

    function diffBlock(text) {
        const pre = el("pre", { class: "diff", tabindex: "0" });
        for (const line of text.split("\n")) {
            const cls = line.startsWith("+++") || line.startsWith("---") ? null
                : line.startsWith("+") ? "add" : line.startsWith("-") ? "del" : line.startsWith("@@") ? "hunk" : null;
            pre.append(el("span", { class: cls }, line + "\n"));
        }
        return pre;
    }

    // A rocmtune.result.v1 document (a plan, or what a change did) as the CLI shows it.
    function renderResult(box, doc) {
        if (doc.changes && doc.changes.length) {
            const ul = el("ul", {});
            for (const c of doc.changes) {
                const li = el("li", {}, el("strong", {}, c.action + " "), el("code", {}, c.path || c.backend), c.reason ? " — " + c.reason : "");
                if (c.diff) li.append(diffBlock(c.diff));
                ul.append(li);
            }
            box.append(ul);
        } else {
            box.append(el("p", {}, doc.check ? "Nothing to change: the machine already has what this profile sets." : "Nothing changed."));
        }
        if (doc.reboot_required) box.append(el("p", {}, el("strong", {}, "Takes effect at the next boot.")));
        for (const [title, list] of [["Refused", doc.refused], ["Conflicts", doc.conflicts], ["Errors", doc.errors], ["Warnings", doc.warnings], ["Notes", doc.notes]]) {
            if (!list || !list.length) continue;
            box.append(el("h4", {}, title));
            box.append(el("ul", {}, list.map((n) => el("li", {}, itemText(n),
                                                      n.source ? el("span", { class: "source" }, " (" + n.source + ")") : null))));
        }
    }

    function renderHistory(history, verify) {
        const v = clear($("verify"));
        if (verify) {
            v.append(el("p", {}, el("strong", {}, "Verify: "),
                        verify.ok ? "what rocmtune configured is in effect and its files are as it left them."
                            : verify.differences.length + " difference(s):"));
            if (!verify.ok)
                v.append(el("ul", {}, verify.differences.map((d) => el("li", {}, el("span", { class: "badge" }, d.kind), d.message))));
        }
        const body = clear($("history-table").tBodies[0]);
        if (!history) {
            body.append(el("tr", {}, el("td", { colspan: "6" }, "The journal could not be read.")));
            return;
        }
        if (!history.transactions.length)
            body.append(el("tr", {}, el("td", { colspan: "6" }, "No transactions: rocmtune has changed nothing here.")));
        for (const t of history.transactions) {
            const actions = el("td", {});
            if (t.in_effect && !t.reverted && t.state === "committed") {
                actions.append(el("button", { type: "button", class: "revert", "data-id": t.id, "aria-label": "Revert transaction " + t.id + ": " + t.what }, "Revert"));
            }
            body.append(el("tr", { "data-id": t.id },
                           el("th", { scope: "row" }, t.id),
                           el("td", {}, t.time),
                           el("td", {}, t.what),
                           el("td", {}, t.effect + (t.state !== "committed" ? " (" + t.state + ")" : "")),
                           el("td", { class: "mono" }, t.changes.join(", ")),
                           actions));
        }
    }

    // rocmtune.trial.v1: a trial boot a change prepared, and what its check saw.
    const TRIAL_WORDS = {
        prepared: "prepared: the next boot is the trial (once), the boot after it the old default",
        booted: "booted: the trial boot is running its check",
        confirmed: "confirmed: the check passed; the change is made permanent once the boot completes",
        failed: "failed: the change was not kept",
        committed: "committed: the change was made permanent",
        cancelled: "cancelled",
    };

    function renderTrial(trial) {
        const box = clear($("trial-state"));
        const cancel = $("trial-cancel");
        cancel.hidden = true;
        if (!trial) {
            box.append(el("p", {}, "The trial state could not be read."));
            return;
        }
        if (trial.state === "none") {
            box.append(el("p", {}, "No trial boot was ever prepared here."));
            return;
        }
        const dl = el("dl", { class: "facts" });
        fact(dl, "Trial", trial.id);
        fact(dl, "State", TRIAL_WORDS[trial.state] || trial.state);
        if (trial.request) fact(dl, "Change", [trial.request.verb, trial.request.profile, ...(trial.request.args || [])].filter(Boolean).join(" "));
        if (trial.tokens && trial.tokens.length) fact(dl, "Trial boot's options", el("code", {}, trial.tokens.join(" ")));
        fact(dl, "Updated", trial.updated || "");
        box.append(dl);
        if (trial.seen && trial.seen.length) {
            box.append(el("h3", {}, "What the check saw"));
            box.append(el("ul", {}, trial.seen.map((line) => el("li", { class: line.startsWith("FAILED") ? "sev-error" : null }, line))));
        }
        if (["prepared", "booted", "confirmed", "failed"].includes(trial.state)) {
            cancel.hidden = false;
            cancel.textContent = trial.state === "failed" ? "Dismiss the failed trial" : "Cancel the trial";
        }
    }

    // --- reading ----------------------------------------------------------------------------

    let lastProfiles = null;

    async function readAll() {
        const reads = {
            status: callJson("Describe"),
            any: callJson("CheckCompute", ["any", ""], "ss"),
            conv: callJson("CheckCompute", ["conv", ""], "ss"),
            gemm: callJson("CheckCompute", ["gemm", ""], "ss"),
            doctor: callJson("Doctor", [""], "s"),
            profiles: callJson("ListProfiles"),
            history: callJson("History"),
            verify: callJson("Verify"),
            trial: callJson("Trial"),
        };
        const names = Object.keys(reads);
        const settled = await Promise.allSettled(Object.values(reads));
        const out = {};
        const failed = [];
        settled.forEach((s, i) => {
            if (s.status === "fulfilled") out[names[i]] = s.value;
            else failed.push(names[i] + ": " + describeError(s.reason).text);
        });
        if (!out.status) throw settled[0].reason;
        return { docs: out, failed };
    }

    async function refresh() {
        if (refreshing) {
            again = true;
            return refreshing;
        }
        refreshing = (async () => {
            do {
                again = false;
                try {
                    const { docs, failed } = await readAll();
                    const checks = { any: docs.any, conv: docs.conv, gemm: docs.gemm };
                    renderOverview(docs.status, checks);
                    renderGpus(docs.status, checks);
                    if (docs.doctor) renderFindings(docs.doctor);
                    renderKnobs(docs.status);
                    if (docs.profiles) {
                        lastProfiles = docs.profiles;
                        renderProfiles(docs.profiles, docs.status);
                    }
                    renderHistory(docs.history || null, docs.verify || null);
                    renderTrial(docs.trial || null);
                    setState(failed.length ? "Read with gaps: " + failed.join("; ") : "Up to date.");
                    refreshes += 1;
                    document.documentElement.dataset.rtRefreshes = String(refreshes);
                    document.documentElement.dataset.rtState = "ready";
                } catch (ex) {
                    const e = describeError(ex);
                    setState(e.title + ": " + e.text);
                    document.documentElement.dataset.rtState = "error";
                }
            } while (again);
        })();
        try {
            await refreshing;
        } finally {
            refreshing = null;
        }
    }

    // --- changing ---------------------------------------------------------------------------

    function showOutcome(title, body, failed) {
        const box = clear($("outcome"));
        box.className = failed ? "failed" : "";
        box.append(el("h3", {}, title));
        if (typeof body === "string") box.append(el("p", {}, body));
        else if (body) box.append(body);
        document.documentElement.dataset.rtOutcome = failed ? "failed" : "done";
    }

    async function change(what, method, args, type) {
        if (busy) return;
        setBusy(true);
        delete document.documentElement.dataset.rtOutcome;
        try {
            const doc = await callJson(method, args, type);
            const box = el("div", {});
            box.append(el("p", {}, doc.transaction ? "Transaction " + doc.transaction + " committed." : doc.changed ? "Done." : "Nothing to change."));
            renderResult(box, doc);
            showOutcome(what, box, false);
            closePlan();
        } catch (ex) {
            const e = describeError(ex);
            showOutcome(what + ": " + e.title, e.text, true);
        } finally {
            setBusy(false);
            $("outcome").focus();
            await refresh();
        }
    }

    function closePlan() {
        planned = null;
        $("plan").hidden = true;
        clear($("plan-body"));
    }

    async function showPlan(ev) {
        ev.preventDefault();
        const profile = $("profile-select").value;
        if (!profile || busy) return;
        setBusy(true);
        try {
            const doc = await callJson("Plan", [profile, {}], "sa{sv}");
            planned = { profile, doc };
            const body = clear($("plan-body"));
            $("plan-h").textContent = "Plan: apply " + profile;
            renderResult(body, doc);
            $("trial-row").hidden = !doc.reboot_required;
            $("apply-button").textContent = "Apply " + profile;
            $("apply-button").disabled = false;
            $("plan").hidden = false;
            $("plan-h").focus();
        } catch (ex) {
            const e = describeError(ex);
            showOutcome("Plan of " + profile + ": " + e.title, e.text, true);
        } finally {
            setBusy(false);
        }
    }

    function apply() {
        if (!planned) return;
        const trial = planned.doc.reboot_required && $("trial").checked;
        const options = trial ? { trial: { t: "b", v: true } } : {};
        change((trial ? "Trial of " : "Apply ") + planned.profile, "Apply", [planned.profile, options], "sa{sv}");
    }

    function resetAsk(on) {
        $("reset-button").hidden = on;
        $("reset-confirm").hidden = !on;
        $("reset-cancel").hidden = !on;
        (on ? $("reset-confirm") : $("reset-button")).focus();
    }

    function init() {
        $("outcome").setAttribute("tabindex", "-1");
        $("profile-form").addEventListener("submit", showPlan);
        $("profile-select").addEventListener("change", () => {
            describeProfile(null);
            closePlan();
        });
        $("apply-button").classList.add("primary");
        $("apply-button").addEventListener("click", apply);
        $("plan-cancel").addEventListener("click", () => {
            closePlan();
            $("plan-button").focus();
        });
        $("history-table").addEventListener("click", (ev) => {
            const b = ev.target.closest("button.revert");
            if (b) change("Revert transaction " + b.dataset.id, "Revert", [b.dataset.id], "s");
        });
        $("reset-button").addEventListener("click", () => resetAsk(true));
        $("reapply-button").addEventListener("click", () => change("Reapply runtime settings", "Reapply", [""], "s"));
        $("trial-cancel").addEventListener("click", () => change($("trial-cancel").textContent, "CancelTrial", [], ""));
        $("reset-cancel").addEventListener("click", () => resetAsk(false));
        $("reset-confirm").classList.add("danger");
        $("reset-confirm").addEventListener("click", () => {
            resetAsk(false);
            change("Reset to stock", "Reset", [], "");
        });

        client = cockpit.dbus(NAME, { bus: "system", superuser: "try" });
        const proxy = client.proxy(IFACE, PATH);
        proxy.addEventListener("TransactionCommitted", () => refresh());
        proxy.addEventListener("GpusChanged", () => refresh());
        proxy.addEventListener("changed", () => {
            if (proxy.Version) $("version").textContent = proxy.Version;
            refresh();
        });
        client.addEventListener("close", (ev, options) => {
            setState("The connection to rocmtuned closed: " + ((options && options.problem) || "no reason given"));
            document.documentElement.dataset.rtState = "error";
        });
        proxy.wait().then(() => {
            if (proxy.valid && proxy.Version) $("version").textContent = proxy.Version;
        });
        refresh();
    }

    document.addEventListener("DOMContentLoaded", init);
})();
