# Shared by oo_nb's document and index pages: find a Python that has oo_nb, or explain.
oo_find_python() {
  if [ -n "${OO_PYTHON:-}" ]; then
    if ! command -v -- "$OO_PYTHON" >/dev/null 2>&1; then
      printf '%s: OO_PYTHON=%s cannot be run.\n' "${0##*/}" "$OO_PYTHON" >&2
      return 1
    fi
    printf '%s\n' "$OO_PYTHON"
    return 0
  fi
  for oo_candidate in python3 python; do
    if command -v "$oo_candidate" >/dev/null 2>&1; then
      printf '%s\n' "$oo_candidate"
      return 0
    fi
  done
  printf '%s: Python 3 was not found. Install Python 3.11 or newer, then oo_nb:\n' "${0##*/}" >&2
  printf '    python3 -m pip install oo_nb\n' >&2
  return 1
}
oo_require_python() {
  oo_python=$(oo_find_python) || exit 127
  if ! "$oo_python" -c 'import oo_nb' >/dev/null 2>&1; then
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
