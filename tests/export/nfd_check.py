#!/usr/bin/python3
"""Strict checker for a node-feature-discovery (NFD) `local` source feature file (features.d).

usage: nfd_check.py [--namespace NS] [--now RFC3339] FILE

Prints `FILE:LINE: problem` for each problem (LINE 0 = the whole file) and exits 1, or prints
{"labels": {name: value}, "expiry": "<expiry-time as written>" | null} and exits 0.

Rules, from primary sources:
  NFD  = kubernetes-sigs/node-feature-discovery @ 76e6cc8cc0d54b8bce037098b72611ffdf66ef5a
  K8S  = kubernetes/apimachinery v0.35.3 (72d71eac265e), the version pinned in NFD's go.mod:29
  GO   = golang/go src/time (format.go Parse, format_rfc3339.go parseRFC3339)

 Parsing, NFD source/local/local.go:
  - 63-64, 311-314: a regular file larger than 65536 bytes is ignored whole (docs 291-292);
    266-271: dot files are ignored; 311: a non-regular file yields no lines.
  - 322: lines are split on "\\n" only; 200: each is strings.TrimSpace'd; blank lines skipped.
  - 202-210: a line starting with "#" is a comment; it is a directive only if it starts with
    exactly "# +" (61, 158), so "#+no-label" is a plain comment (docs 368 spells it that way).
  - 162-185: directive = text after "# +", split at the first "="; "expiry-time" needs "=value"
    (168-170) that time.Parse(RFC3339, TrimSpace(value)) accepts (172-175), otherwise the
    directive is logged and ignored; "no-feature"/"no-label" (177-180); anything else is an
    "unknown feature file directive" error (181-182).
  - 192-197, 212-215: the expiry in effect starts at "now" and is replaced by each expiry-time
    directive; it applies to the lines after it (docs 296-322); a line is dropped while
    expiry < now (strictly before).  Note: a dropped line does not reset no-label/no-feature.
  - 217, 241-250: an entry is `<name>[=<value>]`, split at the first "="; no "=" means "true".
    A later entry with the same name overwrites the earlier one (map assignment).
  - 221-234: no-feature / no-label apply to the next entry only; with no-label the entry is not
    a label and *deletes* an earlier label of that name (230).  Docs 328-369.
 Label validation (worker, then master):
  - NFD pkg/nfd-worker/nfd-worker.go 799-839: local labels are not prefixed (802-804); a label
    failing IsQualifiedName (819-823) or IsValidLabelValue (825-831) is dropped.
  - K8S pkg/util/validation/validation.go 36, 153 -> pkg/api/validate/content/kube.go 24-30,
    43-72 (IsLabelKey: at most one "/", prefix non-empty DNS-1123 subdomain, name 1..63 chars
    of ([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]), 74-94 (IsLabelValue: <=63, same charset or
    empty); content/dns.go 23, 51-59, 84-101 (subdomain: <=253, [a-z0-9]([-a-z0-9]*[a-z0-9])?
    labels joined by ".").
  - NFD pkg/apis/nfd/validate/validate.go 93-121 (Label), used by pkg/nfd-master/nfd-master.go
    522-554 (filterFeatureLabel): unprefixed name -> ErrUnprefixedKeysNotAllowed (103-105);
    namespace kubernetes.io or *.kubernetes.io is denied (107-112) unless it is, or ends in
    ".", feature.node.kubernetes.io or profile.node.kubernetes.io
    (api/nfd/v1alpha1/annotations_labels.go 19-30).  Denied labels are dropped
    (nfd-master.go 538-541; only the operator's -extra-label-ns can re-allow them).
  - Unprefixed names are auto-prefixed with feature.node.kubernetes.io/ (nfd-master.go
    681-683, 940-941, 1400-1413) unless the DisableAutoPrefix gate is on, then dropped
    (543-545); docs/usage/customization-guide.md 364-369 and docs/reference/feature-gates.md
    40-59 say not to use them.  Reported as a problem here.
 RFC 3339: GO format.go Parse uses parseRFC3339 (format_rfc3339.go ~87-160) for the RFC3339
  layout: YYYY-MM-DDTHH:MM:SS[.digits](Z|+hh:mm|-hh:mm), uppercase T/Z, year 0-9999, real day
  of month, hour 0-23, minute 0-59, second 0-59 (no leap second), offset hour 0-23.  Go then
  falls back to a laxer generic parser; that laxness is deliberately not accepted here.
 rocmtune-specific rules (not NFD's): with --namespace every label's prefix must equal NS;
  no name may appear twice; every expiry-time directive must come before every entry;
  an expiry-time must not be already past relative to --now (default: the current time).
"""
import argparse
import datetime
import json
import os
import re
import stat
import sys

MAX_SIZE = 65536  # local.go:64
DIRECTIVE_PREFIX = "# +"  # local.go:61
# Go's strings.TrimSpace (unicode.IsSpace); str.strip() would also strip \x1c-\x1f.
GO_SPACE = "\t\n\v\f\r \x85\xa0\u1680\u2000\u2001\u2002\u2003\u2004\u2005\u2006\u2007\u2008" \
           "\u2009\u200a\u2028\u2029\u202f\u205f\u3000"
NAME_RE = re.compile(r"([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]")
DNS_SUBDOMAIN_RE = re.compile(r"[a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*")
ALLOWED_K8S_NS = ("feature.node.kubernetes.io", "profile.node.kubernetes.io")
RFC3339_RE = re.compile(r"([0-9]{4})-([0-9]{2})-([0-9]{2})T([0-9]{2}):([0-9]{2}):([0-9]{2})"
                        r"(\.[0-9]+)?(Z|[+-]([0-9]{2}):([0-9]{2}))")
EPOCH_START = datetime.datetime.min  # stands in for instants Python cannot represent (year 0/1)


def parse_rfc3339(text):
    """Naive-UTC datetime, or None when Go's strict RFC 3339 path would not accept it."""
    m = RFC3339_RE.fullmatch(text)
    if not m:
        return None
    year, month, day, hour, minute, sec = (int(g) for g in m.groups()[:6])
    if not (1 <= month <= 12 and hour <= 23 and minute <= 59 and sec <= 59):
        return None
    leap = year % 4 == 0 and (year % 100 != 0 or year % 400 == 0)  # Go: year 0 is leap
    days = [31, 29 if leap else 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31][month - 1]
    if not 1 <= day <= days:
        return None
    offset = 0
    if m.group(8) != "Z":
        oh, om = int(m.group(9)), int(m.group(10))
        if oh > 23 or om > 59:
            return None
        offset = (oh * 60 + om) * (1 if m.group(8)[0] == "+" else -1)
    micro = int((m.group(7) or ".0")[1:7].ljust(6, "0"))
    if year == 0:
        return EPOCH_START
    try:
        local = datetime.datetime(year, month, day, hour, minute, sec, micro)
        return local - datetime.timedelta(minutes=offset)
    except OverflowError:
        return EPOCH_START if year < 5000 else datetime.datetime.max


def label_problems(name, value, namespace):
    """nfd-worker + nfd-master validation of one label, plus the rocmtune namespace rule."""
    out = []
    parts = name.split("/")
    if len(parts) > 2:
        return [f"name {name!r} is not a qualified name: more than one '/'"]
    prefix, base = parts if len(parts) == 2 else ("", parts[0])
    if len(parts) == 2 and not prefix:
        out.append(f"name {name!r} is not a qualified name: empty prefix")
    elif prefix and (len(prefix) > 253 or not DNS_SUBDOMAIN_RE.fullmatch(prefix)):
        out.append(f"name {name!r} is not a qualified name: prefix is not a DNS-1123 subdomain"
                   " of at most 253 characters")
    if len(base) > 63 or not NAME_RE.fullmatch(base):
        out.append(f"name {name!r} is not a qualified name: name part must be 1-63 characters of"
                   " [A-Za-z0-9-_.] starting and ending alphanumeric")
    if len(parts) == 1:
        out.append(f"name {name!r} has no namespace: nfd-master would prefix it with"
                   " feature.node.kubernetes.io/ (or drop it under DisableAutoPrefix)")
    elif (prefix == "kubernetes.io" or prefix.endswith(".kubernetes.io")) and not any(
            prefix == ns or prefix.endswith("." + ns) for ns in ALLOWED_K8S_NS):
        out.append(f"namespace {prefix!r} of {name!r} is denied by nfd-master")
    if len(value) > 63 or not (value == "" or NAME_RE.fullmatch(value)):
        out.append(f"value {value!r} of {name!r} is not a valid label value: at most 63"
                   " characters of [A-Za-z0-9-_.] starting and ending alphanumeric, or empty")
    if namespace is not None and prefix != namespace:
        out.append(f"label {name!r} is outside namespace {namespace!r}")
    return out


def check(path, namespace, now):
    """Returns (problems as [(line, text)], labels, expiry text or None)."""
    problems = []
    try:
        st = os.stat(path)
        if not stat.S_ISREG(st.st_mode):
            return [(0, "not a regular file: NFD reads nothing from it")], {}, None
        with open(path, "rb") as f:
            data = f.read()
    except OSError as e:
        return [(0, f"cannot read: {e.strerror}")], {}, None
    if os.path.basename(path).startswith("."):
        problems.append((0, "hidden (dot) file: NFD ignores it"))
    if st.st_size > MAX_SIZE:
        problems.append((0, f"file is {st.st_size} bytes, over NFD's limit of {MAX_SIZE}:"
                            " NFD ignores it"))

    expiry_text, expiry_lines = None, []
    skip_label = False
    labels, seen, entry_lines = {}, {}, []
    for lineno, raw in enumerate(data.split(b"\n"), 1):
        line = raw.decode("utf-8", "surrogateescape").strip(GO_SPACE)
        if not line:
            continue
        if line.startswith("#"):
            if line.startswith(DIRECTIVE_PREFIX):
                key, eq, value = line[len(DIRECTIVE_PREFIX):].partition("=")
                if key == "expiry-time":
                    expiry_lines.append(lineno)
                    when = parse_rfc3339(value.strip(GO_SPACE)) if eq else None
                    if not eq:
                        problems.append((lineno, "malformed expiry-time directive: no '=value'"))
                    elif when is None:
                        problems.append((lineno, f"expiry-time {value!r} is not RFC 3339:"
                                                 " NFD ignores the directive"))
                    else:
                        expiry_text = value.strip(GO_SPACE)
                        if when < now:
                            problems.append((lineno, f"expiry-time {value!r} is already past:"
                                                     " NFD drops the entries after it"))
                elif key == "no-feature":
                    pass  # only keeps the next entry out of local.feature, not a label matter
                elif key == "no-label":
                    skip_label = True
                else:
                    problems.append((lineno, f"unknown directive {key!r}"))
            elif re.match(r"#\s*\+", line):
                problems.append((lineno, "malformed directive: NFD only recognises the exact"
                                         " prefix '# +', so this is a plain comment"))
            continue
        # NFD drops entries while the expiry in effect < now (local.go:213-215); a past expiry is
        # already a problem, so they are checked anyway to report everything at once.
        name, eq, value = line.partition("=")
        value = value if eq else "true"
        entry_lines.append(lineno)
        if name in seen:
            problems.append((lineno, f"duplicate name {name!r} (first at line {seen[name]})"))
        seen.setdefault(name, lineno)
        if not name or name != name.strip(GO_SPACE) or value != value.strip(GO_SPACE):
            problems.append((lineno, f"malformed line {line!r}: expected <namespace>/<name>"
                                     "[=<value>] without spaces around '='"))
        elif not skip_label:
            problems.extend((lineno, p) for p in label_problems(name, value, namespace))
        if not skip_label:  # a no-label entry also deletes an earlier label: a duplicate
            labels[name] = value
        skip_label = False

    if expiry_lines:
        for lineno in entry_lines:
            if lineno < expiry_lines[-1]:
                problems.append((lineno, "entry precedes the expiry-time directive at line"
                                         f" {expiry_lines[-1]} (rocmtune writes it first)"))
    return sorted(problems), labels, expiry_text


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--namespace", help="every label must be NS/<name>")
    ap.add_argument("--now", help="RFC 3339 time to judge expiry against (default: now)")
    ap.add_argument("file")
    args = ap.parse_args()
    if args.now is None:
        now = datetime.datetime.now(datetime.timezone.utc).replace(tzinfo=None)
    else:
        now = parse_rfc3339(args.now)
        if now is None:
            ap.error(f"--now {args.now!r} is not RFC 3339")
    problems, labels, expiry = check(args.file, args.namespace, now)
    for lineno, text in problems:
        print(f"{args.file}:{lineno}: {text}")
    if problems:
        return 1
    json.dump({"labels": dict(sorted(labels.items())), "expiry": expiry}, sys.stdout, indent=1)
    print()
    return 0


if __name__ == "__main__":
    sys.exit(main())
