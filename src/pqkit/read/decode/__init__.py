"""Reading stage 2, bytes to columns: a column chunk's pages into levels and values,
flat chunks placed straight into their rows, leaves typed and nested, the recorded
Arrow types restored, and whole row groups decoded (on worker threads)."""
