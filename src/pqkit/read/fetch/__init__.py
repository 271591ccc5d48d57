"""Reading stage 1, bytes and metadata: sources (local and ranged remote), the
requests a read plans and coalesces, the footer with its checks and pyarrow-shaped
views, and the page index structs."""
