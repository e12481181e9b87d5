"""The resumable evaluation runner behind ``trace-crs evaluate`` (issue 4 item 5, ARCHITECTURE §4)."""
