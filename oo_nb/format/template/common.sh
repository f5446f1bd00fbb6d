# Shared by oo_nb's document and index pages: find a Python that has oo_nb, or explain.
# Python runs with -P (and PYTHONSAFEPATH=1 for what it starts): the current folder never comes
# first on its import path, so a folder named oo_nb/ in a cloned library is never imported; and
# a command is looked up only in PATH's absolute folders, never in the current folder.
oo_which() {
  local oo_entry oo_dirs
  IFS=: read -r -a oo_dirs <<< "$PATH"
  for oo_entry in ${oo_dirs[@]+"${oo_dirs[@]}"}; do
    case $oo_entry in /*) ;; *) continue ;; esac
    if [ -f "$oo_entry/$1" ] && [ -x "$oo_entry/$1" ]; then
      printf '%s\n' "$oo_entry/$1"
      return 0
    fi
  done
  return 1
}
oo_find_python() {
  if [ -n "${OO_PYTHON:-}" ]; then
    case $OO_PYTHON in
      */*) oo_found=$OO_PYTHON; [ -f "$oo_found" ] && [ -x "$oo_found" ] || oo_found= ;;
      *) oo_found=$(oo_which "$OO_PYTHON") || oo_found= ;;
    esac
    if [ -z "$oo_found" ]; then
      printf '%s: OO_PYTHON=%s cannot be run.\n' "${0##*/}" "$OO_PYTHON" >&2
      return 1
    fi
    printf '%s\n' "$oo_found"
    return 0
  fi
  for oo_candidate in python3 python; do
    if oo_which "$oo_candidate"; then
      return 0
    fi
  done
  printf '%s: Python 3 was not found. Install Python 3.11 or newer, then oo_nb:\n' "${0##*/}" >&2
  printf '    python3 -m pip install oo_nb\n' >&2
  return 1
}
oo_require_python() {
  oo_python=$(oo_find_python) || exit 127
  export PYTHONSAFEPATH=1
  if ! "$oo_python" -P -c 'import oo_nb' >/dev/null 2>&1; then
    if ! "$oo_python" -P -c '' >/dev/null 2>&1; then
      printf '%s: %s is older than Python 3.11 (it has no -P). Install Python 3.11 or newer.\n' "${0##*/}" "$oo_python" >&2
      exit 127
    fi
    printf '%s: oo_nb is not installed for %s. Install it with:\n' "${0##*/}" "$oo_python" >&2
    printf '    %s -m pip install oo_nb\n' "$oo_python" >&2
    exit 127
  fi
}
# Collect the options to pass on into the array oo_args. The original called the Claude Code
# backend `--agent claude`; oo_nb names it claude-code. With "drop-force" first, --force is
# left out (it means nothing for `new` and `sync`, and must never be read as a title).
oo_collect_args() {
  local mode=$1 after_agent=0 arg
  shift
  oo_args=()
  for arg in "$@"; do
    if [ "$mode" = "drop-force" ] && [ "$arg" = "--force" ]; then
      continue
    fi
    if [ "$after_agent" = 1 ] && [ "$arg" = "claude" ]; then
      arg=claude-code
    fi
    if [ "$arg" = "--agent" ]; then after_agent=1; else after_agent=0; fi
    oo_args+=("$arg")
  done
}
