"""Running notebook 8's layer on real processes: furniture, not the lesson.

The lesson, the vocabulary-parallel layer itself, is :mod:`utils.vocab_parallel`. Here:

- ``launcher``           start ``P`` processes in one process group, on ``torch.multiprocessing``
- ``vocab_parallel_run`` the worker each process runs, the run notebook 8 shows, and PyTorch's RowwiseParallel beside it
- ``__main__``           ``python -m utils.distributed --nproc 3``, or under ``torchrun``
"""
