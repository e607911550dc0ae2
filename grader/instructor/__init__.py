"""What only instructors need: batch, merge, release, Gradescope bundle, sealed hidden suite, exports.

The student release leaves this package out; the `grade` command says so when one of its commands is asked \
for.
"""
