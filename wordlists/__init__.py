"""wordlists package."""
