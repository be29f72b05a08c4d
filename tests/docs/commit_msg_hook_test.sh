#!/bin/sh
# scripts/git-hooks/commit-msg (CONTRIBUTING.md, "Commit messages") on sample messages, then
# installed as CONTRIBUTING.md says (core.hooksPath) in a scratch repository where real
# `git commit`s must be refused or recorded.
#   commit_msg_hook_test.sh SOURCE_DIR     exit 0 pass, 1 fail, 77 skip (no git)
set -u
src=$(cd "${1:?usage: commit_msg_hook_test.sh SOURCE_DIR}" && pwd) || exit 1
hook=$src/scripts/git-hooks/commit-msg
command -v git >/dev/null || { echo "SKIP: git is not installed"; exit 77; }
[ -x "$hook" ] || { echo "FAIL: $hook is missing or not executable"; exit 1; }

work=$(mktemp -d "${TMPDIR:-/tmp}/commit-msg-test.XXXXXX") || exit 1
trap 'rm -rf "$work"' EXIT
failures=0
fail() { echo "FAIL: $*"; failures=$((failures + 1)); }

# expect accept|refuse NAME FORMAT [ARG...]: the message printf FORMAT ARG... makes, through the hook
# (no pipeline: a failure counted in a subshell would be lost).
expect() {
    want=$1 name=$2
    shift 2
    # shellcheck disable=SC2059 # the format is the test's own
    printf "$@" >"$work/msg"
    if (cd "$work" && "$hook" "$work/msg") 2>"$work/err"; then got=accept; else got=refuse; fi
    [ "$got" = "$want" ] || fail "$name: the hook said $got ($(cat "$work/err")), want $want"
}

s72=$(printf '%072d' 0 | tr 0 a)   # 72 characters
s73=${s72}b

expect accept "subject and body" 'docs: a short subject\n\nWhy, and the test that shows it.\n'
expect accept "a subject of exactly 72 characters" '%s\n\nbody\n' "$s72"
expect refuse "a subject of 73 characters" '%s\n\nbody\n' "$s73"
# 72 characters of which one is two bytes in UTF-8: counted as characters.
expect accept "72 characters, 73 bytes" '%s\n\nbody\n' "$(printf '%071d' 0 | tr 0 a)é"
expect refuse "no body" 'docs: no body\n'
expect refuse "only empty lines after the subject" 'docs: no body\n\n\n'
expect refuse "only git's comment lines after the subject" 'docs: comments only\n\n# Please enter the commit message\n#\tmodified: README.md\n'
expect refuse "a second line that is not empty" 'docs: a subject\nwrapped onto a second line\n\nbody\n'
expect accept "leading empty lines (git strips them)" '\n\ndocs: leading empty lines\n\nbody\n'
expect accept "a comment line before the subject" '# a comment first\ndocs: after a comment\n\nbody\n'
# `git commit -v`: the diff below the scissors is not part of the message.
expect accept "the verbose diff below the scissors" 'docs: verbose\n\nbody\n# ------------------------ >8 ------------------------\n%s\n' \
    "diff --git a/x b/x"
expect refuse "a body only below the scissors" 'docs: verbose, no body\n\n# ------------------------ >8 ------------------------\ndiff --git a/x b/x\n+%s\n' \
    "$s73"
expect refuse "an empty message" ''
expect accept "a merge commit git wrote" 'Merge branch %s into main\n' "'docs-and-a-very-long-branch-name-that-goes-past-seventy-two-characters'"
expect accept "a revert of a long subject" 'Revert "%s"\n\nThis reverts commit 0123456789abcdef.\n' "$s72"
expect accept "a fixup! commit" 'fixup! docs: a short subject\n'
expect accept "a squash! commit" 'squash! docs: a short subject\n'

# Installed as CONTRIBUTING.md says, in a real repository.
grep -q 'git config core.hooksPath scripts/git-hooks' "$src/CONTRIBUTING.md" ||
    fail "CONTRIBUTING.md does not say how to install the hook"
repo=$work/repo
mkdir -p "$repo/scripts/git-hooks" && cp "$hook" "$repo/scripts/git-hooks/"
if ! { git -C "$repo" init -q && git -C "$repo" config user.name test &&
    git -C "$repo" config user.email test@example.invalid &&
    git -C "$repo" config core.hooksPath scripts/git-hooks; }; then
    echo "FAIL: git init"
    exit 1
fi
echo a >"$repo/file" && git -C "$repo" add file
if git -C "$repo" commit -q -m "$s73" -m body 2>/dev/null; then fail "git commit took a 73-character subject"; fi
if git -C "$repo" commit -q -m "docs: no body" 2>/dev/null; then fail "git commit took a message without a body"; fi
git -C "$repo" commit -q -m "docs: a subject" -m "A body that says why." 2>"$work/err" ||
    fail "git commit refused a good message: $(cat "$work/err")"
[ "$(git -C "$repo" log --format=%s)" = "docs: a subject" ] || fail "the good commit is not recorded"

[ "$failures" = 0 ] && { echo "PASS: commit-msg hook"; exit 0; }
echo "$failures failure(s)"
exit 1
