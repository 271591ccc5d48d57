"""Reference codec: the `thrift` package's own TCompactProtocol over our field tables.

Builds one plain Python class per Parquet struct from pqkit.format.STRUCTS with a
`thrift_spec` in the layout the thrift library's generic readStruct/writeStruct
expect, so the library (not our code) encodes and decodes them.
"""
from thrift.protocol import TCompactProtocol
from thrift.Thrift import TType
from thrift.transport import TTransport

from pqkit.format import STRUCTS

TTYPES = {"bool": TType.BOOL, "i8": TType.BYTE, "i16": TType.I16, "i32": TType.I32,
          "i64": TType.I64, "double": TType.DOUBLE, "string": TType.STRING,
          "binary": TType.STRING, "enum": TType.I32, "struct": TType.STRUCT,
          "list": TType.LIST}


class RefStruct:
    thrift_spec = ()
    field_names = ()
    defaults = {}

    def __init__(self, **kw):
        for name in self.field_names:
            setattr(self, name, kw.get(name, self.defaults.get(name)))

    def read(self, iprot):
        iprot.readStruct(self, self.thrift_spec)

    def write(self, oprot):
        oprot.writeStruct(self, self.thrift_spec)


REF = {name: type(name, (RefStruct,), {}) for name in STRUCTS}


def _spec_arg(t):
    kind = t[0]
    if kind == "string":
        return "UTF8"
    if kind == "binary":
        return "BINARY"
    if kind == "struct":
        return (REF[t[1]], REF[t[1]].thrift_spec)
    if kind == "list":
        return (TTYPES[t[1][0]], _spec_arg(t[1]), False)
    return None


def _build_specs():
    # Two passes: nested struct specs must exist (as lists) before they are referenced.
    for name, (_, fields) in STRUCTS.items():
        REF[name].thrift_spec = [None] * (max((f[0] for f in fields), default=0) + 1)
        REF[name].field_names = tuple(f[1] for f in fields)
        REF[name].defaults = {f[1]: f[4] for f in fields if f[4] is not None}
    for name, (_, fields) in STRUCTS.items():
        spec = REF[name].thrift_spec
        for fid, fname, _req, ftype, default in fields:
            spec[fid] = (fid, TTYPES[ftype[0]], fname, _spec_arg(ftype), default)


_build_specs()


def ref_encode(obj):
    buf = TTransport.TMemoryBuffer()
    obj.write(TCompactProtocol.TCompactProtocol(buf))
    return buf.getvalue()


def ref_decode(name, data):
    obj = REF[name]()
    obj.read(TCompactProtocol.TCompactProtocol(TTransport.TMemoryBuffer(data)))
    return obj


def plain(obj):
    """Either codec's object tree as nested dicts/lists, for comparison."""
    if isinstance(obj, (list, tuple)) or type(obj).__name__ == "LazyStructList":
        return [plain(x) for x in obj]
    names = getattr(obj, "FIELD_NAMES", getattr(obj, "field_names", None))
    if names is None:
        return obj
    return {"__struct__": type(obj).__name__,
            **{n: plain(getattr(obj, n)) for n in names if getattr(obj, n) is not None}}


def to_ref(obj):
    """Convert one of our struct objects into the reference class."""
    if isinstance(obj, list) or type(obj).__name__ == "LazyStructList":
        return [to_ref(x) for x in obj]
    names = getattr(obj, "FIELD_NAMES", None)
    if names is None:
        return obj
    return REF[type(obj).__name__](**{n: to_ref(getattr(obj, n)) for n in names})
