"""pqinspect's file surgery: append, concat, edit (footer metadata) and recover, each a
command over :mod:`pqkit.write.surgery`."""
