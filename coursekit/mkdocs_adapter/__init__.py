"""The MkDocs adapter: the only package that imports MkDocs or Material.

:mod:`~coursekit.mkdocs_adapter.plugin` is the plugin (``plugins: - coursekit``);
:mod:`~coursekit.mkdocs_adapter.project` reads the project for tools outside a build;
:mod:`~coursekit.mkdocs_adapter.serve` restarts `mkdocs serve` when the engine changes.
A move to another site generator is one new adapter beside this one.
"""
