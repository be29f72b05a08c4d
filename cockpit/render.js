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

    // PatternFly's alert icons, drawn here (PatternFly's CSS brings no icons): a circle with "!" for
    // danger, a triangle for warning, a circle with "i" for info, a tick for success. Decorative:
    // the alert's words say the same.
    const SVG = "http://www.w3.org/2000/svg";
    const ICONS = {
        danger: ["M8 0a8 8 0 1 0 0 16A8 8 0 0 0 8 0zm-1 3.5h2v6H7zm0 7.5h2v2H7z"],
        warning: ["M8 .5 0 15.5h16zM7 6h2v5H7zm0 6h2v2H7z"],
        info: ["M8 0a8 8 0 1 0 0 16A8 8 0 0 0 8 0zM7 3h2v2H7zm0 3.5h2V13H7z"],
        success: ["M8 0a8 8 0 1 0 0 16A8 8 0 0 0 8 0zM6.8 11.9 3 8.1l1.4-1.4 2.4 2.4 4.8-4.8L13 5.7z"],
        default: ["M8 0a8 8 0 1 0 0 16A8 8 0 0 0 8 0zm0 4a4 4 0 1 1 0 8 4 4 0 0 1 0-8z"],
    };

    function icon(kind) {
        const svg = document.createElementNS(SVG, "svg");
        svg.setAttribute("viewBox", "0 0 16 16");
        svg.setAttribute("aria-hidden", "true");
        svg.setAttribute("focusable", "false");
        for (const d of ICONS[kind] || ICONS.default) {
            const path = document.createElementNS(SVG, "path");
            path.setAttribute("d", d);
            path.setAttribute("fill-rule", "evenodd");
            svg.append(path);
        }
        return svg;
    }

    // A PatternFly label: its word, coloured (colour is never the only signal: the word is there).
    function label(text, colour, cls) {
        return el("span", { class: ["pf-c-label", colour ? "pf-m-" + colour : "", cls || ""].join(" ").trim() },
                  el("span", { class: "pf-c-label__content" }, text));
    }

    // A PatternFly inline alert (as a list item): its variant (danger, warning, info, success or
    // "" for the default), the title's parts and the description's. The title starts with a label
    // that says in words what the variant's colour says.
    function alertItem(tag, variant, title, description, attrs) {
        const item = el(tag, Object.assign({ class: "pf-c-alert pf-m-inline" + (variant ? " pf-m-" + variant : "") }, attrs || {}),
                        el("div", { class: "pf-c-alert__icon" }, icon(variant || "default")),
                        el("p", { class: "pf-c-alert__title" }, title));
        const parts = (description || []).filter(Boolean);
        if (parts.length) item.append(el("div", { class: "pf-c-alert__description" }, parts));
        return item;
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

    // One term and its value in a PatternFly description list.
    function fact(dl, term, value) {
        dl.append(el("div", { class: "pf-c-description-list__group" },
                     el("dt", { class: "pf-c-description-list__term" }, el("span", { class: "pf-c-description-list__text" }, term)),
                     el("dd", { class: "pf-c-description-list__description" }, el("div", { class: "pf-c-description-list__text" }, value))));
    }

    function facts() {
        return el("dl", { class: "pf-c-description-list pf-m-horizontal pf-m-compact" });
    }

    // check-compute's state (safe, unknown, unsupported, unsafe, unusable) as a label of its colour;
    // a document without one (an older daemon) falls back to its boolean.
    const VERDICT_COLOURS = { safe: "green", unknown: "", unsupported: "orange", unsafe: "red", unusable: "red", "not safe": "red" };

    function verdictState(doc) {
        if (!doc) return "unknown";
        return doc.state || (doc.safe === true ? "safe" : doc.safe === false ? "not safe" : "unknown");
    }

    function verdictText(doc) {
        const state = verdictState(doc);
        return label(state, VERDICT_COLOURS[state] !== undefined ? VERDICT_COLOURS[state] : "red", "rt-verdict");
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
        const bad = r.outcome === "crash" || r.outcome === "no-gpu";
        return alertItem("li", bad ? "danger" : "warning",
                         [label(r.outcome || "", bad ? "red" : "gold", "rt-badge"), " ", r.title || r.id],
                         [r.why ? el("p", {}, r.why) : null,
                          r.fix && r.fix.text ? el("p", {}, el("strong", {}, "Fix: "), r.fix.text) : null,
                          r.sources && r.sources.length ? el("p", { class: "rt-source" }, "Source: " + r.sources.join("; ")) : null]);
    }

    // Bytes as the CLI prints them (util/byte_size.h): binary units, one decimal rounded down.
    function gib(bytes) {
        const units = ["bytes", "KiB", "MiB", "GiB", "TiB"];
        let u = 0, v = bytes;
        while (v >= 1024 && u < units.length - 1) { v /= 1024; u++; }
        if (u === 0) return bytes + " bytes";
        return (Number.isInteger(v) ? String(v) : (Math.floor(v * 10) / 10).toFixed(1)) + " " + units[u];
    }

    // The memory a ROCm program can allocate on one GPU (rocm_memory of rocmtune.status.v1,
    // core/diagnose/rocm_memory.h), as a picture: one bar of what it can allocate, its parts (VRAM
    // and, on an APU, the system memory KFD lets it have) in proportion and named with their size;
    // then the limits on system memory side by side, the smallest (the one that caps it) marked.
    // Nothing is computed here but the widths: every number is the daemon's.
    function memoryPicture(g) {
        const m = g.rocm_memory || {};
        if (typeof m.allocatable_bytes !== "number") return null;
        const parts = [];
        if (typeof m.vram_bytes === "number")
            parts.push({ key: "vram", name: g.apu ? "VRAM (the firmware's carve-out)" : "VRAM", bytes: m.vram_bytes });
        if (g.apu && typeof m.gtt_allocatable_bytes === "number")
            parts.push({ key: "gtt", name: "system memory (GTT)", bytes: m.gtt_allocatable_bytes });
        const total = m.allocatable_bytes;
        const words = parts.map(p => p.name + " " + gib(p.bytes)).join(" and ");
        const bar = el("div", { class: "rt-membar", role: "img", "data-total": total,
                                "aria-label": "ROCm can allocate " + gib(total) + (words ? ": " + words : "") });
        const legend = el("ul", { class: "rt-legend" });
        for (const p of parts) {
            const seg = el("div", { class: "rt-seg rt-seg-" + p.key, "data-part": p.key, "data-bytes": p.bytes });
            seg.style.width = (total > 0 ? Math.min(100, 100 * p.bytes / total) : 0) + "%"; // CSSOM: the CSP allows it
            bar.append(seg);
            legend.append(el("li", { "data-part": p.key }, el("span", { class: "rt-swatch rt-seg-" + p.key, "aria-hidden": "true" }),
                             p.name + ": " + gib(p.bytes)));
        }
        const box = el("div", { class: "rt-memory" },
                       el("h4", {}, "Memory a ROCm program can allocate: " + gib(total)), bar, legend);
        const limits = memoryLimits(m);
        if (limits) box.append(limits);
        return box;
    }

    function memoryLimits(m) {
        if (typeof m.gtt_allocatable_bytes !== "number") return null;
        const by = m.limited_by || "";
        const rows = [
            { key: "gtt", name: "amdgpu's GTT domain (mem_info_gtt_total)", bytes: m.gtt_bytes, limits: by === "gtt" },
            { key: "ttm", name: (m.ttm_module || "ttm") + ".pages_limit (TTM)", bytes: m.ttm_limit_bytes, limits: by.endsWith("pages_limit") },
            { key: "kfd", name: "KFD's system memory limit (from the RAM)", bytes: m.kfd_system_limit_bytes, limits: by === "ram" },
        ].filter(r => typeof r.bytes === "number");
        if (!rows.length) return null;
        const top = Math.max(...rows.map(r => r.bytes));
        const box = el("div", { class: "rt-limits" },
                       el("p", { class: "rt-muted" }, "System memory ROCm may use is the smallest of these: " + gib(m.gtt_allocatable_bytes)));
        for (const r of rows) {
            const indicator = el("div", { class: "pf-c-progress__indicator" });
            indicator.style.width = (top > 0 ? 100 * r.bytes / top : 0) + "%";
            box.append(el("div", { class: "pf-c-progress pf-m-sm" + (r.limits ? " rt-limiting" : ""), "data-limit": r.key, "data-bytes": r.bytes },
                          el("div", { class: "pf-c-progress__description" }, r.name),
                          el("div", { class: "pf-c-progress__status" },
                             el("span", { class: "pf-c-progress__measure" }, gib(r.bytes) + (r.limits ? " (the limit)" : ""))),
                          el("div", { class: "pf-c-progress__bar", "aria-hidden": "true" }, indicator)));
        }
        return box;
    }

    function renderGpus(status, checks) {
        const box = clear($("gpu-list"));
        if (!status.gpus.length) {
            box.append(el("p", {}, "No AMD GPU was found."));
            return;
        }
        for (const g of status.gpus) {
            const c = g.compute || {};
            const id = "gpu-" + g.id.replace(/[^A-Za-z0-9]/g, "-");
            const card = el("article", { class: "pf-c-card pf-m-flat rt-gpu", "aria-labelledby": id });
            card.append(el("div", { class: "pf-c-card__title" },
                           el("h3", { id, class: "pf-c-title pf-m-md" }, (g.marketing_name || "AMD GPU") + " ", el("span", { class: "rt-muted" }, g.id))));
            const body = el("div", { class: "pf-c-card__body" });
            const dl = facts();
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
            body.append(dl);
            const picture = memoryPicture(g);
            if (picture) body.append(picture);
            for (const [w, words] of WORKLOADS) {
                const doc = checks[w];
                const mine = doc && doc.gpus.find((x) => x.id === g.id);
                body.append(el("h4", {}, "Compute, " + words + ": ", verdictText(mine || null)));
                if (mine && mine.reasons.length)
                    body.append(el("ul", { class: "rt-alerts" }, mine.reasons.map(reasonItem)));
            }
            card.append(body);
            box.append(card);
        }
    }

    // A finding's or a likely cause's severity: the alert's variant and its label's colour.
    const SEVERITIES = { error: ["danger", "red"], warning: ["warning", "gold"], info: ["info", "blue"] };

    function renderFindings(doctor) {
        const list = clear($("finding-list"));
        if (!doctor.findings.length) {
            list.append(el("li", {}, "No findings."));
            return;
        }
        for (const f of doctor.findings) {
            const [variant, colour] = SEVERITIES[f.severity] || ["", ""];
            // Every place that writes the setting (one finding per fact), the one to edit first.
            const places = (f.places && f.places.length ? f.places : (f.file ? [{ file: f.file, line: f.line }] : []))
                    .map(p => "/" + p.file + (p.line ? ":" + p.line : ""));
            list.append(alertItem("li", variant, [label(f.severity, colour, "rt-badge"), " ", f.what], [
                f.why ? el("p", {}, f.why) : null,
                f.fix && f.fix.text ? el("p", {}, el("strong", {}, "Fix: "), f.fix.text) : null,
                f.fix && f.fix.profile ? el("p", {}, "Profile that fixes it: " + f.fix.profile) : null,
                places.length ? el("p", { class: "rt-source" }, "In " + places.join(", ")) : null,
                f.sources && f.sources.length ? el("p", { class: "rt-source" }, "Source: " + f.sources.join("; ")) : null,
            ], { "data-severity": f.severity }));
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
            const [variant, colour] = (cause && SEVERITIES[cause.severity]) || ["", ""];
            list.append(alertItem("li", variant, [label(f.kind, colour, "rt-badge"), " ", faultSentence(f)], [
                f.boot !== null && f.boot !== 0 ? el("p", { class: "rt-muted" }, "Boot " + f.boot) : null,
                cause ? el("p", {}, el("strong", {}, "Likely cause: "), cause.what) : null,
                cause && cause.fix && cause.fix.text ? el("p", {}, el("strong", {}, "Fix: "), cause.fix.text) : null,
                cause && cause.fix && cause.fix.profile ? el("p", {}, "Profile that fixes it: " + cause.fix.profile) : null,
            ]));
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
                           el("th", { scope: "row", class: "rt-mono" }, k.key),
                           el("td", { class: "rt-mono", title: where }, k.configured === null ? "—" : k.configured),
                           el("td", { class: "rt-mono" }, k.running === null ? "—" : k.running),
                           el("td", { class: "rt-mono" }, k.effective === null ? "—" : k.effective),
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
        const pre = el("pre", { class: "rt-diff", tabindex: "0", "aria-label": "The file's changes, as a diff" });
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
                                                      n.source ? el("span", { class: "rt-source" }, " (" + n.source + ")") : null))));
        }
    }

    function renderHistory(history, verify) {
        const v = clear($("verify"));
        if (verify) {
            v.append(el("p", {}, el("strong", {}, "Verify: "),
                        verify.ok ? "what rocmtune configured is in effect and its files are as it left them."
                            : verify.differences.length + " difference(s):"));
            if (!verify.ok)
                v.append(el("ul", {}, verify.differences.map((d) => el("li", {}, label(d.kind, "gold", "rt-badge"), " ", d.message))));
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
                actions.append(el("button", { type: "button", class: "revert pf-c-button pf-m-secondary pf-m-small", "data-id": t.id, "aria-label": "Revert transaction " + t.id + ": " + t.what }, "Revert"));
            }
            body.append(el("tr", { "data-id": t.id },
                           el("th", { scope: "row" }, t.id),
                           el("td", {}, t.time),
                           el("td", {}, t.what),
                           el("td", {}, t.effect + (t.state !== "committed" ? " (" + t.state + ")" : "")),
                           el("td", { class: "rt-mono" }, t.changes.join(", ")),
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
        const dl = facts();
        fact(dl, "Trial", trial.id);
        fact(dl, "State", TRIAL_WORDS[trial.state] || trial.state);
        if (trial.request) fact(dl, "Change", [trial.request.verb, trial.request.profile, ...(trial.request.args || [])].filter(Boolean).join(" "));
        if (trial.tokens && trial.tokens.length) fact(dl, "Trial boot's options", el("code", {}, trial.tokens.join(" ")));
        fact(dl, "Updated", trial.updated || "");
        box.append(dl);
        if (trial.seen && trial.seen.length) {
            box.append(el("h3", { class: "pf-c-title pf-m-md" }, "What the check saw"));
            box.append(el("ul", { class: "rt-alerts" }, trial.seen.map((line) => line.startsWith("FAILED")
                ? alertItem("li", "danger", [el("span", { class: "pf-screen-reader" }, "Danger: "), line], [])
                : el("li", {}, line))));
        }
        if (["prepared", "booted", "confirmed", "failed"].includes(trial.state)) {
            cancel.hidden = false;
            cancel.textContent = trial.state === "failed" ? "Dismiss the failed trial" : "Cancel the trial";
        }
    }

    return {
        WORKLOADS, $, el, clear, itemText, alertItem, label, verdictState, memoryPicture, gib, renderOverview, renderGpus, renderFindings, renderKnobs,
        renderProfiles, describeProfile, renderResult, renderHistory, renderTrial, renderFaults, faultSentence,
    };
})();
