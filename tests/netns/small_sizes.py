"""The latency checks of test_calibrate.sh, shared by its two fits.

Each small size's measured time is its fastest round trip. In a guest
of a hypervisor a round trip is in a fast mode (ranks awake) or a slow
one (asleep, several times longer), and the fast mode can be rare:
whether a size reaches it, and how deep, varies size by size by more
than the model's times differ between the small sizes. So the latency
is judged against the median of the small sizes, not against each one,
and the others against the line one by one.
"""
import statistics


def small_consensus(per_size, small_max):
    """(median measured time of the sizes <= small_max, those sizes)"""
    small = [p for p in per_size if p["size"] <= small_max]
    return (statistics.median(p["measured_s"] for p in small) if small else float("nan")), small


def latency_verdict(per_size, small_max, what):
    """(ok, text): the model at each size <= small_max within 10% of
    their median measured time"""
    med, small = small_consensus(per_size, small_max)
    if len(small) < 2:
        return False, f"{what} reproduces the measured ping-pong at 0-{small_max} B: fewer than 2 sizes"
    worst = max(small, key=lambda p: abs(p["model_s"] / med - 1))
    e = worst["model_s"] / med - 1
    lo, hi = min(p["measured_s"] for p in small), max(p["measured_s"] for p in small)
    return abs(e) <= 0.10, (
        f"{what} reproduces the measured ping-pong at 0-{small_max} B within 10% of their median "
        f"{med * 1e6:.3f} us (worst {worst['size']} B: model {worst['model_s'] * 1e6:.3f} us, {e * 100:+.1f}%; "
        f"the sizes' fastest round trips {lo * 1e6:.3f}-{hi * 1e6:.3f} us)")


def fit_verdict(fit, small_max, what):
    """(ok, text): R^2 >= 0.99 and every size above small_max within 10%"""
    large = [p for p in fit["per_size"] if p["size"] > small_max]
    worst = max(large, key=lambda p: abs(p["rel_error"]), default={"size": 0, "rel_error": 1})
    return fit["r2"] >= 0.99 and abs(worst["rel_error"]) <= 0.10 and len(large) >= 2, (
        f"{what}: R^2 {fit['r2']:.5f} >= 0.99, every size above {small_max} B within 10% "
        f"(worst {worst['size']} B {worst['rel_error'] * 100:+.1f}%)")
