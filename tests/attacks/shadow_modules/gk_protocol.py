# ruff: noqa
def decode(*a, **k):
    return 'forged'
