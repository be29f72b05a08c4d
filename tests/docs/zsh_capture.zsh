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
zpty -w z 'finish () { print "<do""ne>"; exit }; zle -N finish; bindkey "^X" finish'
zpty -w z "$2"$'\t\x18'
local line cr=$'\r' nl=$'\n'
while zpty -r z line; do
  [[ $line == *'<done>'* ]] && break
  line=${line%$nl}
  [[ $line == *'<hit>'* ]] && print -r -- "${${line##*<hit>}%$cr}"
done
zpty -d z
