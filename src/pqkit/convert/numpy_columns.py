"""The column a 1-D numpy array (or a list of numpy scalars) holds in its natural type.

No Python loop and, where the dtype already is the column's storage, no copy. The
dtype -> type table is in :mod:`pqkit.convert`; units numpy has and pqkit has not are
converted exactly or refused (``datetime64[h]`` -> timestamp[s]).
"""
import numpy as np

from pqkit import datatypes as T
from pqkit.columnar.column import BinaryColumn, PrimitiveColumn
from pqkit.convert.common import (
    MDN,
    NAT,
    PER_DAY,
    BadValue,
    combine_validity,
    first_index,
    offsets_of,
    utf8_ends,
    validity_of,
)
from pqkit.errors import SchemaError


def numpy_scalars_column(values):
    """The numpy path for a list of numpy scalars (and None)."""
    valid, validity = validity_of(values)
    present = np.array([v for v in values if v is not None])
    full = np.zeros(len(values), present.dtype)
    full[valid] = present
    return numpy_column(full, validity)


def numpy_column(arr, validity):
    """The column of a 1-D numpy array in its natural type."""
    if not arr.dtype.isnative:
        arr = arr.astype(arr.dtype.newbyteorder("="))
    arr = np.ascontiguousarray(arr)
    kind = arr.dtype.kind
    if kind == "b":
        return PrimitiveColumn(T.bool_(), arr, validity)
    if kind in "iu":
        return PrimitiveColumn(T.IntegerType(arr.dtype.itemsize * 8, kind == "i"), arr, validity)
    if kind == "f" and arr.dtype.itemsize in (2, 4, 8):
        return PrimitiveColumn(T.FloatingType(arr.dtype.itemsize * 8), arr, validity)
    if kind in "Mm":
        return _numpy_temporal(arr, validity)
    if kind in "US":
        return _numpy_strings(arr, validity)
    if arr.dtype == MDN.numpy_dtype:
        return PrimitiveColumn(MDN, arr, validity)
    raise SchemaError(f"numpy dtype {arr.dtype} has no pqkit column type")


# numpy units without a pqkit unit: the unit they convert to exactly (None: no type).
_DATETIME_UNITS = {"D": "D", "W": "D", "M": "D", "Y": "D", "h": "s", "m": "s", "generic": "s"}
_TIMEDELTA_UNITS = {"D": "s", "W": "s", "h": "s", "m": "s", "generic": "s"}


def _numpy_temporal(arr, validity):
    kind = arr.dtype.kind
    unit, count = np.datetime_data(arr.dtype)
    if unit in PER_DAY and unit != "D":
        target = unit
    else:
        target = (_DATETIME_UNITS if kind == "M" else _TIMEDELTA_UNITS).get(unit)
    if target is None:
        raise SchemaError(f"numpy {arr.dtype} has no pqkit type (units are s, ms, us, ns"
                          f"{' and days' if kind == 'M' else ''})")
    if target != unit or count != 1:
        converted = arr.astype(f"{kind}8[{target}]")
        lost = (converted.astype(arr.dtype) != arr) & ~np.isnat(arr)
        if lost.any():
            row = int(np.argmax(lost))
            raise BadValue(row, arr[row], None, f"does not convert exactly to {target} units")
        arr = converted
    ints = arr.view(np.int64)
    nat = ints == NAT
    validity = combine_validity(validity, ~nat if nat.any() else None)
    if target == "D":
        bad = ((ints < -2**31) | (ints >= 2**31)) & ~nat
        if bad.any():
            row = int(np.argmax(bad))
            raise BadValue(row, arr[row], T.date32(), "outside the date32 range")
        return PrimitiveColumn(T.date32(), ints.astype(np.int32), validity)
    typ = T.timestamp(target) if kind == "M" else T.duration(target)
    return PrimitiveColumn(typ, ints, validity)


def _numpy_strings(arr, validity):
    """Fixed-width numpy strings to offsets + data. numpy pads values with zero units and
    so cannot hold trailing NULs: a value ends after its last non-zero unit."""
    n = len(arr)
    if arr.dtype.kind == "S":
        width, units = arr.dtype.itemsize, arr.view(np.uint8)
    else:
        width, units = arr.dtype.itemsize // 4, arr.view(np.uint32)
    units = units.reshape(n, width)
    nonzero = units != 0
    lengths = np.where(nonzero.any(axis=1), width - np.argmax(nonzero[:, ::-1], axis=1), 0) \
        if width else np.zeros(n, np.int64)
    if validity is not None:
        lengths[~validity] = 0
    flat = units[np.arange(width) < lengths[:, None]]
    offsets = offsets_of(lengths)
    if arr.dtype.kind == "S":
        return BinaryColumn(T.binary(), offsets, flat, validity)
    if not flat.size or flat.max() < 0x80:
        return BinaryColumn(T.string(), offsets, flat.astype(np.uint8), validity)
    try:
        data = flat.tobytes().decode("utf-32-le").encode("utf-8")
    except UnicodeError:
        row = first_index(range(n), lambda i: lengths[i] and not _utf32_ok(units[i, :lengths[i]]))
        raise BadValue(row, arr[row], T.string(), "not valid Unicode (a surrogate or a code "
                       "point beyond U+10FFFF)") from None
    return BinaryColumn(T.string(), utf8_ends(flat)[offsets], data, validity)


def _utf32_ok(units):
    try:
        units.tobytes().decode("utf-32-le")
    except UnicodeError:
        return False
    return True
