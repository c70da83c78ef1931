"""ud-agree evaluator: masked-LM agreement accuracy over a mined corpus."""
