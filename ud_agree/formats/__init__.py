"""Peers' layouts, each module with its reader and its writer side by side (DESIGN.md §7):
`blimp`, `multiblimp` and `clams` (read as suites, written from ud-agree's pairs), `gevalm` (read),
`lm_eval` and `hf` (folders written for lm-evaluation-harness and Hugging Face datasets);
`lines` and `problems` are the reading they share, `pairs_table` the pairs they write."""
