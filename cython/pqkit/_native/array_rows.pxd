# Rows of a list column as numpy views of its flat child values (what pyarrow's
# to_pandas() gives for lists). Python API only: array_rows().
