"""What the tasks decide with (DESIGN.md §1.5, §5, §5.1), as small functions over plain data:
every sum over tokens (token_sums.py), the scoring rules and their ingredients (scoring_rules.py),
class-average candidates and decisions (candidates.py, class_decisions.py), token distances
(distance.py), the items of each masked role (items.py) and the frequency baseline over lexicon
counts (frequency.py). The tasks (`evaluate.tasks`) build items and call these; back-ends never
import them.
"""
