"""What both the engine and a lesson stand on: reading student source exactly as the importer does
(``source``), the tamper scan (``tamper``), per-submission seeds (``seeds``), the suites' test kit
(``testkit``), and the typed problems and bilingual messages a check raises (``errors``, ``feedback``).
Nothing here names a lesson, a worker launch or a report."""
