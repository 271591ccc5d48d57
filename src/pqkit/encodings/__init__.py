"""Value and level encodings, one module per family, encoder beside decoder.

* :mod:`.rle`: the RLE/bit-packed hybrid (levels, RLE booleans, dictionary
  indices) and legacy BIT_PACKED levels.
* :mod:`.plain`: PLAIN for every physical type, and dictionary gathers.
* :mod:`.delta`, :mod:`.bss`: DELTA_* and BYTE_STREAM_SPLIT.

The hot loops live in ``pqkit._native``; these modules allocate outputs and
pick the kernel for a physical type or level kind.
"""
