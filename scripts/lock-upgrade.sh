#!/usr/bin/env bash
# `make lock-upgrade`: every locked version moved to the newest release the ranges in
# pyproject.toml allow, Binder's requirements written again, the whole suite run, and the result
# committed as one commit naming what moved. Nothing is committed when the suite fails: the
# moved lock stays in the work tree for a look (`git checkout uv.lock binder/` undoes it).
set -euo pipefail
uv="$1"
cd "$(dirname "$0")/.."
if ! git diff --quiet -- uv.lock binder/requirements.txt pyproject.toml; then
  echo "lock-upgrade: uv.lock, binder/requirements.txt or pyproject.toml has uncommitted changes; commit or undo them first" >&2
  exit 2
fi
moved="$("$uv" lock --upgrade 2>&1 | tee /dev/stderr | grep -E '^(Updated|Added|Removed) ' || true)"
if [ -z "$moved" ]; then
  echo "lock-upgrade: every locked version is already the newest allowed"
  exit 0
fi
make binder-requirements
make test
git add uv.lock binder/requirements.txt
git commit -q -F - <<MSG
lock: move locked versions to the newest releases (make lock-upgrade, suite green)

$moved
MSG
git log -1 --stat
