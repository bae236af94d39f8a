"""The pure domain of Scour Explorer: models, ports, scoring and retrieval decisions.

Nothing here imports Qt, a database driver, an embedding library or the environment; everything
here would make sense in a notebook.
"""
