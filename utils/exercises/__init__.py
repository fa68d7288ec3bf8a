"""The exercises' checkers, one module per notebook: ``nb01`` holds notebook 1's, and so on.

A notebook imports its own module under the name ``exercises``
(``from utils.exercises import nb01 as exercises``). A checker takes the learner's
answer and prints one line. If it is right: ``correct:`` and what it checked. If the answer cell is
still as the notebook gives it (a guess that is ``None``, a stub that raises ``NotImplementedError``):
that the exercise is not answered yet. If it is wrong, it raises
:class:`~utils.exercises.checking.ExerciseError` (an ``AssertionError``), which IPython shows as the one
line ``incorrect: <what is off, and a hint>``, without a traceback. The patterns they share (a function
passed, a tensor of a shape, a prediction recorded, the hint for the likeliest mistake) are in
:mod:`~utils.exercises.checking`. Each notebook's checkers are tested in ``tests/unit/exercises/``: the
worked answer passes, and each listed wrong answer fails with its hint.
"""
