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
