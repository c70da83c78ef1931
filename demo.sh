#!/usr/bin/env bash
# The demo on the embedded sample, offline: install, mine, evaluate (a model and the
# frequency baseline), render the report into demo/report/index.html.
set -euo pipefail
cd "$(dirname "$0")"
python -m pip install --quiet 'torch==2.13.0' -e '.[dev]'
python -m mine --ud-dir data/sample/ud --unimorph-dir data/sample/unimorph --out demo/corpus --force
# A small French BERT really trained on UD text where the shared models are beside the
# clone; otherwise a random-weight BERT built offline (the output then says so).
model=tiny-random
if [ -d ../shared/models/tiny-fr-ud-bert ]; then model=../shared/models/tiny-fr-ud-bert; fi
python -m evaluate --lang fr --corpus demo/corpus --model "$model" --out demo/results --min-candidates 3 --no-progress
python -m evaluate --lang fr --corpus demo/corpus --model frequency --out demo/results --min-candidates 3 --no-progress
python -m evaluate.report demo/results --out demo/report
echo "report: demo/report/index.html"
