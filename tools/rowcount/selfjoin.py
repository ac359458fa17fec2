"""A range self-join's rows, counted on the base and grown to the target key by key.

`R r1 JOIN R r2 ON r1.k = r2.k AND r1.rk >= r2.rk`, with R's rows of each key numbered 1..n, emits
n(n+1)/2 rows per key (q51a writes q51's cumulative sums so). The sum is quadratic in the rows per
key, so it depends on how the rows spread over the keys, which the total alone does not tell:
- at the base it is counted exactly, as a histogram over the keys of (the rows of each source
  relation that make R's rows for that key, R's rows n for that key): `histogram_sql`;
- to the target, key by key (`grow`): the keys grow by the key's dimension's growth G (the same
  histogram, G times as many keys), and each key's source rows by its source's growth over G.
  R's rows per key are groups of those source rows (an item's sales days), so they follow the
  occupancy model of every grouping (tools/rowcount/occupancy.py): the key's own domain D solves
  n = D (1 - exp(-r/D)) for its r source rows at the base, and the target's n' = D (1 - exp(-r'/D)).
  A key whose rows are all distinct at the base (n = r) keeps n' = r'.
"""

from tools.rowcount.occupancy import occupancy_groups


def histogram_sql(rel, key, sources):
    """SELECT of the base histogram: rows (r_1, ..., r_m, n, keys), one per distinct combination, for
    relation `rel` keyed by the SQL `key` and its sources [(relation, SQL of the key there)]."""
    m = len(sources)
    parts = []
    for j, (src, k) in enumerate(sources):
        cols = ["count(*)" if i == j else "0" for i in range(m)] + ["0"]
        parts.append("SELECT %s AS k, %s FROM %s GROUP BY 1" % (k, ", ".join(cols), src))
    parts.append("SELECT %s AS k, %s, count(*) FROM %s GROUP BY 1" % (key, ", ".join(["0"] * m), rel))
    names = ["r%d" % i for i in range(m)] + ["n"]
    per_key = "SELECT k, %s FROM (%s) AS u(k, %s) GROUP BY k" % (
        ", ".join("sum(%s) AS %s" % (c, c) for c in names), " UNION ALL ".join(parts), ", ".join(names))
    return "SELECT %s, count(*) FROM (%s) WHERE n > 0 GROUP BY %s ORDER BY %s" % (
        ", ".join(names), per_key, ", ".join(names), ", ".join(names))


def pairs(n):
    """Rows of the range self-join of n rows on one key."""
    return n * (n + 1) / 2.0


def base_rows(hist):
    """The self-join's rows at the base: the histogram's sum of n(n+1)/2."""
    return sum(row[-1] * pairs(row[-2]) for row in hist)


def grow(hist, source_growth, key_growth):
    """The self-join's rows at the target from the base histogram (rows of `histogram_sql`), each
    source's rows growing by source_growth[j] (target / base) and the keys by key_growth (module
    docstring)."""
    total = 0.0
    for row in hist:
        rs, n, keys = row[:-2], row[-2], row[-1]
        r = float(sum(rs))
        r2 = sum(x * g for x, g in zip(rs, source_growth)) / key_growth
        n2, _ = occupancy_groups(r, n, r2, 1.0)   # the key's own domain does not grow
        total += keys * key_growth * pairs(n2)
    return total
