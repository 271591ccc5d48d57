"""The Parquet VARIANT type: its binary encoding and its shredding.

``decode(metadata, value)`` turns one variant into Python values;
``unshred(column)`` rebuilds unshredded bytes from a shredded column as read;
``decode_column`` / ``VariantColumn`` back ``read_table(..., variant="decode")``;
``variant_column(values)`` and ``variant_column_from_bytes(pairs)`` make a column that
``pqkit.write_table`` writes as VARIANT (the ``shredding`` write option shreds it), and
``variant_field(name)`` marks a field as one.
The package sits between ``columnar`` (whose column kinds it reads) and the
roads (whose reader applies it).
"""
from pqkit.variant.binary import decode
from pqkit.schema.annotations import variant_field
from pqkit.variant.column import (
    VariantColumn,
    decode_column,
    decode_table,
    variant_column,
    variant_column_from_bytes,
)
from pqkit.variant.metadata import VariantMetadata
from pqkit.variant.shredded import unshred

__all__ = [
           "VariantColumn",
           "VariantMetadata",
           "decode",
           "decode_column",
           "decode_table",
           "unshred",
           "variant_column",
           "variant_column_from_bytes",
           "variant_field",
]
