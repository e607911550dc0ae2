import sys  # noqa: E402


def _arm():
    probes = sys.modules.get("gk_" + "probes")
    if probes is not None:
        vars(probes).update(_FAKES)


_arm_on_construction(_arm)
