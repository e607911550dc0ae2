"""The instructor's term around the grade: deadlines and a late policy, adjustments, review decisions.

Each is a file in the batch folder (``policy.toml``, ``submitted_at.csv``, ``adjustments.csv``,
``reviews.csv``), read after grading and turned into steps of the class model
(grader/engine/classmodel.py), so a changed policy or a new decision re-renders the class without
regrading.  ``model.load_class`` is the one loader; ``model.render_class`` the one writer.
"""
