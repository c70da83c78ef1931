"""What the tasks decide with (DESIGN.md §1.5, §5, §5.1), as small functions over plain data:
every sum over tokens (sums.py), the scoring rules and their ingredients (rules.py), class-average
candidates and decisions (candidates.py, decide.py) and the items of each masked role (items.py).
The tasks (`evaluate.tasks`) build items and call these; back-ends never import them.
"""
