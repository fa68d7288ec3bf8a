"""The programs that maintain the course (tools/README.md lists them): the notebooks and utils/ never import them."""
