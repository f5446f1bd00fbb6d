# Written by oo_nb. This file is a web page and a bash script at once: bash skipped the page
# (the `:` heredoc above) and runs only these lines, which hand the work to `python3 -m oo_nb`
# (the same program as `oo`). Options are passed on as separate, quoted words: nothing here
# evaluates text from the command line or from the document.
oo_usage() {
  printf 'Usage: bash %s [--force] [--model NAME] [--agent NAME] [--yes|--auto|--review]\n' "${0##*/}"
  printf '       bash %s --show | --set KEY VALUE | --add LIST VALUE | --remove LIST VALUE\n' "${0##*/}"
  printf '       bash %s --sync [css|js|shell|all] [--dry-run] [--migrate]\n' "${0##*/}"
  cat <<'OO_USAGE'

Update this living document: research what changed since its "as of" date and propose
a new version (runs `python3 -m oo_nb update FILE ...`). The proposal waits for your
review (`oo review FILE`) unless --yes writes it at once. While a proposal awaits
review, the document is not researched again (--force does).

  --force        update even though the document is still fresh
  --model NAME   model to use (default: the contract's, then oo_nb's default)
  --agent NAME   research backend (anthropic, claude-code, replay)
  --yes          write the update without review
  --auto         write it when it is clean (sources verified, no warning, within
                 budget, nothing removed), else keep it for review saying why;
                 `--set review auto` makes this the default (for cron)
  --review       review the update in the terminal, change by change
  --show         print the manifest and contract
  --set KEY VALUE, --add LIST VALUE, --remove LIST VALUE
                 edit the contract (see `oo contract --help`)
  --sync [css|js|shell|all] [--dry-run] [--migrate]
                 give every document in this folder this version's page code
  --help         show this help (Python is not needed for it)

Other options of `oo update` are passed on. Needs Python 3.11+ with oo_nb installed
(python3 -m pip install oo_nb); set OO_PYTHON to use another interpreter.
OO_USAGE
}
oo_value_next=0
for oo_arg in "$@"; do
  if [ "$oo_value_next" -gt 0 ]; then
    oo_value_next=$((oo_value_next - 1))
    continue
  fi
  case $oo_arg in
    -h|--help) oo_usage; exit 0 ;;
    --model|--agent|--budget|--base-url|--cassette) oo_value_next=1 ;;
    --set|--add|--remove) oo_value_next=2 ;;
  esac
done
oo_require_python
case ${1:-} in
  --show|--set|--add|--remove) exec "$oo_python" -P -m oo_nb contract "$0" "$@" ;;
  --sync)
    # as from the index (o-o accepts it on every page): the folder this page is in
    shift
    oo_collect_args drop-force "$@"
    exec "$oo_python" -P -m oo_nb sync "$(dirname -- "$0")" ${oo_args[@]+"${oo_args[@]}"}
    ;;
esac
oo_collect_args keep "$@"
exec "$oo_python" -P -m oo_nb update "$0" ${oo_args[@]+"${oo_args[@]}"}
