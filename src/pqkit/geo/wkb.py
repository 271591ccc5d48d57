"""Well-known binary geometries: each value's type code and the box of its coordinates.

A WKB geometry is a byte order byte (0 big-endian, 1 little-endian), a uint32
type, then its body::

    1 Point               one coordinate
    2 LineString          uint32 n, n coordinates
    3 Polygon             uint32 rings, each: uint32 n, n coordinates
    4..7 Multi*, GeometryCollection
                          uint32 n, n nested WKB geometries

The type is ISO's (1000 = Z, 2000 = M, 3000 = ZM, added to the base type), or
EWKB's flags (0x80000000 Z, 0x40000000 M, 0x20000000 a uint32 SRID follows),
read as the ISO code Parquet's statistics use. A coordinate is 2, 3 or 4
doubles. :class:`GeoBounds` collects what a column chunk's
``GeospatialStatistics`` hold: the box (NaN coordinates are skipped, as the spec
says; a box needs X and Y) and the set of type codes. Every count is checked
against the bytes left before anything is read, so hostile values fail with
:class:`pqkit.GeometryError` naming the byte.
"""
import struct

import numpy as np

from pqkit import format as fmt
from pqkit.errors import GeometryError
from pqkit.geo.geodesic import SphericalBox

__all__ = ["GeoBounds", "MAX_NESTING", "envelope", "geometry_type", "xy_points"]

MAX_NESTING = 64
_EWKB_Z, _EWKB_M, _EWKB_SRID = 0x80000000, 0x40000000, 0x20000000


class _Reader:
    __slots__ = ("buf", "end", "boxes")

    def __init__(self, buf):
        self.buf = buf
        self.end = len(buf)
        self.boxes = []             # (has_z, has_m, coordinates array, is a ring)

    def need(self, pos, n, what):
        if n < 0 or pos + n > self.end:
            raise GeometryError(f"WKB {what} at byte {pos} needs {n} bytes, only "
                                f"{max(0, self.end - pos)} remain")

    def uint32(self, pos, order, what):
        self.need(pos, 4, what)
        return struct.unpack_from(order + "I", self.buf, pos)[0]

    def geometry(self, pos, depth):
        """Read the geometry at ``pos``; returns (ISO type code, end position)."""
        if depth > MAX_NESTING:
            raise GeometryError(f"WKB at byte {pos} nests geometries deeper than "
                                f"{MAX_NESTING} levels")
        self.need(pos, 5, "header")
        flag = self.buf[pos]
        if flag not in (0, 1):
            raise GeometryError(f"WKB byte order {flag} at byte {pos} is neither 0 nor 1")
        order = "<" if flag else ">"
        raw = self.uint32(pos + 1, order, "type")
        pos += 5
        base, has_z, has_m = _decode_type(raw, pos - 4)
        if raw & _EWKB_SRID:
            self.need(pos, 4, "SRID")
            pos += 4
        code = base + 1000 * (has_z + 2 * has_m)
        ndim = 2 + has_z + has_m
        if base == 1:
            return code, self.coordinates(pos, 1, ndim, order, has_z, has_m, False)
        if base == 2:
            n = self.uint32(pos, order, "point count")
            return code, self.coordinates(pos + 4, n, ndim, order, has_z, has_m, False)
        count = self.uint32(pos, order, "ring count" if base == 3 else "part count")
        pos += 4
        self.need(pos, count * (4 if base == 3 else 5), "parts")
        for _ in range(count):
            if base == 3:
                n = self.uint32(pos, order, "point count")
                pos = self.coordinates(pos + 4, n, ndim, order, has_z, has_m, True)
            else:
                _, pos = self.geometry(pos, depth + 1)
        return code, pos

    def coordinates(self, pos, n, ndim, order, has_z, has_m, ring):
        size = n * ndim * 8
        self.need(pos, size, f"{n} coordinates")
        if n:
            values = np.frombuffer(self.buf, dtype=order + "f8", count=n * ndim, offset=pos)
            self.boxes.append((has_z, has_m, values.reshape(n, ndim), ring))
        return pos + size


def _decode_type(raw, at):
    """(base type 1..7, has Z, has M) of a WKB type number, ISO or EWKB."""
    if raw & (_EWKB_Z | _EWKB_M | _EWKB_SRID):
        base = raw & 0x0FFFFFFF
        has_z, has_m = bool(raw & _EWKB_Z), bool(raw & _EWKB_M)
    else:
        base, dims = raw % 1000, raw // 1000
        if dims > 3:
            raise GeometryError(f"WKB type {raw} at byte {at} is not a geometry type")
        has_z, has_m = dims in (1, 3), dims in (2, 3)
    if not 1 <= base <= 7:
        raise GeometryError(f"WKB type {raw} at byte {at} is not one of the 7 geometry "
                            f"types")
    return base, has_z, has_m


_POINT_SIZE = 21         # byte order, type, x, y


def xy_points(offsets, data):
    """The (n, 2) coordinates of n WKB values when every one is a little-endian 2D
    point (the common case, read without a Python loop), else None."""
    offsets = np.asarray(offsets)
    n = len(offsets) - 1
    if n <= 0 or int(offsets[-1] - offsets[0]) != n * _POINT_SIZE or \
            np.any(np.diff(offsets) != _POINT_SIZE):
        return None
    raw = np.frombuffer(memoryview(data), np.uint8, n * _POINT_SIZE, int(offsets[0]))
    rows = raw.reshape(n, _POINT_SIZE)
    if np.any(rows[:, 0] != 1) or np.any(rows[:, 1:5].copy().view("<u4").ravel() != 1):
        return None
    return rows[:, 5:].copy().view("<f8").reshape(n, 2)


def _parse(value):
    buf = memoryview(value).cast("B")
    reader = _Reader(buf)
    code, end = reader.geometry(0, 0)
    if end != len(buf):
        raise GeometryError(f"WKB geometry ends at byte {end}, but the value has "
                            f"{len(buf)} bytes")
    return code, reader.boxes


def geometry_type(value):
    """The ISO type code of one WKB value (1 = Point ... 3007 = GeometryCollection ZM)."""
    return _parse(value)[0]


def envelope(value):
    """``(xmin, ymin, xmax, ymax)`` of one WKB value, or None when it has no X/Y
    coordinates (empty, or all NaN)."""
    bounds = GeoBounds()
    bounds.add(value)
    return bounds.xy()


class GeoBounds:
    """The box and the geometry type codes of the WKB values added.

    ``spherical`` (GEOGRAPHY with spherical edges): X and Y bound the great-circle
    edges (:class:`pqkit.geo.geodesic.SphericalBox`), not only the vertices.
    """

    __slots__ = ("hi", "lo", "sphere", "types")

    def __init__(self, spherical=False):
        self.lo = [np.inf] * 4          # x, y, z, m
        self.hi = [-np.inf] * 4
        self.types = set()
        self.sphere = SphericalBox() if spherical else None

    def add_points(self, coords):
        """Add (n, 2) 2D points (from :func:`xy_points`) at once."""
        self.types.add(1)
        if self.sphere is not None:
            self.sphere.add_points(coords[:, 0], coords[:, 1])
        self._extend(coords, [0, 1])

    def add(self, value):
        code, boxes = _parse(value)
        self.types.add(code)
        for has_z, has_m, coords, ring in boxes:
            if self.sphere is not None:
                self.sphere.add(coords[:, 0], coords[:, 1], ring)
            self._extend(coords, [0, 1] + ([2] if has_z else []) + ([3] if has_m else []))

    def _extend(self, coords, axes):
        for column, axis in enumerate(axes):
            values = coords[:, column]
            values = values[~np.isnan(values)]
            if values.size:
                self.lo[axis] = min(self.lo[axis], float(values.min()))
                self.hi[axis] = max(self.hi[axis], float(values.max()))

    def xy(self):
        """``(xmin, ymin, xmax, ymax)``, or None without X and Y values."""
        if self.lo[0] > self.hi[0] or self.lo[1] > self.hi[1]:
            return None
        if self.sphere is not None:
            return self.sphere.box()
        return self.lo[0], self.lo[1], self.hi[0], self.hi[1]

    def statistics(self, with_box=True):
        """The ``GeospatialStatistics`` of what was added (the box only if ``with_box``
        and X and Y both have values)."""
        bbox = None
        xy = self.xy() if with_box else None
        if xy is not None:
            z = self.lo[2] <= self.hi[2]
            m = self.lo[3] <= self.hi[3]
            bbox = fmt.BoundingBox(xmin=xy[0], xmax=xy[2], ymin=xy[1], ymax=xy[3], zmin=self.lo[2] if z else None,
                                   zmax=self.hi[2] if z else None,
                                   mmin=self.lo[3] if m else None,
                                   mmax=self.hi[3] if m else None)
        return fmt.GeospatialStatistics(bbox=bbox, geospatial_types=sorted(self.types))
