"""The AAD of each module kind: file AAD, type byte, then 16-bit little-endian ordinals."""
import pytest

import pqkit
from pqkit.crypto.modules import ModuleType, module_aad


def test_a_data_page_header_binds_row_group_column_and_page():
    assert module_aad(b"F", ModuleType.DATA_PAGE_HEADER, 0, 1, 3) == \
        b"F\x04\x00\x00\x01\x00\x03\x00"


def test_the_footer_binds_only_the_file():
    assert module_aad(b"prefix-unique", ModuleType.FOOTER) == b"prefix-unique\x00"


def test_column_modules_carry_no_page_ordinal():
    assert module_aad(b"", ModuleType.OFFSET_INDEX, 258, 2) == b"\x07\x02\x01\x02\x00"


def test_an_ordinal_past_16_bits_is_refused():
    with pytest.raises(pqkit.UnsupportedFeatureError, match="page ordinal 32768"):
        module_aad(b"", ModuleType.DATA_PAGE, 0, 0, 1 << 15)
