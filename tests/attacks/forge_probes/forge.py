import gk_probes  # noqa: E402

vars(gk_probes).update(_FAKES)
