# zsh -f zsh_capture.zsh COMPLETION_DIR "command line" [DUMP_FILE]: prints what zsh's completion offers for the
# end of the line, one per line: an interactive zsh on a pty (zsh/zpty) with compadd wrapped to
# print its matches, TAB, then ^X to finish (after Valodim's zsh-capture-completion, MIT).
zmodload zsh/zpty || exit 2
zpty z zsh -f -i
# With a third argument, compinit keeps its dump there (made by the first call, read by the next).
if [[ -n $3 ]]; then
  zpty -w z "PROMPT= RPROMPT= ; fpath=(${(q)1} \$fpath); autoload -U compinit; compinit -u -d ${(q)3}"
else
  zpty -w z "PROMPT= RPROMPT= ; fpath=(${(q)1} \$fpath); autoload -U compinit; compinit -u -D"
fi
zpty -w z 'compadd () {
  if [[ ${@[1,(i)(-|--)]} == *-(O|A|D)\ * ]]; then builtin compadd "$@"; return $?; fi
  typeset -a __hits; builtin compadd -A __hits "$@"; local ret=$?
  (( $#__hits )) && print -rl -- "<hi""t>"${^__hits}
  builtin compadd "$@"
  return ret
}'
zpty -w z "zstyle ':completion:*' list-grouped false; zstyle ':completion:*' menu no"
zpty -w z 'finish () { print "<do""ne>"; exit }; zle -N finish; bindkey "^T" finish'
zpty -w z "$2"$'\t'
# The finish key goes after the completion's output has begun and again every second until the
# shell says it is done: typed ahead with the TAB, zle sometimes lost it while the list was drawn
# and the capture waited for the caller's timeout (30 s). ^T is no prefix of another binding.
zmodload zsh/zselect
local line cr=$'\r' nl=$'\n'
integer idle=0 sent=0
while true; do
  if zpty -rt z line; then
    [[ $line == *'<done>'* ]] && break
    line=${line%$nl}
    [[ $line == *'<hit>'* ]] && print -r -- "${${line##*<hit>}%$cr}"
    idle=0
  else
    zpty -t z || break  # the shell is gone
    zselect -t 5  # 50 ms
    if (( ++idle % 20 == 1 )); then zpty -w -n z $'\x14'; (( ++sent )); fi
  fi
done
zpty -d z
