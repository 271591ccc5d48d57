"""Logical annotations that ride on a field's metadata: VARIANT, GEOMETRY and GEOGRAPHY.

pqkit's data types have no variant or geometry type; a column of either is its
storage (a struct of binaries, WKB binary) and the field says what it is, with
the Arrow extension keys Arrow-based readers and writers use::

    VARIANT      ARROW:extension:name = "arrow.parquet.variant"
    GEOMETRY     ARROW:extension:name = "geoarrow.wkb",
                 ARROW:extension:metadata = {"crs": <crs>}           (crs left out: OGC:CRS84)
    GEOGRAPHY    the same, plus "edges": "spherical" | "vincenty" | ... in the metadata

The reader puts these keys on the fields of annotated nodes
(:func:`field_metadata`) and the writer turns them back into the logical type
(:func:`logical_type`), so a table read and written again keeps its
annotations. :func:`variant_field` and :func:`geo_field` build such fields.
"""
import json

from pqkit import datatypes as T
from pqkit import format as fmt
from pqkit.errors import SchemaError
from pqkit.format import EdgeInterpolationAlgorithm

__all__ = ["EXTENSION_METADATA", "EXTENSION_NAME", "GEO_EXTENSION", "VARIANT_EXTENSION",
           "field_metadata", "geo_field", "geo_params", "is_geo_field", "is_variant_field",
           "logical_type", "projjson_keys", "variant_field"]

EXTENSION_NAME = "ARROW:extension:name"
EXTENSION_METADATA = "ARROW:extension:metadata"
VARIANT_EXTENSION = "arrow.parquet.variant"
GEO_EXTENSION = "geoarrow.wkb"
VARIANT_SPEC_VERSION = 1
EDGES = {"spherical": EdgeInterpolationAlgorithm.SPHERICAL,
         "vincenty": EdgeInterpolationAlgorithm.VINCENTY,
         "thomas": EdgeInterpolationAlgorithm.THOMAS,
         "andoyer": EdgeInterpolationAlgorithm.ANDOYER,
         "karney": EdgeInterpolationAlgorithm.KARNEY}
_EDGE_NAMES = {v: k for k, v in EDGES.items()}


def _get(metadata, key):
    if not metadata:
        return None
    value = metadata.get(key, metadata.get(key.encode()))
    return value.decode() if isinstance(value, bytes) else value


def is_variant_field(field):
    """Whether ``field`` (a pqkit Field) is marked as a VARIANT."""
    return _get(field.metadata, EXTENSION_NAME) == VARIANT_EXTENSION


def is_geo_field(field):
    """Whether ``field`` is marked as WKB geometry (GEOMETRY or GEOGRAPHY)."""
    return _get(field.metadata, EXTENSION_NAME) == GEO_EXTENSION


def geo_params(field):
    """``(crs, edges)`` of a geometry field: crs None for OGC:CRS84, edges None for
    planar (GEOMETRY) or an edge algorithm name (GEOGRAPHY)."""
    raw = _get(field.metadata, EXTENSION_METADATA) or "{}"
    try:
        params = json.loads(raw)
    except ValueError:
        raise SchemaError(f"field {field.name!r}: {EXTENSION_METADATA} {raw!r} is not "
                          f"JSON") from None
    if not isinstance(params, dict):
        raise SchemaError(f"field {field.name!r}: {EXTENSION_METADATA} must be a JSON object")
    crs = params.get("crs")
    if crs is not None and not isinstance(crs, str):
        crs = json.dumps(crs)          # a PROJJSON object given inline
    edges = params.get("edges")
    if edges in (None, "planar"):
        edges = None
    elif edges not in EDGES:
        raise SchemaError(f"field {field.name!r}: edges {edges!r} is not one of planar, "
                          f"{', '.join(EDGES)}")
    return crs, edges


def projjson_keys(fields):
    """The file metadata keys that the ``projjson:<key>`` crs of geometry ``fields`` (top
    level) name: the writer must store those entries."""
    keys = []
    for f in fields:
        if is_geo_field(f):
            crs = geo_params(f)[0]
            if crs and crs.startswith("projjson:"):
                keys.append(crs[len("projjson:"):])
    return keys


def variant_field(name, type=None, nullable=True):
    """A field marked as VARIANT; ``type`` defaults to the unshredded
    ``struct<metadata: binary not null, value: binary not null>``."""
    if type is None:
        type = T.struct([T.field("metadata", T.binary(), nullable=False),
                         T.field("value", T.binary(), nullable=False)])
    return T.field(name, type, nullable=nullable,
                   metadata={EXTENSION_NAME: VARIANT_EXTENSION, EXTENSION_METADATA: ""})


def geo_field(name, crs=None, edges=None, nullable=True):
    """A binary field of WKB values marked as GEOMETRY (``edges`` None) or GEOGRAPHY
    (``edges`` one of "spherical", "vincenty", "thomas", "andoyer", "karney")."""
    if edges is not None and edges not in EDGES:
        raise SchemaError(f"edges {edges!r} is not one of {', '.join(EDGES)}")
    params = {}
    if crs is not None:
        params["crs"] = crs
    if edges is not None:
        params["edges"] = edges
    return T.field(name, T.binary(), nullable=nullable,
                   metadata={EXTENSION_NAME: GEO_EXTENSION,
                             EXTENSION_METADATA: json.dumps(params)})


def field_metadata(element):
    """The field metadata the reader gives a node annotated VARIANT, GEOMETRY or
    GEOGRAPHY (a SchemaElement), else None."""
    lt = element.logicalType
    if lt is None:
        return None
    if lt.VARIANT is not None:
        return {EXTENSION_NAME: VARIANT_EXTENSION, EXTENSION_METADATA: ""}
    if lt.GEOMETRY is None and lt.GEOGRAPHY is None:
        return None
    params = {}
    geo = lt.GEOMETRY if lt.GEOMETRY is not None else lt.GEOGRAPHY
    if geo.crs:
        params["crs"] = geo.crs
    if lt.GEOGRAPHY is not None:
        algorithm = geo.algorithm if geo.algorithm is not None else \
            EdgeInterpolationAlgorithm.SPHERICAL
        params["edges"] = _EDGE_NAMES.get(algorithm, "spherical")
    return {EXTENSION_NAME: GEO_EXTENSION, EXTENSION_METADATA: json.dumps(params)}


def logical_type(field):
    """The VARIANT / GEOMETRY / GEOGRAPHY LogicalType ``field``'s metadata asks for, or
    None; a marked field whose type cannot hold it raises SchemaError."""
    if is_variant_field(field):
        t = field.type
        if not isinstance(t, T.StructType) or "metadata" not in t.names:
            raise SchemaError(f"VARIANT field {field.name!r} has type {t}: a variant is a "
                              f"struct of metadata and value binaries")
        return fmt.LogicalType(VARIANT=fmt.VariantType(
            specification_version=VARIANT_SPEC_VERSION))
    if is_geo_field(field):
        if not isinstance(field.type, T.BinaryType):
            raise SchemaError(f"geometry field {field.name!r} has type {field.type}: WKB "
                              f"values are binary")
        crs, edges = geo_params(field)
        if edges is None:
            return fmt.LogicalType(GEOMETRY=fmt.GeometryType(crs=crs))
        return fmt.LogicalType(GEOGRAPHY=fmt.GeographyType(crs=crs, algorithm=EDGES[edges]))
    return None
