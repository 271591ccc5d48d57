"""The schema tree: the flattened SchemaElement list as nodes with paths and levels.

The footer stores the schema depth first, root first; a group gives its
``num_children`` and its children follow. For example::

    message m {                 root        (num_children=2)
      required int64 id;          id        def 0 rep 0
      optional group tags (LIST)  tags      (num_children=1)
        repeated group list         list    (num_children=1)
          optional binary element     element  -> path tags.list.element, def 3 rep 1
    }

A leaf's max definition level counts the non-REQUIRED nodes on its path, its
max repetition level the REPEATED ones (the root never counts).
"""
from pqkit.errors import ArgumentKeyError, SchemaError
from pqkit.format import (
    ConvertedType,
    EdgeInterpolationAlgorithm,
    FieldRepetitionType,
    Type,
)
from pqkit.levels import REPEATED, REQUIRED

MAX_SCHEMA_DEPTH = 200


def enum_name(enum_cls, value):
    """The enum member's name, UNKNOWN(v) for a value the enum lacks, None for None."""
    if value is None:
        return None
    try:
        return enum_cls(value).name
    except ValueError:
        return f"UNKNOWN({value})"


def logical_type_str(lt):
    """A short text for a LogicalType union: STRING, DECIMAL(9,2), TIMESTAMP(MICROS,UTC)..."""
    if lt is None:
        return None
    for name in lt.FIELD_NAMES:
        v = getattr(lt, name)
        if v is None:
            continue
        if name == "DECIMAL":
            return f"DECIMAL({v.precision},{v.scale})"
        if name in ("TIME", "TIMESTAMP"):
            unit = next((u for u in v.unit.FIELD_NAMES if getattr(v.unit, u) is not None), "?") \
                if v.unit is not None else "?"
            utc = "UTC" if v.isAdjustedToUTC else "local"
            return f"{name}({unit},{utc})"
        if name == "INTEGER":
            return f"INT({v.bitWidth},{'signed' if v.isSigned else 'unsigned'})"
        if name == "VARIANT" and v.specification_version is not None:
            return f"VARIANT({v.specification_version})"
        if name == "GEOMETRY":
            return f"GEOMETRY({v.crs})" if v.crs else "GEOMETRY"
        if name == "GEOGRAPHY":
            algo = None if v.algorithm is None else enum_name(EdgeInterpolationAlgorithm,
                                                                v.algorithm)
            parts = [p for p in (v.crs, algo) if p]
            return f"GEOGRAPHY({','.join(parts)})" if parts else "GEOGRAPHY"
        return name
    return "UNKNOWN_LOGICAL_TYPE"


class SchemaNode:
    """One node of the schema tree (a group or a leaf column)."""

    __slots__ = ("element", "name", "parent", "children", "path", "repetition",
                 "max_definition_level", "max_repetition_level", "column_index", "depth")

    def __init__(self, element, parent):
        self.element = element
        self.name = element.name
        self.parent = parent
        self.children = []
        self.path = () if parent is None else parent.path + (element.name,)
        self.depth = 0 if parent is None else parent.depth + 1
        rep = element.repetition_type
        self.repetition = REQUIRED if (parent is None or rep is None) else rep
        base_def = 0 if parent is None else parent.max_definition_level
        base_rep = 0 if parent is None else parent.max_repetition_level
        self.max_definition_level = base_def + (self.repetition != REQUIRED)
        self.max_repetition_level = base_rep + (self.repetition == REPEATED)
        self.column_index = None

    @property
    def is_leaf(self):
        return self.element.num_children is None and self.parent is not None

    @property
    def physical_type(self):
        return self.element.type

    @property
    def logical_type(self):
        return self.element.logicalType

    @property
    def converted_type(self):
        return self.element.converted_type

    @property
    def dotted_path(self):
        return ".".join(self.path)

    def type_str(self):
        """Physical type, with the FLBA length, e.g. FIXED_LEN_BYTE_ARRAY(16)."""
        if self.element.type is None:
            return "group"
        s = enum_name(Type, self.element.type)
        if self.element.type == Type.FIXED_LEN_BYTE_ARRAY:
            s += f"({self.element.type_length})"
        return s

    def annotation_str(self):
        """Logical type text, else the converted type's name, else None."""
        lt = logical_type_str(self.element.logicalType)
        if lt is not None:
            return lt
        ct = self.element.converted_type
        if ct is None:
            return None
        name = enum_name(ConvertedType, ct)
        if ct == ConvertedType.DECIMAL:
            name += f"({self.element.precision},{self.element.scale})"
        return name

    def to_dict(self):
        """A JSON-ready description of this node and its subtree."""
        e = self.element
        d = {
            "name": self.name,
            "path": list(self.path),
            "repetition": enum_name(FieldRepetitionType, self.repetition),
            "max_definition_level": self.max_definition_level,
            "max_repetition_level": self.max_repetition_level,
        }
        if self.parent is None:
            d["repetition"] = None
        if e.type is not None:
            d["physical_type"] = enum_name(Type, e.type)
            d["column_index"] = self.column_index
        if e.type_length is not None:
            d["type_length"] = e.type_length
        d["logical_type"] = logical_type_str(e.logicalType)
        d["converted_type"] = None if e.converted_type is None else enum_name(
            ConvertedType, e.converted_type)
        for attr in ("precision", "scale", "field_id"):
            if getattr(e, attr) is not None:
                d[attr] = getattr(e, attr)
        if self.children or not self.is_leaf:
            d["children"] = [c.to_dict() for c in self.children]
        return d

    def __repr__(self):
        return f"<SchemaNode {self.dotted_path or '<root>'} {self.type_str()}>"


class Schema:
    """A Parquet schema as a tree.

    Parameters
    ----------
    elements : list of pqkit.format.SchemaElement
        The flattened schema from the footer, root first.

    Attributes
    ----------
    root : SchemaNode
    columns : list of SchemaNode
        The leaves in file order; ``columns[i]`` describes column chunk ``i``
        of every row group.
    """

    def __init__(self, elements):
        self.elements = list(elements)
        if not self.elements:
            raise SchemaError("the schema is empty (no root element)")
        self.columns = []
        self.root = self._build()
        self._by_path = {c.path: c for c in self.columns}

    def _build(self):
        elements = self.elements
        root = SchemaNode(self._checked(0), None)
        if root.element.num_children is None:
            raise SchemaError("schema root element has no num_children")
        # Iterative depth-first build: (node, children still expected).
        stack = [[root, root.element.num_children]]
        pos = 1
        while stack:
            top = stack[-1]
            if top[1] == 0:
                stack.pop()
                continue
            if pos >= len(elements):
                raise SchemaError(
                    f"schema element {top[0].dotted_path or '<root>'} expects more children "
                    f"than the {len(elements)} elements provide")
            top[1] -= 1
            node = SchemaNode(self._checked(pos), top[0])
            top[0].children.append(node)
            pos += 1
            n = node.element.num_children
            if n is not None and node.element.type is None:
                if n < 0:
                    raise SchemaError(f"schema element {node.dotted_path} has num_children {n}")
                if len(stack) >= MAX_SCHEMA_DEPTH:
                    raise SchemaError(f"schema nested deeper than {MAX_SCHEMA_DEPTH}")
                stack.append([node, n])
            else:
                self._check_leaf(node)
                node.column_index = len(self.columns)
                self.columns.append(node)
        if pos != len(elements):
            raise SchemaError(
                f"schema has {len(elements) - pos} elements beyond the tree described by "
                "num_children")
        return root

    def _checked(self, i):
        e = self.elements[i]
        if e.name is None:
            raise SchemaError(f"schema element {i} has no name")
        if e.repetition_type is not None and i > 0 and e.repetition_type not in (0, 1, 2):
            raise SchemaError(
                f"schema element {e.name!r} has invalid repetition type {e.repetition_type}")
        return e

    def _check_leaf(self, node):
        e = node.element
        if e.type is None:
            raise SchemaError(f"leaf column {node.dotted_path} has no physical type")
        if e.type not in Type._value2member_map_:
            raise SchemaError(f"leaf column {node.dotted_path} has invalid physical type {e.type}")
        if e.type == Type.FIXED_LEN_BYTE_ARRAY and (e.type_length is None or e.type_length < 0):
            raise SchemaError(
                f"FIXED_LEN_BYTE_ARRAY column {node.dotted_path} has invalid type_length "
                f"{e.type_length}")
        if node.element.num_children:
            raise SchemaError(f"leaf column {node.dotted_path} declares {e.num_children} children")

    def column(self, key):
        """A leaf by index, dotted path or path tuple."""
        if isinstance(key, int):
            return self.columns[key]
        path = tuple(key.split(".")) if isinstance(key, str) else tuple(key)
        try:
            return self._by_path[path]
        except KeyError:
            raise ArgumentKeyError(f"no column {'.'.join(path)!r} in the schema") from None

    @property
    def names(self):
        """Names of the top-level fields."""
        return [c.name for c in self.root.children]

    def __len__(self):
        return len(self.columns)

    def to_dict(self):
        return self.root.to_dict()

    def __repr__(self):
        return f"<pqkit.Schema {len(self.columns)} columns: {', '.join(self.names)}>"
