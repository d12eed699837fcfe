#!/usr/bin/env bash
# The Python package (ppg-py): installs the release wheel (scripts/dist's, the one users
# get) into the test venv, then runs pytest (API, errors, equality with `ppg rerank`,
# doctests, the README's Python and Spark examples, the Spark job, whose workers run the
# same venv, the PyTerrier stage and measures through pt.Experiment), docs/python.md's
# local Spark recipe, and hostile inputs each in a subprocess
# of its own (test_hostile.py, about 20 s).
# needs-pip: numpy pandas~=2.3 pyarrow pyspark pytest polars pyterrier
# needs-apt: default-jdk-headless
# skip-var: PPG_SKIP_PYTHON
#
# Run from the repository root with bash. PPG_VENV names a venv holding the packages
# above (the test command makes it and puts its bin/ first on PATH); by hand:
#   python3 -m venv target/venv && target/venv/bin/pip install numpy "pandas~=2.3" pyarrow pyspark pytest polars pyterrier
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

# The CLI the equality tests compare with, and the wheel, both from this checkout. The
# wheel part is incremental: after scripts/dist (the consumers suite runs it first) it
# only zips the wheel again (3 s), and it never tests a wheel older than the sources.
cargo build --release -p ppg-cli --quiet
export PPG_BIN="$PWD/target/release/ppg"
scripts/dist wheel >/dev/null
version=$(sed -n '/^\[workspace.package\]/,/^\[/s/^version = "\(.*\)"/\1/p' Cargo.toml)
python -m pip install --quiet --disable-pip-version-check --force-reinstall --no-deps \
    dist/ppg-"$version"-cp39-abi3-manylinux*_x86_64.whl

# The doctests run on the installed copy, as the tests do: ppg-py/python holds no
# extension module. pytest exits 5 when it collects no test: with `set -e` that fails
# the suite too.
installed=$(python -c 'import os, ppg; print(os.path.dirname(ppg.__file__))')
python -m pytest -q -p no:cacheprovider --doctest-modules "$installed" ppg-py/tests
