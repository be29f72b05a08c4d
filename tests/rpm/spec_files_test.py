#!/usr/bin/python3
"""packaging/rpm/rocmtune.spec against this build, without rpmbuild (ctest label `package`).

Installs the build into a scratch DESTDIR with prefix /usr, expands the spec's %files lines with
a small table of RPM directory macros and checks, as rpmbuild would:
  * every installed file is listed by a %files line ("Installed (but unpackaged) file(s) found"),
    and every installed directory named after rocmtune is owned;
  * every %files line names something installed ("File not found");
  * the spec's Version is the project's (CMakeLists.txt project VERSION), and its newest
    %changelog entry is Version-Release.

The macro table: rpm's built-in directories (below) plus the plain `%name value` lines of
packaging/rpm/macros.debian-smoke (Fedora's values for what Debian's rpm lacks) and the spec's
%global lines. A cache variable the spec sets with -DVAR=%{macro} moves the files CMake installs
under VAR's value in this build to the macro's directory, as configuring with the spec's options
would. With --self-test it also drops each %files line in turn and fails unless the check then
reports that line's files. With --list it prints the paths the package owns, one a line (what
`rpm -qlp` lists; tests/rpm/smoke_build_test.sh compares the two).

usage: spec_files_test.py [--self-test|--list] SPEC MACROS SOURCE_DIR BUILD_DIR PROJECT_VERSION
"""

import glob
import os
import re
import subprocess
import sys
import tempfile

# rpm's own directory macros (rpm's macros.in), the ones the spec may use.
RPM_BUILTIN_MACROS = {
    "_prefix": "/usr",
    "_exec_prefix": "%{_prefix}",
    "_bindir": "%{_exec_prefix}/bin",
    "_sbindir": "%{_exec_prefix}/sbin",
    "_libexecdir": "%{_exec_prefix}/libexec",
    "_datadir": "%{_prefix}/share",
    "_mandir": "%{_datadir}/man",
    "_docdir": "%{_datadir}/doc",
    "_sysconfdir": "/etc",
    "_localstatedir": "/var",
}


class SpecError(Exception):
    pass


class Macros:
    def __init__(self, table):
        self.table = dict(table)

    def expand(self, text, where):
        for _ in range(20):
            new = re.sub(r"%(\{(\?)?(\w+)\}|(\w+))", lambda m: self._one(m, where), text)
            if new == text:
                return text.replace("%%", "%")
            text = new
        raise SpecError(f"{where}: macros nest too deep in {text!r}")

    def _one(self, m, where):
        name = m.group(3) or m.group(4)
        if m.start() > 0 and m.string[m.start() - 1] == "%":
            return m.group(0)  # %% escapes
        if name in self.table:
            return self.table[name]
        if m.group(2):  # %{?name}: empty when undefined
            return ""
        raise SpecError(f"{where}: macro %{name} is not in the table (add it to "
                        "packaging/rpm/macros.debian-smoke or tests/rpm/spec_files_test.py)")


def read_smoke_macros(path):
    """The plain `%name value` definitions of the smoke macros file (no arguments, one line)."""
    table = {}
    with open(path, encoding="utf-8") as f:
        lines = f.read().split("\n")
    for i, line in enumerate(lines):
        m = re.match(r"^%(\w+)\s+(\S.*)$", line)
        continued = line.endswith("\\") or (i > 0 and lines[i - 1].endswith("\\"))
        if m and not continued:
            table[m.group(1)] = m.group(2).strip()
    return table


def parse_spec(path):
    tags, globals_, sections = {}, {}, {}
    section = "preamble"
    with open(path, encoding="utf-8") as f:
        for number, line in enumerate(f, 1):
            line = line.rstrip("\n")
            head = re.match(r"^%(prep|build|install|check|files|changelog|description|package|"
                            r"pre|post|preun|postun|pretrans|posttrans)\b", line)
            if head:
                section = head.group(1)
                sections.setdefault(section, [])
                continue
            if section == "preamble":
                tag = re.match(r"^(\w+):\s*(.*)$", line)
                if tag:
                    tags[tag.group(1).lower()] = tag.group(2).strip()
                glob_ = re.match(r"^%(?:global|define)\s+(\w+)\s+(.*)$", line)
                if glob_:
                    globals_[glob_.group(1)] = glob_.group(2).strip()
                continue
            sections[section].append((number, line))
    for needed in ("name", "version", "release"):
        if needed not in tags:
            raise SpecError(f"{path}: no {needed.capitalize()}: tag")
    for needed in ("build", "install", "files", "changelog"):
        if needed not in sections:
            raise SpecError(f"{path}: no %{needed} section")
    return tags, globals_, sections


def joined_lines(lines):
    """Shell lines with backslash continuations joined."""
    out, current = [], ""
    for _, line in lines:
        if line.endswith("\\"):
            current += line[:-1] + " "
        else:
            out.append(current + line)
            current = ""
    if current:
        out.append(current)
    return out


def cmake_cache(build_dir):
    cache = {}
    path = os.path.join(build_dir, "CMakeCache.txt")
    with open(path, encoding="utf-8") as f:
        for line in f:
            m = re.match(r"^([A-Za-z_][\w-]*)(?::\w+)?=(.*)$", line.rstrip("\n"))
            if m:
                cache[m.group(1)] = m.group(2)
    return cache


def install_tree(build_dir, destdir):
    env = dict(os.environ, DESTDIR=destdir)
    run = subprocess.run(["cmake", "--install", build_dir, "--prefix", "/usr"], env=env,
                         stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True, check=False)
    if run.returncode != 0:
        raise SpecError(f"cmake --install {build_dir} failed (is the build complete?):\n{run.stdout}")
    paths = {}
    for root, dirs, files in os.walk(destdir):
        rel = "/" + os.path.relpath(root, destdir) if root != destdir else "/"
        for d in dirs:
            full = os.path.join(root, d)
            paths[os.path.normpath(os.path.join(rel, d))] = "link" if os.path.islink(full) else "dir"
        for name in files:
            paths[os.path.normpath(os.path.join(rel, name))] = "file"
    return paths


def relocate(paths, moves):
    """Applies {from_dir: to_dir}: each path under from_dir moves under to_dir."""
    out = {}
    for path, kind in paths.items():
        for src, dst in moves.items():
            if path == src or path.startswith(src + "/"):
                path = dst + path[len(src):]
                break
        out[path] = kind
    # The parents of moved paths exist at their new places.
    for path in list(out):
        parent = os.path.dirname(path)
        while parent not in ("/", "") and parent not in out:
            out[parent] = "dir"
            parent = os.path.dirname(parent)
    return out


DIRECTIVE = re.compile(r"^%(dir|doc|license|ghost|config|attr|verify|defattr|docdir|lang|caps)"
                       r"(\([^)]*\))?\s*")


def files_entries(lines, macros):
    """(line number, original text, kind, expanded path) per %files line; kind is dir, doc or path."""
    entries = []
    for number, line in lines:
        text = line.strip()
        if not text or text.startswith("#"):
            continue
        kind, rest = "path", text
        while True:
            m = DIRECTIVE.match(rest)
            if not m:
                break
            if m.group(1) == "defattr":
                rest = ""
                break
            if m.group(1) == "dir":
                kind = "dir"
            elif m.group(1) in ("doc", "license"):
                kind = "doc"
            rest = rest[m.end():]
        if not rest:
            continue
        for word in rest.split():
            path = macros.expand(word, f"%files line {number}")
            if kind == "doc" and not path.startswith("/"):
                entries.append((number, text, "doc", path))
            else:
                entries.append((number, text, kind, os.path.normpath(path)))
    return entries


def coverage_problems(entries, tree, source_dir, owned_out=None):
    """What rpmbuild would refuse: unpackaged files, entries matching nothing, unowned dirs."""
    problems, owned = [], set()
    for number, text, kind, path in entries:
        if kind == "doc":
            if not os.path.exists(os.path.join(source_dir, path)):
                problems.append(f"%files line {number} `{text}`: {path} is not in the source tree")
            continue
        if kind == "dir":
            if tree.get(path) != "dir":
                problems.append(f"%files line {number} `{text}`: no directory {path} is installed")
            owned.add(path)
            continue
        # glob.glob-like matching against the tree: * and ? do not cross a slash.
        pattern = re.compile("^" + "".join(
            "[^/]*" if c == "*" else "[^/]" if c == "?" else re.escape(c) for c in path) + "$")
        matched = [p for p in tree if pattern.match(p)]
        if not matched:
            problems.append(f"%files line {number} `{text}`: nothing installed matches {path}")
        for p in matched:
            owned.add(p)
            if tree[p] == "dir":
                owned.update(q for q in tree if q.startswith(p + "/"))
    for path, kind in sorted(tree.items()):
        if kind != "dir" and path not in owned:
            problems.append(f"installed but not in %files: {path}")
        if kind == "dir" and "rocmtune" in os.path.basename(path) and path not in owned:
            problems.append(f"directory installed but not owned by %files: {path}")
    if owned_out is not None:
        owned_out.update(owned)
    return problems


def version_problems(tags, changelog, macros, project_version):
    problems = []
    version = macros.expand(tags["version"], "Version:")
    if version != project_version:
        problems.append(f"spec Version {version} is not the project's version {project_version} "
                        "(CMakeLists.txt project VERSION)")
    release = macros.expand(tags["release"], "Release:")
    entries = [line for _, line in changelog if line.startswith("* ")]
    if not entries:
        problems.append("%changelog has no entry")
    elif not entries[0].rstrip().endswith(f"- {version}-{release}"):
        problems.append(f"newest %changelog entry is not for {version}-{release}: {entries[0]}")
    return problems


def main(argv):
    self_test = "--self-test" in argv
    list_only = "--list" in argv
    args = [a for a in argv if a not in ("--self-test", "--list")]
    if len(args) != 5:
        print(__doc__.strip().splitlines()[-1], file=sys.stderr)
        return 2
    spec, macros_file, source_dir, build_dir, project_version = args

    tags, globals_, sections = parse_spec(spec)
    table = dict(RPM_BUILTIN_MACROS)
    table.update(read_smoke_macros(macros_file))
    table.update(globals_)
    table.update({"name": tags["name"], "version": tags["version"], "release": tags["release"],
                  "buildroot": "@BUILDROOT@"})
    macros = Macros(table)

    # -DVAR=VALUE in %build: where the spec's configure puts what CMake installs under VAR.
    cache = cmake_cache(build_dir)
    moves = {}
    for line in joined_lines(sections["build"]):
        for var, value in re.findall(r"-D(\w+)(?::\w+)?=(\S+)", line):
            wanted = os.path.normpath(macros.expand(value, f"%build -D{var}"))
            if not wanted.startswith("/"):
                continue
            if var not in cache:
                print(f"note: -D{var} is not a cache variable of this build (the project does not "
                      "read it yet): its files stay where the project installs them", file=sys.stderr)
                continue
            here = os.path.normpath(os.path.join("/usr", cache[var]))
            if here != wanted:
                moves[here] = wanted

    problems = version_problems(tags, sections["changelog"], macros, project_version)
    with tempfile.TemporaryDirectory(prefix="rocmtune-rpm-") as destdir:
        tree = relocate(install_tree(build_dir, destdir), moves)
    # Directories the spec's %install makes itself (install -d / mkdir -p %{buildroot}PATH).
    for line in joined_lines(sections["install"]):
        if re.match(r"^\s*(install\s+-d|mkdir\s+-p)\b", line):
            for word in line.split():
                if word.startswith("%{buildroot}"):
                    path = os.path.normpath(macros.expand(word, "%install")[len("@BUILDROOT@"):])
                    tree = relocate({**tree, path: "dir"}, {})

    entries = files_entries(sections["files"], macros)
    owned = set()
    problems += coverage_problems(entries, tree, source_dir, owned)
    if list_only:
        for p in problems:
            print(f"FAIL: {p}", file=sys.stderr)
        # %doc files land in %{_docdir}/NAME (Fedora's %_docdir_fmt), which the package owns.
        docdir = f"{macros.expand('%{_docdir}', 'list')}/{tags['name']}"
        docs = {f"{docdir}/{os.path.basename(e[3])}" for e in entries if e[2] == "doc"}
        docs |= {docdir} if docs else set()
        print("\n".join(sorted(owned | docs)))
        return 1 if problems else 0
    files_count = sum(1 for kind in tree.values() if kind != "dir")
    print(f"{spec}: {len(entries)} %files entries, {files_count} installed files "
          f"(prefix /usr, moved by the spec's -D options: {moves or 'none'})")

    if self_test and not problems:
        # Each %files line must matter: without it the check has to complain.
        for number, text, kind, _ in entries:
            if kind == "doc":
                continue
            rest = [e for e in entries if e[0] != number]
            if not coverage_problems(rest, tree, source_dir):
                problems.append(f"self-test: dropping %files line {number} `{text}` went unnoticed")
        wrong = dict(tags, version=project_version + ".1")
        if not version_problems(wrong, sections["changelog"], macros, project_version):
            problems.append("self-test: a Version other than the project's went unnoticed")
        if not problems:
            print(f"self-test: dropping any one of the {len(entries)} %files lines, or a wrong "
                  "Version, is reported")

    for p in problems:
        print(f"FAIL: {p}", file=sys.stderr)
    return 1 if problems else 0


if __name__ == "__main__":
    try:
        sys.exit(main(sys.argv[1:]))
    except (SpecError, OSError) as e:
        print(f"FAIL: {e}", file=sys.stderr)
        sys.exit(1)
