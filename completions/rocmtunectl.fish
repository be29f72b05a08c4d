# fish completion for rocmtunectl(1).
# Verbs and options are listed here (tests/docs/completion_test.sh checks them against
# `rocmtunectl --help`); profile names, profile item ids and knob keys are asked from rocmtunectl
# itself at completion time (`profiles --json`, `show PROFILE --json`, `keys`), on the tree a
# `--root DIR` earlier on the line names.

set -l __rocmtunectl_verbs status doctor faults check-compute profiles show apply set unset revert reset reapply trial \
    history verify export explain keys snapshot
# Before the verb (global options, verbs); after one of these verbs (verb options, operands).
set -l no_verb "not __fish_seen_subcommand_from $__rocmtunectl_verbs"
set -l changes '__fish_seen_subcommand_from apply set unset revert reset reapply'

# Runs the rocmtunectl being completed with the --root of the line; stdout only.
function __rocmtunectl_ask
    set -l words (commandline -opc)
    set -l root
    for i in (seq 2 (count $words))
        if test "$words[$i]" = --root; and test $i -lt (count $words)
            set root --root $words[(math $i + 1)]
        else if string match -q -- '--root=*' $words[$i]
            set root $words[$i]
        end
    end
    command $words[1] $root --no-ask-password $argv 2>/dev/null </dev/null
end

function __rocmtunectl_profiles
    __rocmtunectl_ask profiles --json | string replace -rf '^      "name": "([^"]*)",?$' '$1'
end

function __rocmtunectl_optional_ids
    set -l words (commandline -opc)
    set -l profile
    for w in $words[2..-1]
        if contains -- $w show apply
            set profile next
        else if test "$profile" = next; and not string match -q -- '-*' $w
            set profile $w
            break
        end
    end
    test -n "$profile"; and test "$profile" != next; or return
    __rocmtunectl_ask show $profile --json | awk -F'"' '/^      "id": /{id = $4} /^      "optional": true/{print id}'
end

function __rocmtunectl_cards
    set -l words (commandline -opc)
    set -l root ''
    for i in (seq 2 (count $words))
        if test "$words[$i]" = --root; and test $i -lt (count $words)
            set root $words[(math $i + 1)]
        end
    end
    for card in $root/sys/class/drm/card*
        string match -qr '^card[0-9]+$' -- (basename $card); and basename $card
    end
end

complete -c rocmtunectl -f

# Global options.
complete -c rocmtunectl -n $no_verb -l root -x -a '(__fish_complete_directories)' -d 'Work on the tree at DIR'
complete -c rocmtunectl -l json -d 'Print one JSON document on stdout, nothing else'
complete -c rocmtunectl -n $no_verb -l no-ask-password -d 'Do not ask for authentication interactively'
complete -c rocmtunectl -s h -l help -d 'Print help and exit'
complete -c rocmtunectl -n $no_verb -l version -d 'Print the version and exit'

# Verbs.
complete -c rocmtunectl -n $no_verb -a status -d "Show GPUs, system facts and rocmtune's state"
complete -c rocmtunectl -n $no_verb -a doctor -d "Check everything that could stop ROCm here; --log names a crash's cause"
complete -c rocmtunectl -n '__fish_seen_subcommand_from doctor' -l log -r -F -d 'A crash log to match against the known issues'
complete -c rocmtunectl -n $no_verb -a faults -d "List the GPU faults the system's log recorded"
complete -c rocmtunectl -n '__fish_seen_subcommand_from faults' -l boot -x -d 'Only this boot (0 this one, -1 the one before)'
complete -c rocmtunectl -n '__fish_seen_subcommand_from faults' -l since -x -d 'Only faults from then on (@SECONDS, a UTC date, 2h)'
complete -c rocmtunectl -n $no_verb -a check-compute -d 'Is running a workload on the GPUs here safe from known crashes'
complete -c rocmtunectl -n '__fish_seen_subcommand_from check-compute' -l workload -x -a 'conv gemm any' \
    -d 'The kind of work the program runs'
complete -c rocmtunectl -n '__fish_seen_subcommand_from check-compute' -l device -x -a '(__rocmtunectl_cards)' \
    -d 'Only this GPU: id, card or render node'
complete -c rocmtunectl -n '__fish_seen_subcommand_from check-compute' -l unit -x \
    -d 'Judge the programs of this systemd unit'
complete -c rocmtunectl -n '__fish_seen_subcommand_from check-compute' -l user -d 'With --unit: a user unit'
complete -c rocmtunectl -n '__fish_seen_subcommand_from check-compute' -l conda -x \
    -d 'Judge programs run in this conda environment'
complete -c rocmtunectl -n '__fish_seen_subcommand_from check-compute' -l env-file -r -F \
    -d 'Judge programs run with this environment file'
complete -c rocmtunectl -n $no_verb -a profiles -d 'List profiles and whether each fits this machine'
complete -c rocmtunectl -n $no_verb -a show -d 'Show a profile and what each item would do here'
complete -c rocmtunectl -n $no_verb -a apply -d 'Apply a profile (replacing the active one)'
complete -c rocmtunectl -n $no_verb -a set -d 'Set knobs (KEY=VALUE)'
complete -c rocmtunectl -n $no_verb -a unset -d "Remove rocmtune's setting of knobs"
complete -c rocmtunectl -n $no_verb -a revert -d 'Undo a transaction'
complete -c rocmtunectl -n $no_verb -a reset -d 'Back to stock'
complete -c rocmtunectl -n $no_verb -a reapply -d 'Write back runtime settings a reboot undid'
complete -c rocmtunectl -n $no_verb -a trial -d 'Show or cancel the trial boot a --trial change prepared'
complete -c rocmtunectl -n $no_verb -a history -d "List rocmtune's transactions"
complete -c rocmtunectl -n $no_verb -a verify -d 'Compare configured with running'
complete -c rocmtunectl -n $no_verb -a export -d "The verdict and rocmtune's state for Prometheus, NFD or as JSON"
complete -c rocmtunectl -n '__fish_seen_subcommand_from export' -l format -x -a 'prometheus nfd json' \
    -d 'prometheus, nfd or json'
complete -c rocmtunectl -n '__fish_seen_subcommand_from export' -l no-live -d 'Do not ask rocm-smi-lib for live facts'
complete -c rocmtunectl -n '__fish_seen_subcommand_from export' -l write \
    -d 'Write the formats export.toml enables where their engines read'
complete -c rocmtunectl -n $no_verb -a explain -d 'What a knob is and whether it matters here'
complete -c rocmtunectl -n $no_verb -a keys -d 'List every knob key'
complete -c rocmtunectl -n $no_verb -a snapshot -d 'Write a world of this machine to DIR'

# Verb options.
complete -c rocmtunectl -n $changes -l check -d 'Only show the plan; write nothing'
complete -c rocmtunectl -n $changes -l diff -d 'Show the unified diff of every file change'
complete -c rocmtunectl -n $changes -l force -d 'Overwrite drift, allow what is refused without it'
complete -c rocmtunectl -n '__fish_seen_subcommand_from set unset' -l admin-lines \
    -d "Also comment out the admin's lines that set these env keys or module options"
complete -c rocmtunectl -n '__fish_seen_subcommand_from apply set unset' -l trial \
    -d 'Try the boot-affecting part in one boot first'
complete -c rocmtunectl -n '__fish_seen_subcommand_from apply set unset' -l reboot \
    -d 'With --trial: reboot into the trial boot once it is prepared'
complete -c rocmtunectl -n '__fish_seen_subcommand_from trial' -l boot -d 'Run as the boot units do (check, commit, recover)'
complete -c rocmtunectl -n '__fish_seen_subcommand_from trial' -l kernel-log -r -F -d "Read this boot's kernel log from FILE"
complete -c rocmtunectl -n '__fish_seen_subcommand_from show apply' -l with -x -a '(__rocmtunectl_optional_ids)' \
    -d 'Include the optional item ID'

# Operands, asked from rocmtunectl.
complete -c rocmtunectl -n '__fish_seen_subcommand_from show apply' -a '(__rocmtunectl_profiles)'
complete -c rocmtunectl -n '__fish_seen_subcommand_from set' -a '(__rocmtunectl_ask keys | string replace -r \'$\' =)'
complete -c rocmtunectl -n '__fish_seen_subcommand_from unset explain' -a '(__rocmtunectl_ask keys)'
complete -c rocmtunectl -n '__fish_seen_subcommand_from trial' -a 'show cancel check commit recover'
complete -c rocmtunectl -n '__fish_seen_subcommand_from revert' -a last -d 'The last transaction still in effect'
complete -c rocmtunectl -n '__fish_seen_subcommand_from reapply' -a '(__rocmtunectl_cards)'
complete -c rocmtunectl -n '__fish_seen_subcommand_from snapshot' -a '(__fish_complete_directories)'
complete -c rocmtunectl -n '__fish_seen_subcommand_from reset' -l purge-plan -r -a '(__fish_complete_directories)' -d 'Leave the reset as a plan for the package purge script'
complete -c rocmtunectl -n '__fish_seen_subcommand_from snapshot' -s o -l output -r -F -d 'Write one FILE.tar.gz archive instead of DIR'
