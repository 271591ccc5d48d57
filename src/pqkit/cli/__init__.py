"""The pqinspect command line (one module per subcommand; formatting only)."""
