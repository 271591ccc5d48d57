"""Fuzz the CSV and JSON Lines readers of ``pqinspect convert`` (pqkit.textio).

Input: byte 0 picks the reader (bit 0: CSV or JSON Lines), whether the CSV has a
header (bit 1) and its delimiter (bits 2-3: ``,`` ``;`` tab ``|``); the rest is
the text. Types are inferred from the first 8 records, batches hold 16, so that
a later record misfitting the inferred type is reached. Anything but Tables or a
:class:`pqkit.ParquetError` is a finding.

Usage: python tools/fuzz/fuzz_text.py -max_total_time=20 [corpus dir ...]
"""
import io

import atheris
import seeds

with atheris.instrument_imports():
    import pqkit
    from pqkit.textio.readers import CsvReader, JsonLinesReader

DELIMITERS = ",;\t|"
LIMITS = {"infer_rows": 8, "batch_size": 16, "max_line_bytes": 4096}


def test_one(data):
    if not data:
        return
    stream = io.BytesIO(data[1:])
    try:
        if data[0] & 1:
            reader = JsonLinesReader(stream, **LIMITS)
        else:
            reader = CsvReader(stream, header=bool(data[0] & 2),
                               delimiter=DELIMITERS[data[0] >> 2 & 3], **LIMITS)
        for table in reader.batches():
            table.to_pydict()
    except pqkit.ParquetError:
        pass


def text_seeds():
    csv = [(b"id,name,price,when,flag\n1,a,1.5,2024-01-02,true\n2,,2.25,2024-01-03T04:05:06Z,"
            b"false\n3,\"q,\"\"x\"\"\",1e3,,\n"),
           b"a;b\n1;2\n3;x\n" + b"4;5\n" * 10 + b"7;1.5\n",
           b"\xef\xbb\xbfx\ty\n-9223372036854775808\t00:01:02\n"]
    jsonl = [(b'{"id": 1, "tags": ["a", "b"], "m": {"k": 1.5}, "t": "2024-01-02T03:04:05"}\n'
              b'{"id": 2, "tags": null, "nested": {"x": [1, 2, {"y": true}]}}\n\n'
              b'{"id": 99999999999999999999, "tags": [], "m": {}}\n'),
             b'{"a": "2024-01-01", "b": 1}\n' * 9 + b'{"a": "x", "b": 1.5}\n']
    return ([bytes([0b10 | d << 2]) + t for t in csv for d in range(4)]
            + [b"\x01" + t for t in jsonl])


if __name__ == "__main__":
    seeds.fuzz("text", test_one, seeds_of=text_seeds)
