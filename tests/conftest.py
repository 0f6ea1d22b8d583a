"""Shared test configuration.

The drift check itself is the plugin ``coursekit.pytest_plugin`` (loaded from
pyproject.toml), so the same plugin also runs the small fixture sites below.
"""

# Fixture sites are broken on purpose; they are run by test_bad_input.py in their own pytest.
collect_ignore = ["fixtures"]
