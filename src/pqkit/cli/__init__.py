"""The pqinspect command line (one module per subcommand, grouped by what the commands do
in file/, rows/, surgery/ and dataset/; formatting only)."""
