#!/usr/bin/env bash
# Set up everything, then run the linters and the whole test suite, in parallel on every core (pytest-xdist;
# loadgroup: tests spread one at a time, except those marked xdist_group, which share one worker). Arguments go
# to pytest, e.g. `bash scripts/test.sh -n 0` for a serial run, `--durations=15` for the slowest tests.
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/bootstrap.sh
.venv/bin/ruff check .
.venv/bin/python -m pytest -q -p no:cacheprovider -n auto --dist loadgroup "$@"
