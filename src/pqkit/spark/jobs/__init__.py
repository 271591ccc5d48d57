"""The jobs behind :func:`pqkit.spark.read`, :func:`pqkit.spark.plan` and
:func:`pqkit.spark.write`: planning on the driver, tasks on the executors, the commit, and
PQDS/1 datasets read and written through them."""
