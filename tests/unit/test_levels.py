"""Dremel assembly and shredding: exact examples, errors, oracle and pyarrow cross-checks."""
import io

import numpy as np
import pyarrow as pa
import pyarrow.parquet as pq
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from tests.reference.levels_ref import read_pyarrow_levels, ref_assemble, ref_shred

from pqkit._native.levels import assemble_levels
from pqkit.errors import EncodingError, SchemaError
from pqkit.levels import (
    OPTIONAL,
    REPEATED,
    REQUIRED,
    NodeLayout,
    assemble,
    expand_offsets,
    expand_values,
    path_levels,
    shred,
)

T, F = True, False


def layout_tuples(nodes):
    """NodeLayouts as plain (length, validity list, offsets list) tuples."""
    return [(n.length,
             None if n.validity is None else n.validity.tolist(),
             None if n.offsets is None else n.offsets.tolist()) for n in nodes]


def make_nodes(kinds, spec):
    """NodeLayouts from (length, validity, offsets) tuples."""
    return [NodeLayout(k, length,
                       None if v is None else np.array(v, dtype=bool),
                       None if o is None else np.array(o, dtype=np.int64))
            for k, (length, v, o) in zip(kinds, spec)]


def check_both_ways(kinds, defs, reps, spec, value_mask, n=None):
    """assemble(levels) == spec and shred(spec) == levels, both also against the oracle."""
    asm = assemble(defs, reps, kinds, n)
    assert layout_tuples(asm.nodes) == spec
    mask = None if asm.value_mask is None else asm.value_mask.tolist()
    assert mask == value_mask
    records, values, ref_spec, ref_mask = ref_assemble(defs, reps, kinds, n)
    assert asm.num_records == records and asm.num_values == values
    assert [(length, v, o) for length, v, o in ref_spec] == spec
    if value_mask is not None:
        assert ref_mask == value_mask
    out = shred(make_nodes(kinds, spec))
    assert (None if out.def_levels is None else out.def_levels.tolist()) == defs
    assert (None if out.rep_levels is None else out.rep_levels.tolist()) == reps
    assert out.num_values == values
    ref_defs, ref_reps, _, _ = ref_shred(kinds, spec, records)
    if defs is not None:
        assert ref_defs == defs
    if reps is not None:
        assert ref_reps == reps


# ------------------------------------------------ the Dremel paper's example

DREMEL = {
    "DocId": ([REQUIRED], None, None, [(2, None, None)], None),
    "Links.Backward": ([OPTIONAL, REPEATED], [1, 2, 2], [0, 0, 1],
                       [(2, [T, T], None), (2, None, [0, 0, 2])], None),
    "Links.Forward": ([OPTIONAL, REPEATED], [2, 2, 2, 2], [0, 1, 1, 0],
                      [(2, [T, T], None), (4, None, [0, 3, 4])], None),
    "Name.Url": ([REPEATED, OPTIONAL], [2, 2, 1, 2], [0, 1, 1, 0],
                 [(4, None, [0, 3, 4]), (4, [T, T, F, T], None)], [T, T, F, T]),
    "Name.Language.Code": ([REPEATED, REPEATED, REQUIRED], [2, 2, 1, 2, 1], [0, 2, 1, 1, 0],
                           [(4, None, [0, 3, 4]), (3, None, [0, 2, 2, 3, 3]), (3, None, None)],
                           None),
    "Name.Language.Country": ([REPEATED, REPEATED, OPTIONAL], [3, 2, 1, 3, 1], [0, 2, 1, 1, 0],
                              [(4, None, [0, 3, 4]), (3, None, [0, 2, 2, 3, 3]),
                               (3, [T, F, T], None)], [T, F, T]),
}


@pytest.mark.parametrize("column", sorted(DREMEL))
def test_dremel_paper_example(column):
    kinds, defs, reps, spec, mask = DREMEL[column]
    check_both_ways(kinds, defs, reps, spec, mask, n=2 if defs is None else None)


def test_dremel_max_levels():
    assert path_levels([REPEATED, REPEATED, OPTIONAL]).max_def == 3
    info = path_levels([REPEATED, REPEATED, REQUIRED])
    assert (info.max_def, info.max_rep, info.def_levels, info.rep_levels) == (
        2, 2, (1, 2, 2), (1, 2, 2))
    assert "node2: required (def 2, rep 2)" in info.describe()


# ------------------------------------------------------- named edge cases

def test_empty_list_null_list_list_of_nulls():
    # [[1, None], None, [], [None]] as optional list of optional ints
    check_both_ways([OPTIONAL, REPEATED, OPTIONAL], [3, 2, 0, 1, 2], [0, 1, 0, 0, 0],
                    [(4, [T, F, T, T], None), (3, None, [0, 2, 2, 2, 3]), (3, [T, F, F], None)],
                    [T, F, F])


def test_list_of_lists_with_empties_at_each_depth():
    # [[[1], [], None, [None]], [], None]
    check_both_ways([OPTIONAL, REPEATED, OPTIONAL, REPEATED, OPTIONAL],
                    [5, 3, 2, 4, 1, 0], [0, 1, 1, 1, 0, 0],
                    [(3, [T, T, F], None), (4, None, [0, 4, 4, 4]), (4, [T, T, F, T], None),
                     (2, None, [0, 1, 1, 1, 2]), (2, [T, F], None)], [T, F])


def test_optional_struct_with_repeated_field():
    # [{a: [1]}, None, {a: None}, {a: []}, {a: [None]}]
    check_both_ways([OPTIONAL, OPTIONAL, REPEATED, OPTIONAL], [4, 0, 1, 2, 3], [0] * 5,
                    [(5, [T, F, T, T, T], None), (5, [T, F, F, T, T], None),
                     (2, None, [0, 1, 1, 1, 1, 2]), (2, [T, F], None)], [T, F])


def test_required_everything_has_no_levels():
    check_both_ways([REQUIRED, REQUIRED], None, None, [(3, None, None), (3, None, None)],
                    None, n=3)
    out = shred(make_nodes([REQUIRED], [(3, None, None)]))
    assert out.num_entries == 3 and out.value_mask is None


def test_map_with_required_key_and_optional_value():
    # [{a: 1, b: None}, None, {}]
    spec = [(3, [T, F, T], None), (2, None, [0, 2, 2, 2])]
    check_both_ways([OPTIONAL, REPEATED, REQUIRED], [2, 2, 0, 1], [0, 1, 0, 0],
                    spec + [(2, None, None)], None)
    check_both_ways([OPTIONAL, REPEATED, OPTIONAL], [3, 2, 0, 1], [0, 1, 0, 0],
                    spec + [(2, [T, F], None)], [T, F])


def test_required_leaf_under_null_struct_has_a_slot_but_no_value():
    check_both_ways([OPTIONAL, REQUIRED], [1, 0, 1], None,
                    [(3, [T, F, T], None), (3, None, None)], [T, F, T])


def test_bare_repeated_leaf():
    check_both_ways([REPEATED], [1, 1, 0, 1], [0, 1, 0, 0], [(3, None, [0, 2, 2, 3])], None)


def test_no_entries():
    check_both_ways([OPTIONAL, REPEATED, OPTIONAL], [], [],
                    [(0, [], None), (0, None, [0]), (0, [], None)], None)


def test_levels_of_other_integer_dtypes_are_accepted():
    asm = assemble(np.array([1, 0], np.uint8), None, [OPTIONAL])
    assert asm.nodes[0].validity.tolist() == [T, F] and asm.nodes[0].null_count == 1


# ---------------------------------------------------------------- errors

@pytest.mark.parametrize("kinds, defs, reps, message", [
    ([OPTIONAL], [0, 1, 2], None, "definition level 2 at level index 2 is outside 0..1"),
    ([OPTIONAL], [0, -1], None, "definition level -1 at level index 1"),
    ([REPEATED], [1, 1], [1, 0],
     "repetition level 1 at level index 0: the repetition level at the start of a record"),
    ([REPEATED], [1, 1], [0, 2], "repetition level 2 at level index 1 is outside 0..1"),
    ([REPEATED], [1, 1], [0, -3], "repetition level -3 at level index 1"),
    ([OPTIONAL, REPEATED, OPTIONAL], [3, 1], [0, 1],
     "repetition level 1 with definition level 1 at level index 1"),
    ([REPEATED, REPEATED, REQUIRED], [1, 2], [0, 2],
     "previous entry (definition level 1) left that list empty or null"),
    ([REPEATED, REPEATED, REQUIRED], [2, 0, 2], [0, 0, 2], "at level index 2 continues"),
])
def test_bad_levels(kinds, defs, reps, message):
    with pytest.raises(EncodingError, match=message.replace("(", r"\(").replace(")", r"\)")):
        assemble(defs, reps, kinds)
    with pytest.raises(ValueError):
        ref_assemble(defs, reps if reps is not None else [0] * len(defs), kinds)


def test_bad_level_arrays():
    with pytest.raises(EncodingError, match="2 repetition levels for 3 entries in column a.b"):
        assemble([1, 1, 1], [0, 0], [REPEATED], where="column a.b")
    with pytest.raises(EncodingError, match="level 40000 at level index 1 .* int16"):
        assemble(np.array([0, 40000], np.int32), None, [OPTIONAL])
    with pytest.raises(EncodingError, match="1-D integer"):
        assemble(np.array([0.5]), None, [OPTIONAL])
    with pytest.raises(SchemaError, match="no definition levels"):
        assemble(None, None, [OPTIONAL], 3)
    with pytest.raises(SchemaError, match="no repetition levels"):
        assemble([1], None, [REPEATED])
    with pytest.raises(SchemaError, match="repetition 3 of path node 1"):
        assemble([1], None, [OPTIONAL, 3])
    with pytest.raises(SchemaError, match="at least one node"):
        assemble(None, None, [], 0)
    with pytest.raises(EncodingError, match="definition level 1 at level index 0 is outside 0..0"):
        assemble([1], None, [REQUIRED])


@pytest.mark.parametrize("kinds, spec, message", [
    ([OPTIONAL, REPEATED], [(2, [T, T], None), (3, None, [0, 2, 1])], "offset 1 at index 2"),
    ([OPTIONAL, REPEATED], [(2, [T, T], None), (3, None, [0, 2, 4])], "offset 4 at index 2"),
    ([OPTIONAL, REPEATED], [(2, [T, T], None), (3, None, [-1, 2, 3])], "offset -1 at index 0"),
    ([OPTIONAL, REPEATED], [(2, [T, T], None), (3, None, [0, 3])], "2 entries for 2 parent"),
    ([OPTIONAL, REPEATED], [(2, [T, T], None), (3, None, None)], "has no offsets"),
    ([OPTIONAL], [(2, [T, T, T], None)], "3 entries for 2 slots"),
    ([OPTIONAL, REQUIRED], [(2, [T, T], None), (3, None, None)], "3 slots but its parent has 2"),
    ([REQUIRED, OPTIONAL], [(2, [T, F], None), (2, [T, F], None)], "required path node 0 has null"),
])
def test_bad_layouts(kinds, spec, message):
    with pytest.raises(SchemaError, match=message):
        shred(make_nodes(kinds, spec))


def test_shred_error_names_context():
    nodes = make_nodes([OPTIONAL], [(1, [T, F], None)])
    with pytest.raises(SchemaError, match="in column x, row group 3"):
        shred(nodes, where="column x, row group 3")


# ------------------------------------------------------ value expansion

@pytest.mark.parametrize("dtype, shape", [
    (np.int8, ()), (np.int16, ()), (np.int32, ()), (np.float64, ()), (np.bool_, ()),
    (np.uint8, (12,)), (np.uint8, (16,)), (np.uint8, (3,)), (np.int32, (5,))])
def test_expand_values_matches_numpy(dtype, shape):
    rng = np.random.default_rng(7)
    mask = rng.random(1000) < 0.6
    full = rng.integers(0, 100, size=(1000,) + shape).astype(dtype)
    expected = np.zeros_like(full)
    expected[mask] = full[mask]
    got = expand_values(full[mask], mask)
    assert got.dtype == full.dtype and np.array_equal(got, expected)


def test_expand_values_objects_and_passthrough():
    dense = np.array([b"a", b"bc"], dtype=object)
    assert expand_values(dense, np.array([F, T, T])).tolist() == [None, b"a", b"bc"]
    assert expand_values(dense, None) is dense
    assert expand_values(np.zeros(0, np.int64), np.zeros(0, bool)).shape == (0,)


def test_expand_values_count_mismatch():
    with pytest.raises(EncodingError, match="3 values decoded but the definition levels call for 2"):
        expand_values(np.arange(3), np.array([T, F, T]))
    with pytest.raises(EncodingError, match="1 values decoded .* call for 2"):
        expand_values(np.array([b"x"], dtype=object), np.array([T, T]))


def test_expand_offsets():
    got = expand_offsets(np.array([5, 7, 7, 10], np.int32), np.array([F, T, T, F, T, F]))
    assert got.tolist() == [5, 5, 7, 7, 7, 10, 10]
    with pytest.raises(EncodingError, match="2 values decoded .* call for 1"):
        expand_offsets(np.array([0, 1, 2]), np.array([T, F]))
    with pytest.raises(EncodingError, match="at least one entry"):
        expand_offsets(np.array([], np.int64), np.array([], bool))
    assert expand_offsets([0, 3], None).tolist() == [0, 3]


# --------------------------------------------------- hypothesis properties

PATHS = st.lists(st.sampled_from([REQUIRED, OPTIONAL, REPEATED]), min_size=1, max_size=5)


@st.composite
def valid_levels(draw):
    """A path and a level sequence that is valid for it."""
    kinds = draw(PATHS)
    info = path_levels(kinds)
    list_def = [0] + [d for k, d in zip(kinds, info.def_levels) if k == REPEATED]
    pairs = draw(st.lists(st.tuples(st.integers(0, info.max_def), st.integers(0, info.max_rep)),
                          max_size=40))
    defs, reps, prev = [], [], 0
    for k, (d, r) in enumerate(pairs):
        deepest = max(j for j in range(len(list_def)) if k and list_def[j] <= min(d, prev)) \
            if k else 0
        defs.append(d)
        reps.append(min(r, deepest))
        prev = d
    return (kinds, defs if info.max_def else None, reps if info.max_rep else None,
            len(pairs))


def same_assembly(asm, ref):
    records, values, spec, mask = ref
    assert (asm.num_records, asm.num_values) == (records, values)
    assert layout_tuples(asm.nodes) == spec
    got = [True] * asm.leaf.length if asm.value_mask is None else asm.value_mask.tolist()
    assert got == mask


@settings(max_examples=300, deadline=None)
@given(valid_levels())
def test_valid_levels_assemble_like_oracle_and_shred_back(case):
    kinds, defs, reps, n = case
    asm = assemble(defs, reps, kinds, n)
    same_assembly(asm, ref_assemble(defs, reps, kinds, n))
    out = shred(asm.nodes)
    assert out.num_entries == n and out.num_values == asm.num_values
    assert (None if defs is None else out.def_levels.tolist()) == defs
    assert (None if reps is None else out.rep_levels.tolist()) == reps


@settings(max_examples=300, deadline=None)
@given(PATHS.flatmap(lambda kinds: st.tuples(
    st.just(kinds),
    st.lists(st.tuples(st.integers(-1, sum(k != REQUIRED for k in kinds) + 1),
                       st.integers(-1, kinds.count(REPEATED) + 1)), max_size=12))))
def test_any_levels_rejected_exactly_when_oracle_rejects(case):
    kinds, pairs = case
    defs, reps = [d for d, _ in pairs], [r for _, r in pairs]
    try:
        ref = ref_assemble(defs, reps, kinds)
    except ValueError:
        with pytest.raises(EncodingError):
            assemble(defs, reps, kinds)
        return
    same_assembly(assemble(defs, reps, kinds), ref)


@st.composite
def layouts(draw, canonical):
    """A path, per-node (length, validity, offsets) and a record count.

    Non-canonical layouts have offsets that do not start at 0, unused child
    slots, non-empty lists under null parents, valid slots under null parents
    and validity None for OPTIONAL nodes without nulls.
    """
    kinds = draw(PATHS)
    parents = draw(st.integers(0, 6))
    num_records, nulled, spec = parents, [False] * parents, []
    for kind in kinds:
        if kind == REQUIRED:
            spec.append((parents, None, None))
        elif kind == OPTIONAL:
            v = draw(st.lists(st.booleans(), min_size=parents, max_size=parents))
            if canonical:
                v = [x and not z for x, z in zip(v, nulled)]
            nulled = [z or not x for x, z in zip(v, nulled)]
            spec.append((parents, None if all(v) and not canonical else v, None))
        else:
            sizes = draw(st.lists(st.integers(0, 3), min_size=parents, max_size=parents))
            if canonical:
                sizes = [0 if z else s for s, z in zip(sizes, nulled)]
            lead, tail = (0, 0) if canonical else (draw(st.integers(0, 2)), draw(st.integers(0, 2)))
            offsets, child_nulled = [lead], [True] * lead
            for s, z in zip(sizes, nulled):
                offsets.append(offsets[-1] + s)
                child_nulled += [z] * s
            parents = offsets[-1] + tail
            nulled = child_nulled + [True] * tail
            spec.append((parents, None, offsets))
    return kinds, spec, num_records


def same_shred(out, ref):
    defs, reps, mask, values = ref
    assert out.num_values == values and out.num_entries == len(defs)
    for got, want in ((out.def_levels, defs), (out.rep_levels, reps)):
        if got is None:     # the path has no such level: the oracle's are all 0
            assert set(want) <= {0}
        else:
            assert got.tolist() == want
    got = [True] * len(mask) if out.value_mask is None else out.value_mask.tolist()
    assert got == mask


@settings(max_examples=300, deadline=None)
@given(layouts(canonical=True))
def test_canonical_layouts_shred_like_oracle_and_assemble_back(case):
    kinds, spec, num_records = case
    out = shred(make_nodes(kinds, spec))
    same_shred(out, ref_shred(kinds, spec, num_records))
    asm = assemble(out.def_levels, out.rep_levels, kinds, out.num_entries)
    assert asm.num_records == num_records
    assert layout_tuples(asm.nodes) == spec


@settings(max_examples=300, deadline=None)
@given(layouts(canonical=False))
def test_non_canonical_layouts_shred_like_oracle(case):
    kinds, spec, num_records = case
    out = shred(make_nodes(kinds, spec))
    same_shred(out, ref_shred(kinds, spec, num_records))
    asm = assemble(out.def_levels, out.rep_levels, kinds, out.num_entries)
    assert asm.num_records == num_records


# ------------------------------------------------- pyarrow cross-checks

ARROW_TYPES = [
    pa.list_(pa.int64()),
    pa.list_(pa.list_(pa.int64())),
    pa.struct([("a", pa.list_(pa.int64()))]),
    pa.list_(pa.struct([("x", pa.int64()), ("y", pa.list_(pa.int64()))])),
    pa.map_(pa.int64(), pa.int64()),
    pa.list_(pa.field("element", pa.int64(), nullable=False)),
]


def py_values(t, nullable):
    """Python values of arrow type t, with nulls (when nullable) and empties at every level."""
    if pa.types.is_map(t):
        base = st.lists(st.tuples(st.integers(0, 5), py_values(t.item_type, t.item_field.nullable)),
                        max_size=3)
    elif pa.types.is_list(t):
        base = st.lists(py_values(t.value_type, t.value_field.nullable), max_size=3)
    elif pa.types.is_struct(t):
        base = st.fixed_dictionaries({f.name: py_values(f.type, f.nullable) for f in t})
    else:
        base = st.integers(-100, 100)
    return st.one_of(st.none(), base) if nullable else base


def arrow_leaves(arr, nullable):
    """(kinds, [(length, validity, offsets)]) per leaf column of an unsliced arrow array."""
    head = [(OPTIONAL if nullable else REQUIRED,
             (len(arr), arr.is_valid().to_pylist() if nullable else None, None))]
    t = arr.type
    if pa.types.is_list(t) or pa.types.is_map(t):
        offsets = arr.offsets.to_pylist()
        if pa.types.is_map(t):
            children = [(arr.keys, False), (arr.items, t.item_field.nullable)]
            length = len(arr.keys)
        else:
            children = [(arr.values, t.value_field.nullable)]
            length = len(arr.values)
        head.append((REPEATED, (length, None, offsets)))
    elif pa.types.is_struct(t):
        children = [(arr.field(i), f.nullable) for i, f in enumerate(t)]
    else:
        return [head]
    return [head + leaf for child, child_nullable in children
            for leaf in arrow_leaves(child, child_nullable)]


@pytest.mark.parametrize("typ", ARROW_TYPES, ids=str)
@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(data=st.data())
def test_pyarrow_levels_and_assembly_agree(typ, data):
    nullable = data.draw(st.booleans())
    values = data.draw(st.lists(py_values(typ, nullable), max_size=8))
    arr = pa.array(values, type=typ)
    table = pa.Table.from_arrays([arr], schema=pa.schema([pa.field("c", typ, nullable)]))
    sink = io.BytesIO()
    pq.write_table(table, sink, compression="none", use_dictionary=False,
                   data_page_version="1.0")
    raw = sink.getvalue()
    schema = pq.ParquetFile(io.BytesIO(raw)).schema
    back = pq.read_table(io.BytesIO(raw)).column(0).combine_chunks()
    leaves = arrow_leaves(arr, nullable)
    read_leaves = arrow_leaves(back, nullable)
    assert len(leaves) == len(read_leaves) == len(schema)
    for c, (leaf, read_leaf) in enumerate(zip(leaves, read_leaves)):
        kinds = [k for k, _ in leaf]
        spec = [s for _, s in leaf]
        info = path_levels(kinds)
        desc = schema.column(c)
        assert (info.max_def, info.max_rep) == (desc.max_definition_level,
                                                desc.max_repetition_level)
        out = shred(make_nodes(kinds, spec))
        same_shred(out, ref_shred(kinds, spec, len(arr)))
        file_defs, file_reps = read_pyarrow_levels(raw, c)
        assert (out.def_levels.tolist() if info.max_def else []) == file_defs
        assert (out.rep_levels.tolist() if info.max_rep else []) == file_reps
        asm = assemble(file_defs if info.max_def else None, file_reps if info.max_rep else None,
                       kinds, out.num_entries)
        assert asm.num_records == len(arr)
        assert layout_tuples(asm.nodes) == [s for _, s in read_leaf]


def random_canonical_layout(rng, kinds, num_records):
    """A canonical layout (nulls have no children) with numpy random sizes and nulls."""
    parents, nulled, spec = num_records, np.zeros(num_records, bool), []
    for kind in kinds:
        if kind == REQUIRED:
            spec.append((parents, None, None))
        elif kind == OPTIONAL:
            v = (rng.random(parents) < 0.85) & ~nulled
            nulled = ~v
            spec.append((parents, v.tolist(), None))
        else:
            sizes = np.where(nulled, 0, rng.integers(0, 5, parents))
            offsets = np.concatenate([[0], np.cumsum(sizes)])
            nulled = np.zeros(int(offsets[-1]), bool)
            parents = int(offsets[-1])
            spec.append((parents, None, offsets.tolist()))
    return spec


@pytest.mark.parametrize("kinds", [
    [OPTIONAL, REPEATED, OPTIONAL, REPEATED, OPTIONAL],
    [OPTIONAL, OPTIONAL, REPEATED, REQUIRED],
    [REPEATED, OPTIONAL, REQUIRED, OPTIONAL],
    [OPTIONAL, REQUIRED, OPTIONAL],
])
def test_large_random_layouts_match_oracle(kinds):
    # Big enough for the kernels' unchecked block loops (>= 64 slots per block).
    rng = np.random.default_rng(sum(kinds) * 31 + len(kinds))
    spec = random_canonical_layout(rng, kinds, 3000)
    out = shred(make_nodes(kinds, spec))
    same_shred(out, ref_shred(kinds, spec, 3000))
    asm = assemble(out.def_levels, out.rep_levels, kinds, out.num_entries)
    assert layout_tuples(asm.nodes) == spec
    same_assembly(asm, ref_assemble(out.def_levels.tolist(),
                                    None if out.rep_levels is None else out.rep_levels.tolist(),
                                    kinds))


def test_fault_message_names_context():
    with pytest.raises(EncodingError, match=r"level index 1 in column a\.b, row group 2"):
        assemble([1, 5], None, [OPTIONAL], where="column a.b, row group 2")
    with pytest.raises(EncodingError, match=r"repetition level 2 at level index 70 is outside 0\.\.1"):
        assemble([1] * 100, [0] * 70 + [2] * 30, [REPEATED])
    with pytest.raises(EncodingError, match="level index 99 continues repeated level 1"):
        assemble([1] * 99 + [2], [0] * 99 + [1], [OPTIONAL, REPEATED, REQUIRED])


def test_non_contiguous_levels():
    defs = np.array([3, 0, 2, 0, 1, 0, 3, 0], np.int16)[::2]
    reps = np.array([0, 9, 1, 9, 0, 9, 0, 9], np.int16)[::2]
    asm = assemble(defs, reps, [OPTIONAL, REPEATED, OPTIONAL])
    assert layout_tuples(asm.nodes) == [(3, [T, T, T], None), (3, None, [0, 2, 2, 3]),
                                        (3, [T, F, T], None)]


def test_required_nulls_under_a_null_ancestor_are_not_visible():
    # list<required int>: the second list is null, and the element its offsets still
    # cover is null too, as Arrow allows; the third list is empty.
    nodes = [NodeLayout(OPTIONAL, 3, np.array([True, False, True])),
             NodeLayout(REPEATED, 2, None, np.array([0, 1, 2, 2])),
             NodeLayout(REQUIRED, 2, np.array([True, False]))]
    out = shred(nodes)
    assert out.def_levels.tolist() == [2, 0, 1]
    assert out.rep_levels.tolist() == [0, 0, 0]


def test_a_visible_null_in_a_required_node_is_refused():
    nodes = [NodeLayout(OPTIONAL, 2, np.array([True, True])),
             NodeLayout(REQUIRED, 2, np.array([True, False]))]
    with pytest.raises(SchemaError, match="required path node 1 has null slots"):
        shred(nodes, where="column s.a")


# --- one list level: all nodes in one pass == node by node ------------------------------
@st.composite
def one_list_levels(draw):
    """(kinds, defs, reps) of valid entries for a [X, REPEATED, Y] path."""
    outer = draw(st.sampled_from([0, 1]))           # REQUIRED or OPTIONAL list
    elem = draw(st.sampled_from([0, 1]))            # REQUIRED or OPTIONAL element
    list_def = outer + 1
    max_def = list_def + elem
    defs, reps = [], []
    for _ in range(draw(st.integers(0, 40))):
        state = draw(st.sampled_from(["null", "empty", "items"] if outer else ["empty", "items"]))
        if state == "null":
            defs.append(0)
            reps.append(0)
        elif state == "empty":
            defs.append(list_def - 1)
            reps.append(0)
        else:
            for i in range(draw(st.integers(1, 6))):
                defs.append(draw(st.sampled_from([list_def, max_def])))
                reps.append(0 if i == 0 else 1)
    return (outer, 2, elem), np.array(defs, np.int16), np.array(reps, np.int16)


@settings(max_examples=300, deadline=None)
@given(case=one_list_levels())
def test_one_list_level_fused_equals_node_by_node(case):
    kinds, defs, reps = case
    fused = assemble_levels(defs, reps, len(defs), kinds, "", True)
    general = assemble_levels(defs, reps, len(defs), kinds, "", False)
    assert fused[:2] == general[:2]
    for (fs, fv, fo), (gs, gv, go) in zip(fused[2], general[2]):
        assert fs == gs
        assert (fv is None) == (gv is None) and (fo is None) == (go is None)
        if fv is not None:
            np.testing.assert_array_equal(fv, gv)
        if fo is not None:
            np.testing.assert_array_equal(fo, go)
    assert (fused[3] is None) == (general[3] is None)
    if fused[3] is not None:
        np.testing.assert_array_equal(fused[3], general[3])


@pytest.mark.parametrize("defs, reps, match", [
    ([3, 3], [1, 0], "start"), ([3, 1, 3], [0, 0, 1], "repetition level"),
    ([3, 4], [0, 1], "definition level"), ([3, 3], [0, 2], "repetition level")])
def test_one_list_level_faults_are_reported_before_filling(defs, reps, match):
    with pytest.raises(EncodingError, match=match):
        assemble_levels(np.array(defs, np.int16), np.array(reps, np.int16), len(defs),
                        (1, 2, 1), "", True)
