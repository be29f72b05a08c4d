# bash completion for rocmtunectl(1).
# Verbs and options are listed here (tests/docs/completion_test.sh checks them against
# `rocmtunectl --help`); profile names, profile item ids and knob keys are asked from rocmtunectl
# itself at completion time (`profiles --json`, `show PROFILE --json`, `keys`), on the tree a
# `--root DIR` earlier on the line names.

# Runs the rocmtunectl being completed (as typed, so a build tree's works too) with the --root of
# the line, and prints its stdout; errors and prompts are dropped.
_rocmtunectl_ask() {
    local prog=${COMP_WORDS[0]}
    local -a root=()
    [[ $prog == \~* ]] && prog=rocmtunectl
    local dir
    dir=$(_rocmtunectl_root_dir)
    [[ -n $dir ]] && root=(--root "$dir")
    "$prog" "${root[@]}" --no-ask-password "$@" 2>/dev/null </dev/null
}

# The --root DIR earlier on the line, if any. bash splits `--root=DIR` at '=' (COMP_WORDBREAKS)
# into `--root`, `=`, `DIR`.
_rocmtunectl_root_dir() {
    local i dir=""
    for ((i = 1; i < COMP_CWORD; i++)); do
        case ${COMP_WORDS[i]} in
            --root)
                [[ ${COMP_WORDS[i + 1]} == = ]] && ((i++))
                ((i + 1 < COMP_CWORD)) && dir=${COMP_WORDS[i + 1]}
                ;;
            --root=*) dir=${COMP_WORDS[i]#--root=} ;;
        esac
    done
    printf '%s' "$dir"
}

_rocmtunectl_profiles() {
    _rocmtunectl_ask profiles --json | sed -n 's/^      "name": "\([^"]*\)",\{0,1\}$/\1/p'
}

# The ids of a profile's optional items (what --with takes).
_rocmtunectl_optional_ids() {
    _rocmtunectl_ask show "$1" --json |
        awk -F'"' '/^      "id": /{id = $4} /^      "optional": true/{print id}'
}

_rocmtunectl_cards() {
    local root card
    root=$(_rocmtunectl_root_dir)
    for card in "${root:-}"/sys/class/drm/card*; do
        card=${card##*/}
        [[ $card =~ ^card[0-9]+$ ]] && printf '%s\n' "$card"
    done
}

_rocmtunectl() {
    local cur=${COMP_WORDS[COMP_CWORD]} prev=${COMP_WORDS[COMP_CWORD - 1]}
    local verbs="status doctor faults check-compute profiles show apply set unset revert reset reapply trial history verify export explain keys snapshot"
    local global_opts="--root --json --no-ask-password --help -h --version"
    local verb_opts="--json --help -h"
    local change_opts="--check --diff --force"
    local with_opts="--with"
    local verb="" verb_at=0 i word
    COMPREPLY=()

    for ((i = 1; i < COMP_CWORD; i++)); do
        word=${COMP_WORDS[i]}
        if [[ $word == --root ]]; then
            ((i++))
            [[ ${COMP_WORDS[i]} == = ]] && ((i++))
        elif [[ $word != -* ]]; then
            verb=$word verb_at=$i
            break
        fi
    done

    if [[ $prev == --root || ($prev == = && ${COMP_WORDS[COMP_CWORD - 2]} == --root) ]]; then
        compopt -o filenames 2>/dev/null
        COMPREPLY=($(compgen -d -- "$cur"))
        return
    fi

    if [[ -z $verb ]]; then
        if [[ $cur == -* ]]; then
            COMPREPLY=($(compgen -W "$global_opts" -- "$cur"))
        else
            COMPREPLY=($(compgen -W "$verbs" -- "$cur"))
        fi
        return
    fi

    case $verb in
        apply | set | unset | revert | reset | reapply) verb_opts="$verb_opts $change_opts" ;;
    esac
    case $verb in
        apply | show) verb_opts="$verb_opts $with_opts" ;;
    esac
    case $verb in
        snapshot) verb_opts="$verb_opts -o --output" ;;
        doctor) verb_opts="$verb_opts --log" ;;
        faults) verb_opts="$verb_opts --boot --since" ;;
        reset) verb_opts="$verb_opts --purge-plan" ;;
        set | unset) verb_opts="$verb_opts --admin-lines --trial --reboot" ;;
        apply) verb_opts="$verb_opts --trial --reboot" ;;
        trial) verb_opts="$verb_opts --boot --kernel-log" ;;
        check-compute) verb_opts="$verb_opts --workload --device --unit --user --conda --env-file" ;;
        export) verb_opts="$verb_opts --format --no-live --write" ;;
    esac
    if [[ $verb == export && $prev == --format ]]; then
        COMPREPLY=($(compgen -W "prometheus nfd json" -- "$cur"))
        return
    fi
    if [[ $verb == check-compute && $prev == --workload ]]; then
        COMPREPLY=($(compgen -W "conv gemm any" -- "$cur"))
        return
    fi
    if [[ $verb == check-compute && $prev == --device ]]; then
        COMPREPLY=($(compgen -W "$(_rocmtunectl_cards)" -- "$cur"))
        return
    fi
    if [[ $verb == doctor && $prev == --log ]]; then
        compopt -o filenames 2>/dev/null
        COMPREPLY=($(compgen -f -- "$cur"))
        return
    fi
    if [[ $verb == trial && $prev == --kernel-log ]]; then
        compopt -o filenames 2>/dev/null
        COMPREPLY=($(compgen -f -- "$cur"))
        return
    fi
    if [[ $verb == reset && $prev == --purge-plan ]]; then
        compopt -o filenames 2>/dev/null
        COMPREPLY=($(compgen -d -- "$cur"))
        return
    fi
    if [[ $verb == snapshot && ($prev == --output || $prev == -o) ]]; then
        compopt -o filenames 2>/dev/null
        COMPREPLY=($(compgen -f -- "$cur"))
        return
    fi

    if [[ $prev == --with ]]; then
        local profile=""
        for ((i = verb_at + 1; i < COMP_CWORD; i++)); do
            [[ ${COMP_WORDS[i]} != -* && ${COMP_WORDS[i - 1]} != --with ]] && profile=${COMP_WORDS[i]} && break
        done
        [[ -n $profile ]] && COMPREPLY=($(compgen -W "$(_rocmtunectl_optional_ids "$profile")" -- "$cur"))
        return
    fi

    if [[ $cur == -* ]]; then
        COMPREPLY=($(compgen -W "$verb_opts $global_opts" -- "$cur"))
        return
    fi

    case $verb in
        show | apply)
            COMPREPLY=($(compgen -W "$(_rocmtunectl_profiles)" -- "$cur"))
            ;;
        set)
            # bash splits KEY=VALUE at '=' (COMP_WORDBREAKS): a value has no completion.
            if [[ $cur != *=* && $prev != = ]]; then
                compopt -o nospace 2>/dev/null
                COMPREPLY=($(compgen -W "$(_rocmtunectl_ask keys)" -S = -- "$cur"))
            fi
            ;;
        unset | explain)
            COMPREPLY=($(compgen -W "$(_rocmtunectl_ask keys)" -- "$cur"))
            ;;
        revert)
            COMPREPLY=($(compgen -W "last" -- "$cur"))
            ;;
        trial)
            COMPREPLY=($(compgen -W "show cancel check commit recover" -- "$cur"))
            ;;
        reapply)
            COMPREPLY=($(compgen -W "$(_rocmtunectl_cards)" -- "$cur"))
            ;;
        snapshot)
            compopt -o filenames 2>/dev/null
            COMPREPLY=($(compgen -d -- "$cur"))
            ;;
    esac
}

complete -F _rocmtunectl rocmtunectl
