"""The programs that maintain the course; tools/README.md lists them. Learners never import these:
the notebooks import ``utils/`` only, and nothing in ``utils/`` imports ``tools/``."""
