"""Slow pure-Python oracle for pqkit._native.dictenc.dictionary_encode.

Values are byte strings; the dictionary keeps them in first-seen order and
stops before the first new value whose entry (its bytes plus ``overhead``)
would take the dictionary past ``limit`` bytes.
"""


def dictionary_encode_ref(values, limit, overhead=0):
    """(indices, first positions, number of values encoded) for a list of bytes."""
    seen, indices, first, used = {}, [], [], 0
    for i, v in enumerate(values):
        e = seen.get(v)
        if e is None:
            if used + len(v) + overhead > limit:
                return indices, first, i
            e = seen[v] = len(first)
            first.append(i)
            used += len(v) + overhead
        indices.append(e)
    return indices, first, len(values)
