/* rocmtune's Cockpit page (cockpit/README.md).
 *
 * Everything shown is one of the documents rocmtuned returns on the system bus (org.rocmtune1,
 * dbus/org.rocmtune1.Manager.xml): the same rocmtune.status.v1, check_compute.v1, doctor.v1,
 * profiles.v1, result.v1, history.v1 and verify.v1 that `rocmtunectl --json` prints, so the page
 * and the CLI cannot say different things. Nothing is polled: the page reads again when rocmtuned
 * signals TransactionCommitted, GpusChanged or FaultsSeen, or its properties change.
 *
 * Changes go through the daemon, which asks polkit with the caller's identity (the Cockpit
 * session's user, or root in administrative mode: superuser "try"), the same actions as the CLI;
 * a refusal is shown with the daemon's reason. This file reads and changes; render.js (loaded
 * first) turns each document into the page. */
"use strict";

(function () {
    const NAME = "org.rocmtune1";
    const PATH = "/org/rocmtune1";
    const IFACE = "org.rocmtune1.Manager";
    const {
        $, el, clear, itemText, alertItem, renderOverview, renderGpus, renderFindings, renderKnobs, renderProfiles, renderFaults,
        describeProfile, renderResult, renderHistory, renderTrial,
    } = window.RocmtuneRender;

    let client = null;
    let refreshing = null; // the running refresh, so that signals arriving meanwhile run one more
    let again = false;
    let refreshes = 0;
    let busy = false;
    let planned = null; // {profile, doc} of the plan on screen
    let lastProfiles = null; // the last profiles.v1, for the description of the chosen one

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

    // --- reading ----------------------------------------------------------------------------

    async function readAll() {
        const reads = {
            status: callJson("Describe"),
            any: callJson("CheckCompute", ["any", ""], "ss"),
            conv: callJson("CheckCompute", ["conv", ""], "ss"),
            gemm: callJson("CheckCompute", ["gemm", ""], "ss"),
            doctor: callJson("Doctor", [""], "s"),
            faults: callJson("Faults", [1, 0], "it"),
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
                    renderFaults(docs.faults || null);
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

    // The outcome of a change: a PatternFly inline alert, danger or success, its title a heading.
    function showOutcome(title, body, failed) {
        const box = clear($("outcome"));
        box.className = "pf-c-alert pf-m-inline " + (failed ? "pf-m-danger" : "pf-m-success");
        const alert = alertItem("div", failed ? "danger" : "success", [], [typeof body === "string" ? el("p", {}, body) : body]);
        alert.querySelector(".pf-c-alert__title").replaceWith(el("h3", { class: "pf-c-alert__title" }, title));
        box.append(...alert.childNodes);
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
            describeProfile(lastProfiles);
            closePlan();
        });
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
        $("reset-confirm").addEventListener("click", () => {
            resetAsk(false);
            change("Reset to stock", "Reset", [], "");
        });

        client = cockpit.dbus(NAME, { bus: "system", superuser: "try" });
        const proxy = client.proxy(IFACE, PATH);
        proxy.addEventListener("TransactionCommitted", () => refresh());
        proxy.addEventListener("GpusChanged", () => refresh());
        proxy.addEventListener("FaultsSeen", () => refresh());
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
