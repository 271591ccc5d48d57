"""What every dataset format shares: file operations, the snapshot, partitions, planning.

A root of any format is read as one *snapshot* (:class:`~.snapshot.Manifest`, the
form of a PQDS/1 version file) listing file entries; these modules know nothing of
where a format keeps its snapshot. Nothing here imports a format package.
"""
from pqkit.dataset.core.canonical import (
    field_from_json,
    field_id,
    field_to_json,
    type_from_json,
    type_to_json,
)
from pqkit.dataset.core.column_mapping import ColumnMapping, next_field_id, rename_dnf
from pqkit.dataset.core.entry_stats import codec_name, file_statistics
from pqkit.dataset.core.footer_snapshot import (
    build_snapshot,
    merge_fields,
    read_facts,
    table_schema,
    utc_text,
)
from pqkit.dataset.core.containment import (
    check_inside,
    check_relative_path,
    real_root,
    relative_path_problem,
    resolve_inside,
)
# The vocabulary the formats' metadata schemas are written in (pqds.version_schema,
# rfc0008.manifest, kartothek.metadata) and the check that applies one to a document.
from pqkit.dataset.core.doc_schema import (
    Invalid,
    anything,
    boolean,
    both,
    count,
    either,
    integer,
    list_of,
    map_of,
    optional,
    record,
    rule,
    text,
    validate,
)
from pqkit.dataset.core.fsops import (
    META_DIR,
    FileLock,
    atomic_replace,
    crash_point,
    dump_json,
    durable,
    fsync_dir,
    loads_finite,
    makedirs,
    new_txn,
    parse_json,
    publish_if_absent,
    read_json,
    remove_if_exists,
    write_file,
)
from pqkit.dataset.core.deletion_file import (
    deleted_count,
    deletion_bytes,
    live_rows,
)
from pqkit.dataset.core.partitioning import (
    HIVE_NULL,
    PartitionColumn,
    Partitioning,
    canonical_text,
    escape_path_component,
    parse_partition_dirs,
    typed_partition_column,
    unescape_path_component,
)
from pqkit.dataset.core.planning import PQKIT_OPS, Planner, normalize_filters
from pqkit.dataset.core.scan import (
    FileReader,
    FileSource,
    SnapshotSource,
    check_size,
    open_entry,
    row_mask,
)
from pqkit.dataset.core.snapshot import (
    DEFAULT_PROPERTIES,
    FORMAT,
    FORMAT_VERSION,
    Manifest,
    TableSchema,
    check_format,
    max_field_id,
    parse_utc,
    utc_now_text,
    widens,
    with_field_ids,
)
from pqkit.dataset.core.storage import LocalStorage, ObjectStorage
from pqkit.dataset.core.tables import HashingSink, as_table, cast_to_fields, new_writer, plain_table
