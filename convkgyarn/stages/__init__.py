"""Pipeline stages over the project database, one module each."""
