#!/usr/bin/env bash
# needs-apt: clang libclang-rt-14-dev
# skip-var: PPG_SKIP_FUZZ
#
# The fuzz smoke run: every target of scripts/fuzz for 60 s (PPG_FUZZ_SECONDS to change
# it). Exits non-zero on any finding; scripts/fuzz prints each target's executions and
# coverage, and where the crash file and the replay command are.
set -euo pipefail
if [[ ${PPG_SKIP_FUZZ:-} == 1 ]]; then
    echo "fuzz: skipped (PPG_SKIP_FUZZ=1)"
    exit 0
fi
cd "$(dirname "$0")/../.."
exec scripts/fuzz all "${PPG_FUZZ_SECONDS:-60}"
