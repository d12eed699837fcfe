#!/usr/bin/env bash
# The Python package (ppg-py): builds the extension into the test venv, then runs pytest
# (API, errors, equality with `ppg rerank`, doctests, the README's Python and Spark examples, the Spark job).
# needs-pip: maturin numpy pandas~=2.3 pyarrow pyspark pytest
# needs-apt: default-jdk-headless
# skip-var: PPG_SKIP_PYTHON
#
# Run from the repository root with bash. PPG_VENV names a venv holding the packages
# above (the test command makes it and puts its bin/ first on PATH); by hand:
#   python3 -m venv target/venv && target/venv/bin/pip install maturin numpy "pandas~=2.3" pyarrow pyspark pytest
#   PPG_VENV=$PWD/target/venv bash scripts/suites/python.sh
# pandas is held below 3 because pyspark warns about pandas 3.
set -euo pipefail

if [[ -n "${PPG_SKIP_PYTHON:-}" ]]; then
    echo "python suite: skipped (PPG_SKIP_PYTHON is set)"
    exit 0
fi
: "${PPG_VENV:?PPG_VENV must name a venv with the needs-pip packages (see the header of this file)}"
export VIRTUAL_ENV="$PPG_VENV"
export PATH="$PPG_VENV/bin:$PATH"
# Spark's Python workers must run the venv's interpreter, which has pandas and ppg.
export PYSPARK_PYTHON="$PPG_VENV/bin/python"
export PYSPARK_DRIVER_PYTHON="$PPG_VENV/bin/python"

# The CLI the equality tests compare with, and the extension, both from this checkout.
cargo build --release -p ppg-cli --quiet
export PPG_BIN="$PWD/target/release/ppg"
maturin develop --release --quiet -m ppg-py/Cargo.toml

# pytest exits 5 when it collects no test: with `set -e` that fails the suite too.
python -m pytest -q -p no:cacheprovider --doctest-modules ppg-py/python/ppg ppg-py/tests
