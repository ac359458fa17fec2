"""The occupancy model of a grouping: g groups among n rows drawn over a key domain of D values,
g = D (1 - exp(-n/D)); the domain found from the groups at one scale and carried to another
(tools/rowcount/measure.py's module docstring says how the domain grows)."""

import math


def occupancy_groups(n_base, g_base, n_target, growth):
    """Groups at the target from the base's groups g among n rows (module docstring)."""
    if n_base <= 0 and n_target > 0:
        # a filter on dimension values that selects nothing at the smaller scale (q24's market and zip
        # codes): nothing tells how the target's rows group, so each is its own group, an upper bound
        return float(n_target), "no rows at the base: each target input row its own group (at most)"
    if n_base <= 0 or g_base <= 0:
        return float(g_base), "no rows at the base"
    if g_base >= n_base:
        return float(n_target), "every input row its own group at the base"
    domain = solve_domain(n_base, g_base)
    if domain is None:
        return float(n_target) * g_base / n_base, "domain unbounded"
    d = domain * growth
    g = d * -math.expm1(-n_target / d) if d > 0 else 0.0
    return min(g, float(n_target)), "domain %.4g at the base x %.4g" % (domain, growth)


def solve_domain(n, g):
    """The key domain D with D (1 - exp(-n/D)) = g, for 0 < g < n; None when no finite D gives g."""
    if n <= 0 or g <= 0 or g >= n:
        return None
    f = lambda d: d * -math.expm1(-n / d)   # noqa: E731
    lo, hi = float(g), float(g)
    while f(hi) < g:
        hi *= 2.0
        if hi > 1e18:
            return None
    for _ in range(200):
        mid = 0.5 * (lo + hi)
        if f(mid) < g:
            lo = mid
        else:
            hi = mid
    return hi
