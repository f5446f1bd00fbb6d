# Written by oo_nb. This library index is a web page and a bash script at once: bash skipped
# the page (the `:` heredoc above) and runs only these lines, which map the options below onto
# `python3 -m oo_nb` (the same program as `oo`). Words are passed on quoted; nothing is eval'd.
oo_usage() {
  printf 'Usage: bash %s [COMMAND]\n' "${0##*/}"
  cat <<'OO_USAGE'

  (no command)                      rebuild this index from the documents beside it
  --new ["Title / scope"] [OPTIONS] create a document (asks for the details when no title
                                    is given), write its first version, rebuild the index;
                                    OPTIONS: --audience A --tone T --budget USD --every DAYS
                                    --sentinel "EVENT" --no-update --review --agent NAME
  --update-all [--force] [--yes|--auto]
                                    update every stale document (all with --force), then
                                    rebuild the index; --auto writes the clean updates; a
                                    document awaiting review is skipped; other `oo
                                    update-all` options pass on
  --sync [css|js|shell|all] [--dry-run] [--migrate]
                                    give every document this version's shared page code
  --show [DOC]                      print a document's manifest and contract (no DOC:
                                    the library's defaults for new documents)
  --set [DOC] KEY VALUE             edit a document's contract, or with no DOC the
                                    defaults for new documents (oo contract --help)
  --add [DOC] LIST VALUE
  --remove [DOC] LIST VALUE
  --help                            show this help (Python is not needed for it)

--force is accepted after --new and --sync too, and never taken for a title or a section.
Needs Python 3.11+ with oo_nb installed (python3 -m pip install oo_nb); set OO_PYTHON to use
another interpreter.
OO_USAGE
}
oo_dir=$(dirname -- "$0")
oo_value_next=0
for oo_arg in "$@"; do
  if [ "$oo_value_next" -gt 0 ]; then
    oo_value_next=$((oo_value_next - 1))
    continue
  fi
  case $oo_arg in
    -h|--help) oo_usage; exit 0 ;;
    --audience|--tone|--budget|--every|--sentinel|--agent|--model|--concurrency|--base-url|--cassette) oo_value_next=1 ;;
    --set|--add|--remove) oo_value_next=2 ;;
  esac
done
oo_command=${1:-}
if [ $# -gt 0 ]; then shift; fi
oo_rebuild_then_exit() {
  "$oo_python" -P -m oo_nb index "$oo_dir" >/dev/null || printf '%s: the index was not rebuilt\n' "${0##*/}" >&2
  exit "$1"
}
case $oo_command in
  "")
    oo_require_python
    exec "$oo_python" -P -m oo_nb index "$oo_dir"
    ;;
  --new)
    oo_require_python
    # a new document is always due for its first update: --force changes nothing here
    oo_collect_args drop-force "$@"
    if "$oo_python" -P -m oo_nb new --dir "$oo_dir" ${oo_args[@]+"${oo_args[@]}"}; then oo_status=0; else oo_status=$?; fi
    oo_rebuild_then_exit "$oo_status"
    ;;
  --update-all)
    oo_require_python
    oo_collect_args keep "$@"
    if "$oo_python" -P -m oo_nb update-all "$oo_dir" ${oo_args[@]+"${oo_args[@]}"}; then oo_status=0; else oo_status=$?; fi
    oo_rebuild_then_exit "$oo_status"
    ;;
  --sync)
    oo_require_python
    # sync rewrites every page whose shared code differs: --force has nothing to add
    oo_collect_args drop-force "$@"
    exec "$oo_python" -P -m oo_nb sync "$oo_dir" ${oo_args[@]+"${oo_args[@]}"}
    ;;
  --show|--set|--add|--remove)
    oo_require_python
    oo_target=$0
    case ${1:-} in
      *.o-o.html)
        if [ "$oo_command" = "--show" ] || [ $# -ge 3 ]; then
          oo_target=$1
          shift
          if [ ! -e "$oo_target" ] && [ -e "$oo_dir/$oo_target" ]; then oo_target=$oo_dir/$oo_target; fi
        fi
        ;;
    esac
    exec "$oo_python" -P -m oo_nb contract "$oo_target" "$oo_command" "$@"
    ;;
  *)
    printf '%s: unknown command %s (try --help)\n' "${0##*/}" "$oo_command" >&2
    exit 2
    ;;
esac
