"""Every source of minimal pairs read into one pair table, in one place: a mined corpus's
`pairs.parquet` (`corpus.py`), and peers' files (`files.py`: BLiMP and CLAMS, MultiBLiMP,
gevalm, lm-eval task folders, any table with a good and a bad column). Each row holds
`sentence_good`, `sentence_bad`, the varied word's span where its source knows it (`start`,
`end_good`, `end_bad`) and the source's metadata; the pair reading (`readings/pair_scores.py`)
scores them all. SyntaxGym suites (`syntaxgym.py`, `formula.py`) are read here too: their items
are not pairs, and their own task scores them."""
