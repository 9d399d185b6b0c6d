"""Weighted least squares, the one fit behind vaced-calibrate's network,
memory and CPU fits and bench/lib/fit.py's targets.

Times span 1e-7 to 1e-1 s over the sizes measured, so a fit weighs each
point by 1/t^2 (every size counts by its relative error, not its absolute
one). Python 3 standard library only.
"""


def solve(a, b):
    """Gaussian elimination with partial pivoting; None if singular."""
    k = len(b)
    m = [list(a[i]) + [b[i]] for i in range(k)]
    for c in range(k):
        p = max(range(c, k), key=lambda i: abs(m[i][c]))
        if abs(m[p][c]) <= 1e-12 * max(1.0, max(abs(x) for row in m for x in row[:k])):
            return None
        m[c], m[p] = m[p], m[c]
        for i in range(k):
            if i != c:
                f = m[i][c] / m[c][c]
                m[i] = [x - f * y for x, y in zip(m[i], m[c])]
    return [m[i][k] / m[i][i] for i in range(k)]


def wls(xs, ts, weights=None):
    """Weighted least squares t = sum_j beta_j x_j, weights 1/t^2 unless
    given (a fit of t minus a known term keeps the whole t's weights).
    Returns beta and their standard errors (from the weighted residual
    variance; None with no degree of freedom left); (None, None) if
    singular. Columns are scaled to unit norm first: times are 1e-6,
    per-byte coefficients 1e6, which the normal equations would not
    survive unscaled."""
    k = len(xs[0])
    w = weights if weights is not None else [1.0 / (t * t) for t in ts]
    scale = [max(1e-300, sum(wi * x[j] ** 2 for wi, x in zip(w, xs)) ** 0.5) for j in range(k)]
    z = [[x[j] / scale[j] for j in range(k)] for x in xs]
    a = [[sum(wi * zi[i] * zi[j] for wi, zi in zip(w, z)) for j in range(k)] for i in range(k)]
    b = [sum(wi * zi[i] * t for wi, zi, t in zip(w, z, ts)) for i in range(k)]
    beta = solve(a, b)
    if beta is None:
        return None, None
    dof = len(ts) - k
    se = None
    if dof > 0:
        rss = sum(wi * (t - sum(bj * zj for bj, zj in zip(beta, zi))) ** 2
                  for wi, zi, t in zip(w, z, ts))
        inv = [solve(a, [1.0 if i == j else 0.0 for i in range(k)]) for j in range(k)]
        se = [(rss / dof * inv[j][j]) ** 0.5 / scale[j] for j in range(k)]
    return [bj / sj for bj, sj in zip(beta, scale)], se
