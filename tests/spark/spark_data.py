"""Shared test data for the Spark tests: one DataFrame with every type both sides know."""

# ~200 rows: flat types with nulls and NaN, decimals stored as INT32, INT64 and
# FIXED_LEN_BYTE_ARRAY, dates, both timestamp kinds, nested arrays, maps, structs.
ALL_TYPES_SQL = """
select
  id,
  cast(id % 100 as tinyint) as i8,
  cast(id * 7 % 30000 as smallint) as i16,
  cast(id * 3 - 100 as int) as i32,
  case when id % 7 = 0 then null else id * 100000000000 - 7 end as i64,
  cast(id / 3 as float) as f32,
  case when id % 5 = 0 then double('NaN') when id % 6 = 0 then null
       else id * 1.25 - 40 end as f64,
  case when id % 9 = 0 then null else id % 2 = 0 end as flag,
  case when id % 4 = 0 then null else concat('s', id, '-é€') end as text,
  concat('cat', id % 5) as category,
  cast(concat('b', id) as binary) as bin,
  cast(id * 1.5 - 10 as decimal(5, 2)) as dec5,
  cast(id * 1000.125 as decimal(15, 3)) as dec15,
  case when id % 8 = 0 then null
       else cast(id * 123456789.12345 - 5 as decimal(30, 5)) end as dec30,
  date_add(date'1960-01-01', cast(id * 137 as int)) as day,
  case when id % 10 = 0 then null else timestamp_micros(id * 86400123457 - 800000000000000)
       end as ts,
  cast(timestamp_micros(id * 3600000001) as timestamp_ntz) as ntz,
  case when id % 3 = 0 then null else array(id, null, id * 2) end as ints,
  array(named_struct('k', cast(id as string), 'v', cast(id as double))) as pairs,
  case when id % 5 = 0 then null
       else map(concat('k', id), array(id), 'z', cast(array() as array<bigint>)) end as lookup,
  named_struct('a', id, 'b', named_struct('c', case when id % 2 = 0 then null
               else cast(id as string) end),
               'days', array(date_add(date'2020-01-01', cast(id as int)))) as nested
from range(0, 200)
"""


def all_types(spark, partitions=2):
    return spark.sql(ALL_TYPES_SQL).repartition(partitions, "id").sortWithinPartitions("id")
