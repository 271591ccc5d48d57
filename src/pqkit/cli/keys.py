"""The keys of encrypted files on pqinspect's command line.

``--footer-key``, ``--column-key PATH=KEY`` (repeatable) and ``--aad-prefix``, or the
environment variables ``PQKIT_FOOTER_KEY`` and ``PQKIT_AAD_PREFIX``. A key is written
with its form so that a 32-character key is never ambiguous: ``hex:30313233...``,
``base64:MDEyMw==`` or ``text:0123456789012345``. Keys never appear in messages or in
``--json`` output.
"""
import base64
import binascii
import os

from pqkit.crypto.properties import DecryptionProperties
from pqkit.errors import ArgumentError
from pqkit.read.options import DEFAULT_OPTIONS, ReadOptions

__all__ = ["add_key_arguments", "read_options", "parse_key"]

_FORMS = ("hex:", "base64:", "text:")


def add_key_arguments(parser):
    group = parser.add_argument_group("keys of encrypted files (hex:..., base64:... or "
                                      "text:...)")
    group.add_argument("--footer-key", metavar="KEY",
                       help="the footer key (default: $PQKIT_FOOTER_KEY)")
    group.add_argument("--column-key", action="append", default=[], metavar="PATH=KEY",
                       help="the key of one column (repeatable)")
    group.add_argument("--aad-prefix", metavar="VALUE",
                       help="the AAD prefix of a file that does not store it "
                            "(default: $PQKIT_AAD_PREFIX)")


def parse_key(text, what):
    """The bytes of a key written as ``hex:``, ``base64:`` or ``text:``."""
    form = next((f for f in _FORMS if text.startswith(f)), None)
    if form is None:
        raise ArgumentError(f"{what} must start with hex:, base64: or text:")
    body = text[len(form):]
    try:
        if form == "hex:":
            return bytes.fromhex(body)
        if form == "base64:":
            return base64.b64decode(body, validate=True)
    except (ValueError, binascii.Error):
        raise ArgumentError(f"{what} is not valid {form[:-1]}") from None
    return body.encode()


def read_options(args):
    """The ReadOptions of the keys given on the command line or in the environment."""
    footer = args.footer_key or os.environ.get("PQKIT_FOOTER_KEY")
    prefix = args.aad_prefix or os.environ.get("PQKIT_AAD_PREFIX")
    columns = {}
    for item in args.column_key:
        path, sep, key = item.partition("=")
        if not sep or not path:
            raise ArgumentError("--column-key takes PATH=KEY")
        columns[path] = parse_key(key, f"the key of column {path}")
    if footer is None and not columns and prefix is None:
        return DEFAULT_OPTIONS
    return ReadOptions(decryption=DecryptionProperties(
        footer_key=None if footer is None else parse_key(footer, "the footer key"),
        column_keys=columns,
        aad_prefix=None if prefix is None else parse_key(prefix, "the AAD prefix")))
