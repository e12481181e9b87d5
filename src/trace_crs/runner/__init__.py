"""The resumable evaluation runner behind ``trace-crs evaluate`` (ARCHITECTURE §4)."""
