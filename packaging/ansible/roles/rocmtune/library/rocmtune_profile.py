#!/usr/bin/python3
# -*- coding: utf-8 -*-
# An Ansible module over rocmtunectl's stable contract (`--json` documents and exit codes,
# rocmtunectl(1) "CHANGES"), never over rocmtune's internals: the lesson of
# linux-system-roles/kernel_settings, which dropped a module built on tuned's internals.

from __future__ import absolute_import, division, print_function

__metaclass__ = type

DOCUMENTATION = r"""
---
module: rocmtune_profile
short_description: Apply or remove a rocmtune profile with rocmtunectl
description:
  - Runs C(rocmtunectl apply PROFILE --json) and reports what the CLI's C(rocmtune.result.v1)
    document says. C(changed) is the CLI's own, so a second run with the same profile reports
    no change and writes nothing.
  - In check mode the module adds C(--check); rocmtune plans and writes nothing.
  - In diff mode the unified diff of every file rocmtune writes or removes is returned
    (one entry per file), and a line per runtime sysfs attribute.
  - A refusal (exit 3, e.g. a profile that does not fit this machine's GPUs), a missing
    authorization (exit 4) or drift (exit 5, a file rocmtune owns that someone else edited)
    fails the task with rocmtune's own message.
  - I(state=absent) removes the profile if it is the active one, with C(rocmtunectl reset)
    (back to stock - every setting rocmtune made is removed, including ones made with
    C(rocmtunectl set)); if another profile (or none) is active, nothing changes.
    rocmtune has no per-profile removal; applying a profile replaces the active one.
version_added: "1.0.0"
options:
  profile:
    description:
      - Name of a built-in (C(/usr/share/rocmtune/profiles)) or admin
        (C(/etc/rocmtune/profiles)) profile, as C(rocmtunectl profiles) lists them.
    type: str
    required: true
  state:
    description:
      - C(present) applies the profile (replacing the active one).
      - C(absent) resets to stock when I(profile) is the active profile.
    type: str
    choices: [present, absent]
    default: present
  root:
    description:
      - Work on the tree at this directory instead of C(/) (C(--root)), e.g. an image, a chroot or
        a test world. Regenerators (update-grub, update-initramfs) are then reported
        C(pending), not run.
    type: path
  optional:
    description:
      - Optional item ids of the profile to include (C(--with ID)); see C(rocmtunectl show PROFILE).
    type: list
    elements: str
    default: []
  trial:
    description:
      - Pass C(--trial) - prepare a one-shot trial boot of the profile's boot-affecting part
        (kernel options, amdgpu/ttm options) instead of writing it; the change is made permanent
        by the trial boot itself when its GPUs come up healthy (rocmtunectl(1) "TRIAL BOOTS").
        The module does not reboot; the role does (C(rocmtune_trial)). Refused (exit 3) on a
        I(root) tree except in check mode, and when the profile changes nothing that boots.
    type: bool
    default: false
  force:
    description:
      - Pass C(--force) - apply a profile that does not fit this machine, overwrite rocmtune's files
        someone else edited (drift), and set parameters that do nothing here and taint the kernel.
    type: bool
    default: false
  rocmtunectl:
    description:
      - The rocmtunectl program, a name looked up in C(PATH) or an absolute path.
    type: str
    default: rocmtunectl
notes:
  - Supports check mode and diff mode.
  - Changing C(/) needs root (C(become=true)); otherwise rocmtunectl exits 4 (not authorized).
    C(--no-ask-password) is always passed, so polkit never waits for a password.
requirements:
  - rocmtunectl (Debian package C(rocmtune)) on the managed host
author:
  - rocmtune developers
"""

EXAMPLES = r"""
- name: RDNA1 box - the rdna1-safe profile
  rocmtune_profile:
    profile: rdna1-safe
  become: true
  register: rocmtune

- name: Reboot when a boot-time setting changed
  ansible.builtin.reboot:
  when: rocmtune.reboot_required

- name: Plan only, on an image tree, with an optional item
  rocmtune_profile:
    profile: instinct
    root: /srv/images/node
    optional: [mi-intel-iommu-on]
  check_mode: true
  diff: true

- name: Back to stock if instinct is the active profile
  rocmtune_profile:
    profile: instinct
    state: absent
  become: true
"""

RETURN = r"""
changed:
  description: >-
    Whether rocmtune changed (in check mode - would change) anything; the CLI's C(changed). With
    I(trial), whether a trial boot was prepared.
  returned: always
  type: bool
reboot_required:
  description: A boot-time setting (kernel command line, a module option of a loaded module) changed.
  returned: always
  type: bool
  sample: true
transaction:
  description: The journal transaction id of the change (C(rocmtunectl revert ID) undoes it), or null.
  returned: always
  type: str
  sample: "3"
regenerated:
  description: Regeneration of the initramfs and the boot loader configuration - done, pending or no.
  returned: always
  type: dict
  sample: {"initramfs": "pending", "bootloader": "no"}
changes:
  description: >-
    The plan's operations, as in rocmtune.result.v1 - backend, action (write-file, remove-file,
    write-sysfs, regenerate), path relative to the root, reason, and a unified diff for files.
  returned: always
  type: list
  elements: dict
plan_warnings:
  description: >-
    The plan's warnings (ineffective settings, admin overrides), each with key, message and source;
    each is also shown as an Ansible warning.
  returned: always
  type: list
  elements: dict
notes:
  description: What the profile says besides its knobs, each with message and source.
  returned: always
  type: list
  elements: dict
active_profile:
  description: With I(state=absent) - the profile that was active before the task, or null.
  returned: when state is absent
  type: str
result:
  description: The whole rocmtune.result.v1 document the CLI printed.
  returned: when the CLI ran a change
  type: dict
rc:
  description: The exit code of rocmtunectl.
  returned: always
  type: int
"""

import json
import os

from ansible.module_utils.basic import AnsibleModule

RESULT_SCHEMA = "rocmtune.result.v1"

# The options DOCUMENTATION describes (tests/ansible checks that the two agree).
ARGUMENT_SPEC = dict(
    profile=dict(type="str", required=True),
    state=dict(type="str", choices=["present", "absent"], default="present"),
    root=dict(type="path"),
    optional=dict(type="list", elements="str", default=[]),
    force=dict(type="bool", default=False),
    trial=dict(type="bool", default=False),
    rocmtunectl=dict(type="str", default="rocmtunectl"),
)

# client/exit_codes.h; rocmtunectl(1) "EXIT STATUS".
EXIT_MEANING = {
    1: "failed",
    2: "usage error",
    3: "refused",
    4: "not authorized",
    5: "drift or conflict",
    6: "verify found differences",
}


def find_rocmtunectl(module):
    ctl = module.params["rocmtunectl"]
    if "/" in ctl:
        if not (os.path.isfile(ctl) and os.access(ctl, os.X_OK)):
            module.fail_json(msg="rocmtunectl %s is not an executable file" % ctl, rc=None)
        return ctl
    return module.get_bin_path(ctl, required=True, opt_dirs=["/usr/bin", "/usr/sbin"])


def parse_document(text):
    try:
        doc = json.loads(text)
    except ValueError:
        return None
    return doc if isinstance(doc, dict) else None


def messages_of(doc):
    """The CLI's own words: an error document's message, or a result's refusals, drift and errors."""
    if doc is None:
        return []
    if doc.get("schema") != RESULT_SCHEMA:
        out = [doc["message"]] if isinstance(doc.get("message"), str) else []
        if isinstance(doc.get("hint"), str):
            out.append("hint: " + doc["hint"])
        return out
    out = []
    for label, key in (("refused", "refused"), ("drift", "conflicts")):
        for m in doc.get(key) or []:
            if isinstance(m, dict) and m.get("message"):
                text = "%s: %s" % (label, m["message"])
                if m.get("source"):
                    text += " (source: %s)" % m["source"]
                out.append(text)
    out.extend(e for e in doc.get("errors") or [] if isinstance(e, str))
    return out


def run_ctl(module, ctl, verb_args):
    cmd = [ctl, "--no-ask-password"]
    if module.params["root"]:
        cmd += ["--root", module.params["root"]]
    cmd += verb_args + ["--json"]
    rc, out, err = module.run_command(cmd, environ_update={"LC_ALL": "C"})
    return cmd, rc, out, err


def fail_with_cli_message(module, cmd, rc, out, err, doc):
    words = messages_of(doc)
    if not words and err.strip():
        words = [line.strip() for line in err.strip().splitlines()]
    meaning = EXIT_MEANING.get(rc, "exit %d" % rc)
    msg = "rocmtunectl %s: %s (exit %d)" % (" ".join(cmd[1:-1]), meaning, rc)
    if words:
        msg += ": " + "; ".join(words)
    module.fail_json(msg=msg, rc=rc, stdout=out, stderr=err, cmd=cmd, result=doc)


def diff_of(changes):
    diffs = []
    for c in changes:
        if not isinstance(c, dict):
            continue
        if c.get("diff"):
            diffs.append({"prepared": c["diff"]})
        elif c.get("action") == "write-sysfs":
            diffs.append({"prepared": "sysfs /%s: %s -> %s\n" % (c.get("path"), c.get("before"), c.get("value"))})
    return diffs


def run_change(module, ctl, verb_args, extra):
    if module.check_mode:
        verb_args = verb_args + ["--check"]
    if module.params["force"]:
        verb_args = verb_args + ["--force"]
    cmd, rc, out, err = run_ctl(module, ctl, verb_args)
    doc = parse_document(out)
    if rc != 0:
        fail_with_cli_message(module, cmd, rc, out, err, doc)
    if doc is None or doc.get("schema") != RESULT_SCHEMA:
        module.fail_json(msg="rocmtunectl printed no %s document" % RESULT_SCHEMA, rc=rc, stdout=out, stderr=err, cmd=cmd)
    changes = doc.get("changes") or []
    warnings = doc.get("warnings") or []
    for w in warnings:
        if isinstance(w, dict) and w.get("message"):
            module.warn("rocmtune: %s" % w["message"])
    result = dict(
        extra,
        changed=bool(doc.get("changed")),
        reboot_required=bool(doc.get("reboot_required")),
        transaction=doc.get("transaction"),
        regenerated=doc.get("regenerated") or {},
        changes=changes,
        plan_warnings=warnings,
        notes=doc.get("notes") or [],
        result=doc,
        rc=rc,
        cmd=cmd,
    )
    if module._diff:
        result["diff"] = diff_of(changes)
    module.exit_json(**result)


def active_profile(module, ctl):
    cmd, rc, out, err = run_ctl(module, ctl, ["status"])
    doc = parse_document(out)
    if rc != 0 or doc is None:
        fail_with_cli_message(module, cmd, rc, out, err, doc)
    return doc.get("profile")


def main():
    module = AnsibleModule(argument_spec=ARGUMENT_SPEC, supports_check_mode=True)
    profile = module.params["profile"]
    if not profile or profile.startswith("-"):
        module.fail_json(msg="profile must be a profile name (see rocmtunectl profiles), got %r" % profile)
    root = module.params["root"]
    if root is not None and not os.path.isdir(root):
        module.fail_json(msg="root %s is not a directory" % root)
    ctl = find_rocmtunectl(module)

    if module.params["state"] == "present":
        verb = ["apply", profile]
        for item in module.params["optional"]:
            verb += ["--with", item]
        if module.params["trial"]:
            verb += ["--trial"]
        run_change(module, ctl, verb, {})

    active = active_profile(module, ctl)
    if active != profile:
        module.exit_json(
            changed=False,
            active_profile=active,
            reboot_required=False,
            transaction=None,
            regenerated={},
            changes=[],
            notes=[],
            plan_warnings=[],
            rc=0,
            msg="profile %s is not active (active: %s): nothing to remove" % (profile, active),
        )
    run_change(module, ctl, ["reset"], {"active_profile": active})


if __name__ == "__main__":
    main()
