"""The exercises' checkers, one module per notebook: ``nb01`` holds notebook 1's, and so on.

A notebook imports its own module under the name ``exercises``
(``from utils.exercises import nb01 as exercises``). A checker takes the learner's
answer. If it is right, it prints ``correct:`` and what it checked, and returns ``True``;
if it is wrong, it raises :class:`~utils.exercises.checking.ExerciseError` (an
``AssertionError``) whose message says what is off and gives a hint. The patterns they share
(a function passed, a tensor of a shape, a prediction recorded, the hint for the likeliest
mistake) are in :mod:`~utils.exercises.checking`. Each notebook's checkers are tested in
``tests/unit/exercises/``: the worked answer passes, and each listed wrong answer fails with its hint.
"""
