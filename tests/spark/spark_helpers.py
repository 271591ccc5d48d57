"""Row comparison and session helpers for the Spark tests."""
import contextlib


def _plain(value):
    """Nested Python values with maps in key order, so that text compares them."""
    if isinstance(value, dict):
        return sorted(((repr(k), _plain(v)) for k, v in value.items()), key=lambda kv: kv[0])
    if isinstance(value, (list, tuple)):
        return [_plain(v) for v in value]
    return value


def canonical_values(rows):
    """A list of row dicts as sorted text: compares whatever the order, NaN equals NaN."""
    return sorted(repr(_plain(r)) for r in rows)


def canonical_rows(rows):
    """Collected Spark rows as sorted text (see canonical_values)."""
    return canonical_values(r.asDict(recursive=True) for r in rows)


def same_rows(left, right):
    """True when two DataFrames hold the same multiset of rows (columns by name)."""
    cols = [f"`{c}`" for c in left.columns]
    return canonical_rows(left.select(*cols).collect()) == \
        canonical_rows(right.select(*cols).collect())


@contextlib.contextmanager
def spark_conf(spark, conf):
    """Session settings ``conf`` for the ``with`` body; the previous values after."""
    before = {k: spark.conf.get(k, None) for k in conf}
    for k, v in conf.items():
        spark.conf.set(k, v)
    try:
        yield
    finally:
        for k, v in before.items():
            if v is None:
                spark.conf.unset(k)
            else:
                spark.conf.set(k, v)
