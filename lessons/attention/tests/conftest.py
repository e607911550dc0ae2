"""The lesson's own tests run from a checkout too: the package is imported from lessons/attention."""

from __future__ import annotations

import sys
from pathlib import Path

LESSON_ROOT = Path(__file__).resolve().parent.parent
if str(LESSON_ROOT) not in sys.path:
    sys.path.insert(0, str(LESSON_ROOT))
