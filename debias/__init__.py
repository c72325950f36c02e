"""debias package."""
