"""ud-agree miner: UD treebanks and UniMorph become agreement relations, sentences and a lexicon."""

__version__ = "0.1.0"
