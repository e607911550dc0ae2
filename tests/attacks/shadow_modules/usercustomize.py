# ruff: noqa
import os
os._exit(0)
