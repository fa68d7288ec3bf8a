"""The exercises' checkers, one module per notebook: ``nb01`` holds notebook 1's, and so on.

A notebook imports its own module under the name ``exercises``
(``from utils.exercises import nb01 as exercises``). A checker takes the learner's
answer. If it is right, it prints ``correct:`` and what it checked, and returns ``True``;
if it is wrong, it raises :class:`~utils.exercises.checking.ExerciseError` (an
``AssertionError``) whose message says what is off and gives a hint. Each checker is
unit-tested against a right and a wrong answer (``tests/unit/exercises/``).
"""
