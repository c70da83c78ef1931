"""Every DESIGN.md rule the miner applies, written once, apart from reading, joins and batching:
`relations` (§1.1–1.3: relation types, agreement, drop reasons, context measures, as array
operations over a file's words) and `pairs` (§4: which relations give pairs, the bad form, the
other member's ambiguity, capitalisation and elision)."""
