"""The box of GEOGRAPHY values whose edges are great-circle arcs (``spherical`` edges).

On a sphere an edge between two vertices is the shorter great-circle arc, so:

* its latitudes reach beyond its endpoints when the arc passes the highest (or
  lowest) point of its great circle: that point is the unit vector toward the pole
  projected onto the circle's plane, and counts when it lies between the endpoints;
* its longitudes run from one endpoint to the other the short way round, which may
  cross the antimeridian;
* a polygon ring that winds once around a pole contains it: the box then spans
  every longitude and reaches that pole (the one on the ring's smaller side, as a
  polygon is read when its orientation is not trusted); an edge from a vertex on a pole may leave it along any meridian, so
  the box then spans every longitude (a lone point keeps its stored longitude).

Longitudes are gathered as arcs of the circle and the box keeps the smallest arc
covering them all: the complement of the largest gap. When that arc crosses the
antimeridian, ``xmin > xmax`` as the spec allows. Endpoint coordinates are kept
exactly; interior latitude extremes are computed in floating point.
"""
import math

import numpy as np

__all__ = ["SphericalBox"]


class SphericalBox:
    """Longitude arcs and latitude range of the sequences added."""

    __slots__ = ("arcs", "ylo", "yhi", "full")

    def __init__(self):
        self.arcs = []          # (start, length, end as given), start in [-180, 180]
        self.ylo, self.yhi = math.inf, -math.inf
        self.full = False

    def _vertices(self, lon, lat):
        """``lon``, ``lat`` without NaN, their latitudes taken into the range."""
        keep = ~(np.isnan(lon) | np.isnan(lat))
        lon, lat = lon[keep], lat[keep]
        if lon.size:
            self.ylo = min(self.ylo, float(lat.min()))
            self.yhi = max(self.yhi, float(lat.max()))
        return lon, lat

    def add(self, lon, lat, ring=False):
        """One point, line string or ring (``ring`` True) of coordinates in degrees;
        NaN coordinates are left out."""
        lon, lat = self._vertices(lon, lat)
        if lon.size <= 1:
            self.arcs.extend((x, 0.0, x) for x in lon.tolist())
            return
        if float(np.abs(lat).max()) >= 90.0:
            self.full = True
        delta = (lon[1:] - lon[:-1] + 180.0) % 360.0 - 180.0
        for a, d, b in zip(lon[:-1].tolist(), delta.tolist(), lon[1:].tolist()):
            self.arcs.append((a, d, b) if d >= 0 else (b, -d, a))
        lo, hi = _interior_latitudes(np.radians(lon), np.radians(lat))
        self.ylo, self.yhi = min(self.ylo, lo), max(self.yhi, hi)
        turn = float(delta.sum())
        if ring and abs(turn) > 180.0:                    # winds around a pole
            self.full = True
            if _north_side_smaller(lat, delta, turn):
                self.yhi = 90.0
            else:
                self.ylo = -90.0

    def add_points(self, lon, lat):
        """Separate points (no edges between them)."""
        lon, _ = self._vertices(lon, lat)
        self.arcs.extend((x, 0.0, x) for x in np.unique(lon).tolist())

    def box(self):
        """``(xmin, ymin, xmax, ymax)`` or None when nothing was added."""
        if not self.arcs:
            return None
        if self.full:
            return -180.0, self.ylo, 180.0, self.yhi
        xmin, xmax = _covering_arc(self.arcs)
        return xmin, self.ylo, xmax, self.yhi


def _north_side_smaller(lat, delta, turn):
    """Whether, of the two sides of a ring that winds once around the poles, the one
    holding the north pole has the smaller area. The area between the ring and the
    north pole is proportional to the integral of (1 - sin(lat)) over the longitudes
    the ring turns through, so the north side is the smaller one when the mean of
    sin(lat) weighted by each edge's longitude step is positive (a plain mean of the
    vertices would let a cluster of vertices outvote long sparse edges)."""
    mid = np.sin(np.radians(lat))
    mid = (mid[:-1] + mid[1:]) / 2.0
    return float((mid * delta).sum()) / turn >= 0


def _interior_latitudes(lon, lat):
    """(lowest, highest) latitude, in degrees, reached inside the arcs between
    consecutive vertices (inf/-inf when none goes beyond its endpoints)."""
    xyz = np.stack([np.cos(lat) * np.cos(lon), np.cos(lat) * np.sin(lon), np.sin(lat)], 1)
    a, b = xyz[:-1], xyz[1:]
    n = np.cross(a, b)
    norm = np.linalg.norm(n, axis=1)
    ok = norm > 1e-15
    if not ok.any():
        return math.inf, -math.inf
    n = n[ok] / norm[ok, None]
    a, b = a[ok], b[ok]
    # the point of each great circle nearest the north pole
    top = np.stack([-n[:, 2] * n[:, 0], -n[:, 2] * n[:, 1], 1.0 - n[:, 2] ** 2], 1)
    top_norm = np.linalg.norm(top, axis=1)
    top = top / np.where(top_norm > 0, top_norm, 1.0)[:, None]
    lo, hi = math.inf, -math.inf
    for sign in (1.0, -1.0):
        p = sign * top
        inside = (np.einsum("ij,ij->i", np.cross(a, p), n) > 0) & \
            (np.einsum("ij,ij->i", np.cross(p, b), n) > 0) & (top_norm > 0)
        if inside.any():
            lats = np.degrees(np.arcsin(np.clip(p[inside, 2], -1.0, 1.0)))
            lo, hi = min(lo, float(lats.min())), max(hi, float(lats.max()))
    return lo, hi


def _covering_arc(arcs):
    """(xmin, xmax) of the smallest arc of longitudes covering every arc."""
    arcs = sorted(((s + 360.0 if s < -180.0 else s), length, end) for s, length, end in arcs)
    reach, reach_end = arcs[0][0] + arcs[0][1], arcs[0][2]
    best_gap, best = -1.0, None
    for s, length, end in arcs[1:]:
        if s - reach > best_gap:
            best_gap, best = s - reach, (s, reach_end)
        if s + length > reach:
            reach, reach_end = s + length, end
    wrap_gap = arcs[0][0] + 360.0 - reach
    if wrap_gap <= 0 and best_gap <= 0:
        return -180.0, 180.0
    if wrap_gap >= best_gap:
        return arcs[0][0], reach_end
    return best
