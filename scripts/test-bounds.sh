#!/usr/bin/env bash
# `make test-bounds`: the unit suite (no browser, no notebooks) in two scratch environments, at
# the lowest versions pyproject.toml's ranges allow for our direct dependencies and at the newest
# releases. The locked set is what CI tests; this says whether the ranges users install from
# are true. Prints each environment's key versions and the suite's closing line (the whole
# output in test-artifacts/bounds-*.log); exit 1 if any end fails.
set -uo pipefail
uv="$1"
python="$2"
cd "$(dirname "$0")/.."
unset OO_UV  # the Makefile's: these environments are not the locked one (tests/test_lock.py)
failed=0
for resolution in lowest-direct highest; do
  scratch="$(mktemp -d -t oo-bounds-XXXXXX)"
  echo "== $resolution ($scratch)"
  "$uv" venv -q --python "$python" "$scratch/venv"
  if ! "$uv" pip install -q --python "$scratch/venv/bin/python" --resolution "$resolution" -e '.[test,docs]'; then
    echo "== $resolution: could not install" >&2
    failed=1
    continue
  fi
  "$uv" pip list -q --python "$scratch/venv/bin/python" 2>/dev/null |
    grep -iE '^(anthropic|httpx2|lxml|nh3|pillow|pandas|numpy|ipython|ipywidgets|matplotlib|tqdm|pytest|nbval|hypothesis|jupyterlab) ' || true
  log="test-artifacts/bounds-$resolution.log"  # kept: the failures' tracebacks
  mkdir -p test-artifacts
  "$scratch/venv/bin/python" -m pytest -q -p no:cacheprovider tests --ignore=tests/browser -m "not locked" \
    >"$log" 2>&1
  status=$?
  grep -E '^(FAILED|ERROR) ' "$log" | head -n 40
  tail -n 1 "$log"
  [ "$status" = 0 ] || failed=1
  rm -rf "$scratch"
done
exit "$failed"
