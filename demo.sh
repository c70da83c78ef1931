#!/usr/bin/env bash
# The demo on the embedded sample, offline: set up the project's own environment (.venv), mine
# (relations and minimal pairs), evaluate both readings (a masked and a causal model, and the
# frequency baseline), render the report into demo/report/index.html.
set -euo pipefail
cd "$(dirname "$0")"
# Everything installs into .venv/ beside this script, made here when absent: never into the
# Python that runs this script (as root that would be the system's, and another checkout's
# editable install would be re-pointed here).
if [ ! -x .venv/bin/python ]; then
  "${PYTHON:-python3}" -m venv .venv
fi
py=.venv/bin/python
"$py" -m pip install --quiet 'torch==2.13.0' -e '.[dev]'
"$py" -m mine --ud-dir data/sample/ud --unimorph-dir data/sample/unimorph --out demo/corpus --force
# Small French models really trained on UD text where the shared models lie beside the clone;
# otherwise a random-weight BERT built offline (the output then says so).
shared=../shared/models
bert=tiny-random
if [ -d "$shared/tiny-fr-ud-bert" ]; then bert=$shared/tiny-fr-ud-bert; fi
common=(--lang fr --corpus demo/corpus --out demo/results --min-candidates 3 --no-progress)
# The class-average reading (Bacon & Regier), a masked LM and the frequency baseline.
"$py" -m evaluate "${common[@]}" --model "$bert"
"$py" -m evaluate "${common[@]}" --model frequency
# The pair reading: minimal pairs built from the sample's sentences.
"$py" -m evaluate "${common[@]}" --model frequency --reading pair
if [ -d "$shared/tiny-fr-ud-gpt2" ]; then
  "$py" -m evaluate "${common[@]}" --model "$shared/tiny-fr-ud-gpt2" --reading pair
  "$py" -m evaluate "${common[@]}" --model "$shared/tiny-fr-ud-bert" --reading pair
fi
"$py" -m evaluate.report demo/results --out demo/report
echo "report: demo/report/index.html"
echo "tests: .venv/bin/python -m pytest -n 2 -q -rs   (quick subset: add -m 'not slow')"
