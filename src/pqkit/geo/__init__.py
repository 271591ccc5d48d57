"""Geometry helpers of the GEOMETRY / GEOGRAPHY logical types: WKB values and their boxes
(:mod:`pqkit.geo.wkb`), and the boxes of spherical edges (:mod:`pqkit.geo.geodesic`)."""
