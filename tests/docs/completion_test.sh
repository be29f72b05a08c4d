#!/bin/bash
# The shell completions and the man pages against the programs themselves: every verb and every
# option `rocmtunectl --help` and `rocmtunectl VERB --help` list (so a verb added to
# client/verb_table.cc is demanded here at once), and the options of `rocmtuned --help` and
# `rocmtune-helper --help`. bash and fish are run for real; zsh is syntax-checked and read.
#
#   completion_test.sh MODE SOURCE_DIR ROCMTUNECTL [ROCMTUNED ROCMTUNE_HELPER]
#   MODE: bash | zsh | fish | man | keys | install
# man and install also read the build folder, ROCMTUNE_BUILD_DIR: the pages scdoc made render
# without a groff warning, and `cmake --install` puts pages and completions where the man
# command and each shell look.
# Exit 0 pass, 1 fail, 77 skip (a shell that is not installed), with the reason printed.
set -u
mode=$1 src=$2 ctl=$3 daemon=${4:-} helper=${5:-}
world="$src/tests/worlds/rx6600"
failures=0

fail() { echo "FAIL: $*"; failures=$((failures + 1)); }
# The completion scripts ask `rocmtunectl` by name, as a user's shell does: this build's.
PATH="$(dirname "$ctl"):$PATH"
export PATH

# CLI11's help: the first word of each line of a section ("-h,--help" is two options).
section() { sed -n "/^$1:/,/^\$/p" | awk 'NR > 1 && NF { print $1 }'; }
options_of() { "$@" --help | section Options | tr ',' '\n' | grep -- '^-'; }

verbs=$(rocmtunectl --help | section Subcommands)
global_opts=$(options_of rocmtunectl)
[ -n "$verbs" ] && [ -n "$global_opts" ] || { echo "FAIL: no verbs or options in rocmtunectl --help"; exit 1; }
echo "verbs: $(echo $verbs)"

# `word` is one of the lines of `list`?
has() { printf '%s\n' "$2" | grep -qxF -- "$1"; }

check_bash() {
    # shellcheck source=/dev/null
    source "$src/completions/rocmtunectl.bash"
    complete_line() {  # the words of a command line, the last one being completed
        COMP_WORDS=("$@")
        COMP_CWORD=$((${#COMP_WORDS[@]} - 1))
        COMP_LINE="$*"
        COMP_POINT=${#COMP_LINE}
        COMPREPLY=()
        _rocmtunectl
        printf '%s\n' "${COMPREPLY[@]}"
    }
    local out verb opt
    out=$(complete_line rocmtunectl "")
    for verb in $verbs; do has "$verb" "$out" || fail "bash: 'rocmtunectl <TAB>' lacks verb $verb"; done
    out=$(complete_line rocmtunectl -)
    for opt in $global_opts; do has "$opt" "$out" || fail "bash: 'rocmtunectl -<TAB>' lacks $opt"; done
    for verb in $verbs; do
        out=$(complete_line rocmtunectl "$verb" -)
        for opt in $(options_of rocmtunectl "$verb"); do
            has "$opt" "$out" || fail "bash: 'rocmtunectl $verb -<TAB>' lacks $opt"
        done
    done
    out=$(complete_line rocmtunectl ap)
    [ "$out" = apply ] || fail "bash: 'rocmtunectl ap<TAB>' gave '$out', not apply"
    # Profile names as rocmtunectl lists them.
    local want
    want=$(rocmtunectl profiles --json | sed -n 's/^      "name": "\(rdna[^"]*\)",*$/\1/p' | sort)
    [ -n "$want" ] || fail "rocmtunectl profiles --json lists no rdna profile"
    out=$(complete_line rocmtunectl apply rdna | sort)
    [ "$out" = "$want" ] || fail "bash: 'rocmtunectl apply rdna<TAB>' gave '$out', want '$want'"
    has rdna1-safe "$out" || fail "bash: 'rocmtunectl apply rdna<TAB>' lacks rdna1-safe"
    out=$(complete_line rocmtunectl --root "$world" show rdna2)
    [ "$out" = rdna2-consumer-compat ] || fail "bash: 'show rdna2<TAB>' with --root gave '$out'"
    # Knob keys from `rocmtunectl keys`: set offers KEY= and no space, unset and explain the key.
    out=$(complete_line rocmtunectl set amdgpu.noret)
    [ "$out" = amdgpu.noretry= ] || fail "bash: 'set amdgpu.noret<TAB>' gave '$out'"
    out=$(complete_line rocmtunectl explain env.HSA_OVERRIDE_GFX)
    [ "$out" = env.HSA_OVERRIDE_GFX_VERSION ] || fail "bash: 'explain env.HSA_OVERRIDE_GFX<TAB>' gave '$out'"
    out=$(complete_line rocmtunectl unset sysfs.all.pp_power_profile)
    [ "$out" = sysfs.all.pp_power_profile_mode ] || fail "bash: 'unset sysfs.all.pp_power_profile<TAB>' gave '$out'"
    out=$(complete_line rocmtunectl set amdgpu.noretry = "")
    [ -z "$out" ] || fail "bash: a value after 'KEY=' completed to '$out'"
    # --with takes the profile's optional items.
    out=$(complete_line rocmtunectl apply strix-halo --with "")
    [ -n "$out" ] || fail "bash: 'apply strix-halo --with <TAB>' offered nothing"
    local id
    for id in $out; do
        rocmtunectl show strix-halo --json | grep -q "\"id\": \"$id\"" || fail "bash: --with offered '$id', not an item"
    done
    out=$(complete_line rocmtunectl --root "$world" reapply "")
    has card1 "$out" || fail "bash: 'reapply <TAB>' on rx6600 gave '$out', not card1"
    # `--root=DIR` reaches the function as `--root`, `=`, `DIR` (COMP_WORDBREAKS).
    out=$(complete_line rocmtunectl --root = "$world" reapply "")
    has card1 "$out" || fail "bash: 'reapply <TAB>' after --root=rx6600 gave '$out', not card1"
    out=$(complete_line rocmtunectl --root = "$world" sh)
    [ "$out" = show ] || fail "bash: 'sh<TAB>' after --root=DIR gave '$out', not show"
}

check_zsh() {
    command -v zsh >/dev/null || { echo "SKIP: zsh is not installed (scripts/install-deps.sh installs it)"; exit 77; }
    local file="$src/completions/_rocmtunectl" out verb opt
    zsh -n "$file" || fail "zsh -n $file"
    head -1 "$file" | grep -qx '#compdef rocmtunectl' || fail "zsh: $file does not start with #compdef rocmtunectl"
    # A real interactive zsh (zpty) with compinit over completions/, TAB pressed at the line's end.
    # One compinit dump for every call (a fresh compinit per call scans fpath each time: ~70 s).
    local dumps
    dumps=$(mktemp -d) || exit 1
    trap 'rm -rf "$dumps"' EXIT
    zsh_complete() {
        timeout 30 zsh -f "$src/tests/docs/zsh_capture.zsh" "$src/completions" "$1" "$dumps/zcompdump" | grep .
    }
    out=$(zsh_complete 'rocmtunectl ')
    for verb in $verbs; do has "$verb" "$out" || fail "zsh: 'rocmtunectl <TAB>' lacks verb $verb"; done
    out=$(zsh_complete 'rocmtunectl -')
    for opt in $global_opts; do has "$opt" "$out" || fail "zsh: 'rocmtunectl -<TAB>' lacks $opt"; done
    for verb in $verbs; do
        out=$(zsh_complete "rocmtunectl $verb -")
        for opt in $(options_of rocmtunectl "$verb"); do
            has "$opt" "$out" || fail "zsh: 'rocmtunectl $verb -<TAB>' lacks $opt"
        done
    done
    out=$(zsh_complete 'rocmtunectl ap')
    [ "$out" = apply ] || fail "zsh: 'rocmtunectl ap<TAB>' gave '$out', not apply"
    out=$(zsh_complete 'rocmtunectl apply rdna1')
    [ "$out" = rdna1-safe ] || fail "zsh: 'apply rdna1<TAB>' gave '$out'"
    out=$(zsh_complete "rocmtunectl --root $world show rdna2")
    [ "$out" = rdna2-consumer-compat ] || fail "zsh: 'show rdna2<TAB>' with --root gave '$out'"
    out=$(zsh_complete 'rocmtunectl set amdgpu.noret')
    [ "$out" = amdgpu.noretry ] || fail "zsh: 'set amdgpu.noret<TAB>' gave '$out'"
    out=$(zsh_complete 'rocmtunectl explain env.HSA_OVERRIDE_G')
    [ "$out" = env.HSA_OVERRIDE_GFX_VERSION ] || fail "zsh: 'explain env.HSA_OVERRIDE_G<TAB>' gave '$out'"
    out=$(zsh_complete 'rocmtunectl apply strix-halo --with ')
    has sh-amd-iommu-off "$out" || fail "zsh: 'apply strix-halo --with <TAB>' gave '$out'"
    out=$(zsh_complete "rocmtunectl --root $world reapply ")
    has card1 "$out" || fail "zsh: 'reapply <TAB>' on rx6600 gave '$out', not card1"
}

check_fish() {
    command -v fish >/dev/null || { echo "SKIP: fish is not installed (scripts/install-deps.sh installs it)"; exit 77; }
    local file="$src/completions/rocmtunectl.fish" out verb opt
    fish --no-execute "$file" || fail "fish --no-execute $file"
    fish_complete() { fish --no-config -c "source '$file'; complete -C '$1'" | cut -f1; }
    out=$(fish_complete 'rocmtunectl ')
    for verb in $verbs; do has "$verb" "$out" || fail "fish: 'rocmtunectl <TAB>' lacks verb $verb"; done
    out=$(fish_complete 'rocmtunectl -')
    for opt in $global_opts; do has "$opt" "$out" || fail "fish: 'rocmtunectl -<TAB>' lacks $opt"; done
    for verb in $verbs; do
        out=$(fish_complete "rocmtunectl $verb -")
        for opt in $(options_of rocmtunectl "$verb"); do
            has "$opt" "$out" || fail "fish: 'rocmtunectl $verb -<TAB>' lacks $opt"
        done
    done
    out=$(fish_complete 'rocmtunectl apply rdna1')
    has rdna1-safe "$out" || fail "fish: 'apply rdna1<TAB>' gave '$out'"
    out=$(fish_complete 'rocmtunectl set amdgpu.noret')
    has amdgpu.noretry= "$out" || fail "fish: 'set amdgpu.noret<TAB>' gave '$out'"
}

check_man() {
    local page="$src/man/rocmtunectl.1.scd" verb opt p
    for verb in $verbs; do
        grep -q "^\*$verb\*" "$page" || fail "rocmtunectl(1): verb $verb has no entry (*$verb* at a line start)"
    done
    for verb in "" $verbs; do
        for opt in $(options_of rocmtunectl $verb); do
            grep -qF -- "*$opt*" "$page" || fail "rocmtunectl(1): option $opt${verb:+ of $verb} is not described"
        done
    done
    if [ -n "$daemon" ]; then
        for opt in $(options_of "$daemon"); do
            grep -qF -- "*$opt*" "$src/man/rocmtuned.8.scd" || fail "rocmtuned(8): option $opt is not described"
        done
    fi
    if [ -n "$helper" ]; then
        for opt in $(options_of "$helper"); do
            grep -qF -- "*$opt*" "$src/man/rocmtune-helper.8.scd" ||
                fail "rocmtune-helper(8): option $opt is not described"
        done
        for verb in $("$helper" --help | section Subcommands); do
            grep -q "^\*$verb\*" "$src/man/rocmtune-helper.8.scd" || fail "rocmtune-helper(8): $verb has no entry"
            for opt in $(options_of "$helper" "$verb"); do
                grep -qF -- "*$opt*" "$src/man/rocmtune-helper.8.scd" || fail "rocmtune-helper(8): $verb $opt"
            done
        done
    fi
    local build=${ROCMTUNE_BUILD_DIR:-} out
    if [ -n "$build" ] && command -v scdoc >/dev/null && command -v man >/dev/null; then
        for p in rocmtunectl.1 rocmtuned.8 rocmtune-helper.8 rocmtune.profile.5 rocmtune-journal.7; do
            [ -s "$build/man/$p" ] || { fail "$p was not built into $build/man"; continue; }
            out=$(LC_ALL=C.UTF-8 MANWIDTH=80 man --warnings -l "$build/man/$p" 2>&1 >/dev/null)
            [ -z "$out" ] || fail "$p: man warns: $out"
        done
    else
        echo "note: built pages not checked (no ROCMTUNE_BUILD_DIR, scdoc or man)"
    fi
    for p in "$src"/man/*.scd; do
        # Pages of programs (sections 1 and 8) say how they exit; a section 5 or 7 page has no exit.
        case $p in
            *.[18].scd) grep -q '^# EXIT STATUS$' "$p" || fail "$(basename "$p"): no EXIT STATUS section" ;;
        esac
        grep -q '^# EXAMPLES$' "$p" || fail "$(basename "$p"): no EXAMPLES section"
        if command -v scdoc >/dev/null; then
            scdoc < "$p" > /dev/null || fail "scdoc refuses $(basename "$p")"
        fi
    done
}

# `rocmtunectl keys`, which the completions offer: sorted, unique, every kind of key, the same
# list under --json, and every key one `explain` takes.
check_keys() {
    local keys json_keys key kind status
    keys=$(rocmtunectl keys)
    [ "$keys" = "$(printf '%s\n' "$keys" | LC_ALL=C sort -u)" ] || fail "keys: not sorted and unique"
    for kind in amdgpu ttm cmdline sysfs env; do
        printf '%s\n' "$keys" | grep -q "^$kind\." || fail "keys: no $kind.* key"
    done
    json_keys=$(rocmtunectl keys --json | sed -n 's/^    "\([^"]*\)",*$/\1/p')
    [ "$json_keys" = "$keys" ] || fail "keys --json lists other keys than keys"
    rocmtunectl keys --json | grep -q '"schema": "rocmtune.keys.v1"' || fail "keys --json: no rocmtune.keys.v1 schema"
    for key in $keys; do
        rocmtunectl --root "$world" explain "$key" >/dev/null 2>&1
        status=$?
        [ $status = 0 ] || fail "keys: 'explain $key' exits $status"
    done
}

check_install() {
    local build=${ROCMTUNE_BUILD_DIR:?} prefix f
    if ! command -v scdoc >/dev/null; then
        echo "SKIP: scdoc is not installed, so no man page is built or installed"
        exit 77
    fi
    prefix=$(mktemp -d) || exit 1
    trap 'rm -rf "$prefix"' EXIT
    cmake --install "$build" --prefix "$prefix/usr" >/dev/null || fail "cmake --install failed"
    for f in share/man/man1/rocmtunectl.1 share/man/man8/rocmtuned.8 share/man/man8/rocmtune-helper.8 \
        share/man/man5/rocmtune.profile.5 share/man/man7/rocmtune-journal.7 \
        share/bash-completion/completions/rocmtunectl \
        share/zsh/vendor-completions/_rocmtunectl share/fish/vendor_completions.d/rocmtunectl.fish; do
        [ -s "$prefix/usr/$f" ] || fail "install: no /usr/$f"
    done
    for p in rocmtune.profile rocmtune-journal; do
        MANPATH="$prefix/usr/share/man" man -w "$p" >/dev/null 2>&1 || fail "install: man -w $p finds nothing"
    done
}

case $mode in
    install) check_install ;;
    keys) check_keys ;;
    bash) check_bash ;;
    zsh) check_zsh ;;
    fish) check_fish ;;
    man) check_man ;;
    *) echo "unknown mode $mode"; exit 2 ;;
esac
[ "$failures" = 0 ] && { echo "PASS: $mode"; exit 0; }
echo "$failures failure(s)"
exit 1
