"""Exactly what is copied into the worker (as flat ``gk_*.py`` files) and runs beside student code.

Nothing here may import the rest of the grader: the worker sees only these files.
The grader process imports ``protocol`` from here too, so both sides share one wire format.
"""
