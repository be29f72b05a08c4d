/* rocmtune's Cockpit page, its rendering (cockpit/README.md): each document rocmtuned returns
 * (rocmtune.status.v1, check_compute.v1, doctor.v1, profiles.v1, result.v1, history.v1, verify.v1,
 * trial.v1) turned into the page's DOM, nothing else: no bus, no state. rocmtune.js reads the
 * documents and calls these. The DOM is built with textContent only: a capture's strings are never
 * parsed as HTML. */
"use strict";

window.RocmtuneRender = (function () {
    const WORKLOADS = [["any", "any workload"], ["conv", "convolutions (MIOpen)"], ["gemm", "GEMM (rocBLAS/hipBLASLt)"]];

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

    // One entry of a result document's lists: a string, or an object with a message.
    function itemText(item) {
        if (typeof item === "string") return item;
        return (item.key ? item.key + ": " : "") + (item.message || JSON.stringify(item));
    }

    function fact(dl, term, value) {
        dl.append(el("dt", {}, term), el("dd", {}, value));
    }

    // check-compute's state (safe, unknown, unsupported, unsafe, unusable); a document without one
    // (an older daemon) falls back to its boolean.
    function verdictText(doc) {
        if (!doc) return el("span", { class: "muted" }, "unknown");
        const state = doc.state || (doc.safe === true ? "safe" : doc.safe === false ? "not safe" : "unknown");
        return el("span", { class: "verdict " + (state === "safe" ? "safe" : "unsafe") }, state);
    }

    function runtimeText(status) {
        const runtimes = (status.program && status.program.runtimes) || [];
        if (runtimes.length === 0) return (status.system || {}).rocm_version || "not found";
        return runtimes.map(r => r.label).join("; ");
    }

    function renderOverview(status, checks) {
        const dl = clear($("overview-facts"));
        fact(dl, "Active profile", status.profile || "none");
        fact(dl, "Pending reboot", status.pending_reboot ? "yes: a change takes effect at the next boot" : "no");
        for (const [w, label] of WORKLOADS)
            fact(dl, "Compute, " + label, verdictText(checks[w]));
        const sys = status.system || {};
        fact(dl, "ROCm", runtimeText(status));
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

    // Bytes as the CLI prints them (util/byte_size.h): binary units, one decimal rounded down.
    function gib(bytes) {
        const units = ["bytes", "KiB", "MiB", "GiB", "TiB"];
        let u = 0, v = bytes;
        while (v >= 1024 && u < units.length - 1) { v /= 1024; u++; }
        if (u === 0) return bytes + " bytes";
        return (Number.isInteger(v) ? String(v) : (Math.floor(v * 10) / 10).toFixed(1)) + " " + units[u];
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
            const m = g.rocm_memory || {};
            if (typeof m.allocatable_bytes === "number")
                fact(dl, "Memory ROCm can allocate", gib(m.allocatable_bytes) +
                    (g.apu && m.limited_by ? " (system memory limited by " + m.limited_by + ")" : ""));
            else if (m.unknown)
                fact(dl, "Memory ROCm can allocate", "unknown: " + m.unknown);
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
            // Every place that writes the setting (one finding per fact), the one to edit first.
            const places = (f.places && f.places.length ? f.places : (f.file ? [{ file: f.file, line: f.line }] : []))
                    .map(p => "/" + p.file + (p.line ? ":" + p.line : ""));
            if (places.length) li.append(el("p", { class: "source" }, "In " + places.join(", ")));
            if (f.sources && f.sources.length) li.append(el("p", { class: "source" }, "Source: " + f.sources.join("; ")));
            list.append(li);
        }
    }

    // rocmtune.faults.v1 (rocmtuned's Faults, already filtered to what this user may see).
    // "python3 (pid 4242, user alice): a GPU page fault, on card1 (gfx1010) at ..."; a record
    // that names no program (a GPU reset, a ring timeout without its process line) starts with
    // what happened.
    function faultSentence(f) {
        const name = f.process || f.unit;
        const pid = f.pid !== null ? " (pid " + f.pid + (f.user ? ", user " + f.user : "") + ")" : "";
        const what = name ? name + pid + ": " + f.description
                          : f.description.charAt(0).toUpperCase() + f.description.slice(1) + pid;
        const gpu = f.card ? f.card + (f.gfx_target ? " (" + f.gfx_target + ")" : "") : (f.gpu || "an unknown GPU");
        const override = ((f.environment && f.environment.variables) || [])
              .filter(v => v.name === "HSA_OVERRIDE_GFX_VERSION").map(v => " with " + v.name + "=" + v.value);
        return what + ", on " + gpu + " at " + f.time + override.join("");
    }

    function renderFaults(doc) {
        const list = clear($("fault-list"));
        if (!doc || doc.source === "none") {
            list.append(el("li", {}, "The system's log was not read" + (doc && doc.why_none ? ": " + doc.why_none : ".")));
            return;
        }
        if (!doc.faults.length) {
            list.append(el("li", {}, "No GPU faults in the log."));
            return;
        }
        for (const f of doc.faults.slice().reverse()) {
            const cause = (f.causes || []).find(c => c.id === f.likely_cause) || null;
            const li = el("li", { class: cause ? "sev-" + cause.severity : "" },
                          el("p", {}, el("span", { class: "badge" }, f.kind), " ", faultSentence(f)));
            if (f.boot !== null && f.boot !== 0) li.append(el("p", { class: "muted" }, "Boot " + f.boot));
            if (cause) {
                li.append(el("p", {}, el("strong", {}, "Likely cause: "), cause.what));
                if (cause.fix && cause.fix.text) li.append(el("p", {}, el("strong", {}, "Fix: "), cause.fix.text));
                if (cause.fix && cause.fix.profile) li.append(el("p", {}, "Profile that fixes it: " + cause.fix.profile));
            }
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
        const p = (profiles || { profiles: [] }).profiles.find((x) => x.name === $("profile-select").value);
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

    return {
        WORKLOADS, $, el, clear, itemText, renderOverview, renderGpus, renderFindings, renderKnobs,
        renderProfiles, describeProfile, renderResult, renderHistory, renderTrial, renderFaults, faultSentence,
    };
})();
