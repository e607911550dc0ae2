"""``check()`` inside a Jupyter or Colab kernel (``from grader import check``): the cells run so far,
graded by `grade` in a subprocess and shown under the cell.  A front end, like ``grader.cli``: it
starts a grade and renders the results; nothing below imports it."""
