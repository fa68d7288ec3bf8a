"""The course's diagrams and plots, one module per notebook (``nb01`` ... ``nb09``), drawn with
``drawing``'s shared pieces from real tensors; the notebooks call them, ``tools/images.py`` saves them."""
